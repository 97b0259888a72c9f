package runreport

import (
	"fmt"
	"io"
	"strings"

	"github.com/hylaflow/hylaflow/runs"
)

// WriteCompareMarkdown writes the comparison of two runs (runs.Compare,
// the computation runs diff prints) as Markdown: the provenance fields
// that differ, each table's cells with both means, Δ, the bound and the
// verdict, and the stages whose keys differ (with why) or that only one
// run has.
func WriteCompareMarkdown(w io.Writer, d *runs.Diff) {
	cv := newCompareView(d)
	md := func(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }
	fmt.Fprintf(w, "# Run %d compared with run %d\n\n", d.B.ID, d.A.ID)
	for _, r := range []runs.RunRef{d.A, d.B} {
		fmt.Fprintf(w, "- run %d: %s, %s, `hylaflow %s`\n", r.ID, md(r.Pipeline), r.Status, md(strings.Join(r.Args, " ")))
	}
	fmt.Fprintf(w, "\nΔ = run %d − run %d; %s.\n\n## Provenance that differs\n\n", d.B.ID, d.A.ID, d.SpreadRule)
	switch {
	case cv.ProvNote != "":
		fmt.Fprintf(w, "%s.\n", cv.ProvNote)
	case len(cv.Provenance) == 0:
		fmt.Fprintln(w, "None: same build, machine, files and variables.")
	default:
		fmt.Fprintf(w, "| field | run %d | run %d |\n|---|---|---|\n", d.A.ID, d.B.ID)
		for _, f := range cv.Provenance {
			fmt.Fprintf(w, "| %s | %s | %s |\n", md(f.Name), md(f.A), md(f.B))
		}
	}
	for _, t := range cv.Tables {
		fmt.Fprintf(w, "\n## %s (%s)\n\n", md(t.Title), md(t.Stage))
		if t.Only != "" {
			fmt.Fprintf(w, "Only in run %s.\n\n", t.Only)
		}
		fmt.Fprintf(w, "| dataset | model | run %d | run %d | Δ | bound | verdict |\n|---|---|---:|---:|---:|---:|---|\n", d.A.ID, d.B.ID)
		for _, r := range t.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", md(r.Dataset), md(r.Model), r.A, r.B, r.Delta, r.Bound, r.Verdict)
		}
	}
	fmt.Fprintf(w, "\n## Stages\n\n%d with the same cache key in both runs; %d changed; %d only in run %d; %d only in run %d.\n",
		cv.Same, len(cv.Changed), len(cv.OnlyA), d.A.ID, len(cv.OnlyB), d.B.ID)
	if len(cv.Changed) > 0 {
		fmt.Fprintln(w, "\n| stage | status | why its key differs |\n|---|---|---|")
		for _, s := range cv.Changed {
			fmt.Fprintf(w, "| `%s` | %s → %s | %s |\n", s.Address, s.StatusA, s.StatusB, md(strings.Join(s.Why, "; ")))
		}
	}
	for _, only := range []struct {
		id    int64
		addrs []string
	}{{d.A.ID, cv.OnlyA}, {d.B.ID, cv.OnlyB}} {
		if len(only.addrs) > 0 {
			fmt.Fprintf(w, "\nOnly in run %d: `%s`\n", only.id, strings.Join(only.addrs, "`, `"))
		}
	}
	for _, n := range cv.Notes {
		fmt.Fprintf(w, "\n%s\n", md(n))
	}
}

func orDash(s string) string {
	if s == "" {
		return "(not set)"
	}
	return s
}
