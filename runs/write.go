package runs

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/hylaflow/hylaflow/table"
)

// WriteDiff prints d for a terminal: the two runs, the provenance fields
// that differ, every table cell with both means, the difference, twice
// its standard error and the verdict, then the stages whose cache keys
// differ, grouped by stage block and reason, and the stages of one run only.
func WriteDiff(w io.Writer, d *Diff) error {
	ew := &errWriter{w: w}
	ew.printf("runs diff: A = run %d, B = run %d\n", d.A.ID, d.B.ID)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	for _, r := range []struct {
		name string
		ref  RunRef
	}{{"A", d.A}, {"B", d.B}} {
		start := "-"
		if !r.ref.Start.IsZero() {
			start = r.ref.Start.Local().Format("2006-01-02 15:04:05")
		}
		fmt.Fprintf(tw, "  %s\trun %d\t%s\t%s\t%s\thylaflow %s\n", r.name, r.ref.ID, r.ref.Pipeline, start, r.ref.Status, strings.Join(r.ref.Args, " "))
	}
	tw.Flush()

	writeProvenanceDiff(ew, d)
	for _, t := range d.Tables {
		writeTableDiff(ew, t)
	}
	if len(d.Tables) > 0 {
		ew.printf("\nbeyond: %s; within: not beyond\n", d.SpreadRule)
	}
	writeStagesDiff(ew, d.Stages)
	if len(d.Notes) > 0 {
		ew.printf("\nnotes:\n")
		for _, n := range d.Notes {
			ew.printf("  %s\n", n)
		}
	}
	return ew.err
}

func writeProvenanceDiff(ew *errWriter, d *Diff) {
	p := d.Provenance
	switch {
	case !p.RecordedA && !p.RecordedB:
		ew.printf("\nprovenance: %s for either run\n", NotRecorded)
		return
	case !p.RecordedA:
		ew.printf("\nprovenance: %s for run %d (A)\n", NotRecorded, d.A.ID)
		return
	case !p.RecordedB:
		ew.printf("\nprovenance: %s for run %d (B)\n", NotRecorded, d.B.ID)
		return
	case len(p.Changed) == 0:
		ew.printf("\nprovenance: the same (%s)\n", strings.Join(p.Same, ", "))
		return
	}
	ew.printf("\nprovenance: %d of %d fields differ\n", len(p.Changed), len(p.Changed)+len(p.Same))
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  FIELD\tA\tB")
	for _, c := range p.Changed {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Name, orNotSet(c.A), orNotSet(c.B))
	}
	tw.Flush()
	if len(p.Same) > 0 {
		ew.printf("  same: %s\n", strings.Join(p.Same, ", "))
	}
}

func writeTableDiff(ew *errWriter, t TableDiff) {
	var what []string
	if !table.MentionsMetric(t.Title, t.Metric) { // said once, not twice
		what = append(what, t.Metric)
	}
	if t.Unit != "" {
		what = append(what, t.Unit)
	}
	ew.printf("\ntable of %s: %s", t.Stage, t.Title)
	if len(what) > 0 {
		ew.printf(" (%s)", strings.Join(what, ", "))
	}
	switch t.Only {
	case "A":
		ew.printf(", only in run A")
	case "B":
		ew.printf(", only in run B")
	}
	ew.printf("\n")
	prec := TablePrecision(t)
	num := func(v float64) string { return table.Num(v, prec) }
	cellText := func(s *CellStat) string {
		if s == nil {
			return "-"
		}
		return s.Spread().TextN(prec)
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  DATASET\tMODEL\tA: MEAN ± SAMPLE STD (n)\tB: MEAN ± SAMPLE STD (n)\tΔ = B − A\t2·SE\tVERDICT")
	for _, c := range t.Cells {
		delta, bound := "-", "-"
		if c.Delta != nil {
			delta = num(*c.Delta)
			if *c.Delta > 0 {
				delta = "+" + delta
			}
		}
		if c.Bound != nil {
			bound = num(*c.Bound)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Dataset, c.Model, cellText(c.A), cellText(c.B), delta, bound, c.Verdict)
	}
	tw.Flush()
}

func writeStagesDiff(ew *errWriter, s StagesDiff) {
	ew.printf("\nstages: %d with the same key, %d differ, %d only in A, %d only in B\n", s.Same, len(s.Changed), len(s.OnlyA), len(s.OnlyB))
	// One line per stage block and reason: an ablation changes every
	// instance of a block the same way.
	type group struct {
		block, why string
		addrs      []string
	}
	var groups []*group
	index := map[[2]string]*group{}
	for _, c := range s.Changed {
		why := strings.Join(c.Why, "; ")
		if c.StatusB == "failed" && c.StatusA != "failed" {
			why += " (failed in B)"
		}
		k := [2]string{c.Block, why}
		g, ok := index[k]
		if !ok {
			g = &group{block: c.Block, why: why}
			index[k] = g
			groups = append(groups, g)
		}
		g.addrs = append(g.addrs, c.Address)
	}
	if len(groups) > 0 {
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		for _, g := range groups {
			fmt.Fprintf(tw, "  %s\t%s\n", instances(g.block, g.addrs), g.why)
		}
		tw.Flush()
	}
	for _, side := range []struct {
		name  string
		addrs []string
	}{{"A", s.OnlyA}, {"B", s.OnlyB}} {
		if len(side.addrs) == 0 {
			continue
		}
		ew.printf("  only in %s: %s\n", side.name, strings.Join(groupAddresses(side.addrs), ", "))
	}
}

// groupAddresses shortens a sorted list of addresses by block: the
// instances of one block become `train.hyla["0", "1"]`.
func groupAddresses(addrs []string) []string {
	var out []string
	for i := 0; i < len(addrs); {
		b := Block(addrs[i])
		j := i
		for j < len(addrs) && Block(addrs[j]) == b {
			j++
		}
		out = append(out, instances(b, addrs[i:j]))
		i = j
	}
	return out
}

// instances names a block's instances compactly: `train.hyla["0", "1",
// "2"]`, the first five and a count when there are more.
func instances(block string, addrs []string) string {
	if len(addrs) == 1 {
		return addrs[0]
	}
	keys := make([]string, 0, len(addrs))
	for _, a := range addrs {
		k := strings.TrimSuffix(strings.TrimPrefix(a, block+"["), "]")
		keys = append(keys, k)
	}
	if len(keys) > 5 {
		keys = append(keys[:5], fmt.Sprintf("… %d in all", len(addrs)))
	}
	return block + "[" + strings.Join(keys, ", ") + "]"
}

// TablePrecision returns the number of decimals of a compared table's
// figures: two, or four when every mean is below 1 in magnitude
// (fractions).
func TablePrecision(t TableDiff) int {
	for _, c := range t.Cells {
		for _, s := range []*CellStat{c.A, c.B} {
			if s != nil && math.Abs(s.Mean) >= 1 {
				return 2
			}
		}
	}
	return 4
}

// orNotSet shows a provenance field one run lacks (a -var given in the
// other run only).
func orNotSet(s string) string {
	if s == "" {
		return "(not set)"
	}
	return s
}

// errWriter keeps the first write error, so the printing code stays flat.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}
