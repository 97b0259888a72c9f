package runreport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
	"github.com/hylaflow/hylaflow/viz"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Timing is one training stage of a run (any stage whose metrics output
// names a model: train, gcn, gat, hyla_gcn, …) with the time charged to
// it: its own duration plus the durations, in the same run, of every stage
// it depends on (each counted once), i.e. load + precompute + sample +
// train.
type Timing struct {
	Address     string  `json:"address"`
	Dataset     string  `json:"dataset"`
	Model       string  `json:"model"`
	Test        float64 `json:"test_percent"`
	TrainSec    float64 `json:"train_seconds"`
	UpstreamSec float64 `json:"upstream_seconds"`
	TotalSec    float64 `json:"total_seconds"`
	// CachedUpstream lists dependencies that came from the cache in that
	// run: their time is not in the total.
	CachedUpstream []string `json:"cached_upstream,omitempty"`
}

// Timings computes the timing rows of every training stage of run id (a
// stage whose metrics output names a model and a dataset), in the run
// record's order.
func Timings(c *cache.Cache, id int64) ([]Timing, error) {
	run, err := c.Run(id)
	if err != nil {
		return nil, err
	}
	byKey := map[string]cache.StageRecord{}
	for _, s := range run.Stages {
		// A key computed once and reused in the same run (two instances
		// with equal keys) keeps the record of the instance that ran.
		if prev, ok := byKey[s.Key]; s.Key != "" && (!ok || prev.Status != "ran") {
			byKey[s.Key] = s
		}
	}
	recs := map[string]*cache.KeyRecord{}
	record := func(key string) (*cache.KeyRecord, error) {
		if r, ok := recs[key]; ok {
			return r, nil
		}
		r, ok, err := c.Record(key)
		if err != nil {
			return nil, err
		}
		if !ok {
			r = nil
		}
		recs[key] = r
		return r, nil
	}
	var out []Timing
	for _, s := range run.Stages {
		rec, err := record(s.Key)
		if err != nil {
			return nil, err
		}
		if rec == nil || rec.StageType == "evaluate" {
			continue
		}
		m, err := loadMetrics(c, s.Key)
		if err != nil || m.Model == "" || m.Dataset == "" {
			continue // not a training stage (or its outputs are gone)
		}
		row := Timing{Address: s.Address, TrainSec: s.Duration.Seconds(), Dataset: m.Dataset, Model: m.Model, Test: 100 * m.Test}
		if s.Status != "ran" {
			row.CachedUpstream = append(row.CachedUpstream, s.Address+" itself ("+s.Status+")")
		}
		// Walk the dependencies once each.
		seen := map[string]bool{}
		stack := rec.InputKeys()
		for len(stack) > 0 {
			k := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[k] {
				continue
			}
			seen[k] = true
			up, ok := byKey[k]
			switch {
			case !ok:
				row.CachedUpstream = append(row.CachedUpstream, fmt.Sprintf("%.12s… (not in the run)", k))
			case up.Status == "ran":
				row.UpstreamSec += up.Duration.Seconds()
			default:
				row.CachedUpstream = append(row.CachedUpstream, up.Address)
			}
			if r, err := record(k); err != nil {
				return nil, err
			} else if r != nil {
				stack = append(stack, r.InputKeys()...)
			}
		}
		sort.Strings(row.CachedUpstream)
		row.TotalSec = row.TrainSec + row.UpstreamSec
		out = append(out, row)
	}
	return out, nil
}

type trainMetrics struct {
	Dataset string  `json:"dataset"`
	Model   string  `json:"model"`
	Test    float64 `json:"test"`
}

func loadMetrics(c *cache.Cache, key string) (*trainMetrics, error) {
	refs, ok, err := c.Lookup(key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("key %.12s… is not in the cache", key)
	}
	for _, r := range refs {
		if r.Kind != schema.KindMetrics {
			continue
		}
		art, err := c.Load(r)
		if err != nil {
			return nil, err
		}
		a, err := bundle.From(art)
		if err != nil {
			return nil, err
		}
		var m trainMetrics
		if err := a.JSON(schema.MemberMetrics, &m); err != nil {
			return nil, err
		}
		return &m, nil
	}
	return nil, fmt.Errorf("key %.12s… has no metrics output", key)
}

// TimingSummary is the mean over the train stages of one dataset × model.
type TimingSummary struct {
	Dataset, Model               string
	Runs                         int
	Test                         table.Spread // test accuracy (%): mean ± sample std over the runs
	TotalSec, TrainSec, Upstream float64
	Incomplete                   int // rows with dependencies from the cache
}

// Summarise averages rows over the train stages of each dataset × model,
// in the order the pairs first appear.
func Summarise(rows []Timing) []TimingSummary {
	idx := map[[2]string]int{}
	var out []TimingSummary
	tests := map[int][]float64{}
	for _, r := range rows {
		k := [2]string{r.Dataset, r.Model}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, TimingSummary{Dataset: r.Dataset, Model: r.Model})
		}
		s := &out[i]
		s.Runs++
		s.TotalSec += r.TotalSec
		s.TrainSec += r.TrainSec
		s.Upstream += r.UpstreamSec
		tests[i] = append(tests[i], r.Test)
		if len(r.CachedUpstream) > 0 {
			s.Incomplete++
		}
	}
	for i := range out {
		s := &out[i]
		n := float64(s.Runs)
		s.TotalSec, s.TrainSec, s.Upstream = s.TotalSec/n, s.TrainSec/n, s.Upstream/n
		s.Test = table.Summarize(tests[i])
	}
	return out
}

// WriteTimingMarkdown renders the summary of run id, with the paper's
// GPU times by model (for pubmed, Table 6).
func WriteTimingMarkdown(w io.Writer, id int64, sums []TimingSummary, paperTimes map[string]float64) {
	fmt.Fprintf(w, "# Training time including precompute (run %d)\n\n", id)
	fmt.Fprintln(w, "Per training stage (train, gcn, gat, …): its duration plus the durations of every stage it depends on in the run "+
		"(load, normalise, precompute, sample), averaged over the seeds; from the run record, on this machine's CPU. "+
		"Paper: Table 6, an RTX 2080 Ti GPU.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| dataset | model | runs | test accuracy (%, mean ± sample std) | total (s) | train (s) | load + precompute + sample (s) | paper (s, GPU) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	incomplete := 0
	for _, s := range sums {
		p := "—"
		if v, ok := paperTimes[s.Model]; ok && s.Dataset == "pubmed" {
			p = fmt.Sprintf("%.2f", v)
		}
		mark := ""
		if s.Incomplete > 0 {
			mark = " *"
			incomplete += s.Incomplete
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %.3f%s | %.3f | %.3f | %s |\n",
			s.Dataset, s.Model, s.Runs, s.Test.Text(table.Decimals), s.TotalSec, mark, s.TrainSec, s.Upstream, p)
	}
	if incomplete > 0 {
		fmt.Fprintf(w, "\n\\* %d runs had dependencies that came from the cache, so their time is missing from the total: "+
			"time a run made with --no-cache.\n", incomplete)
	}
	writeTimingRatios(w, sums, paperTimes)
}

// writeTimingRatios prints, for every dataset with an SGC row, each other
// model's time as a multiple of SGC's, measured in the same run (same
// machine, same load) and, for Pubmed, the paper's (Table 6, GPU): the
// comparison Table 6 makes, which survives a change of hardware better
// than seconds do.
func writeTimingRatios(w io.Writer, sums []TimingSummary, paperTimes map[string]float64) {
	base := map[string]TimingSummary{}
	for _, s := range sums {
		if s.Model == "sgc" {
			base[s.Dataset] = s
		}
	}
	var lines []string
	for _, s := range sums {
		b, ok := base[s.Dataset]
		if !ok || s.Model == "sgc" {
			continue
		}
		ratio := func(x, y float64) string {
			if !(y > 0) {
				return "—"
			}
			return fmt.Sprintf("%.1f×", x/y)
		}
		p := "—"
		if s.Dataset == "pubmed" {
			if pm, ok := paperTimes[s.Model]; ok {
				p = ratio(pm, paperTimes["sgc"])
			}
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %.3f | %s | %s |", s.Dataset, s.Model, s.TotalSec, ratio(s.TotalSec, b.TotalSec), p))
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Time as a multiple of SGC's (Table 6's comparison)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Each model's mean total time (with load, precompute and sample, as Table 6 counts) over SGC's on the same "+
		"dataset, in this run: same machine, same load. The paper's ratio is of Table 6's GPU seconds. (SGC's training "+
		"alone takes milliseconds here, so a ratio of training times alone says little.)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| dataset | model | total (s) | × SGC | paper / SGC (GPU) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// WriteTiming writes timing.md, timing.csv, timing.json and
// timing.png (test accuracy against total time, one point per run) into
// out/timing/ and returns the Markdown.
func WriteTiming(out string, id int64, rows []Timing, paperTimes map[string]float64) ([]byte, []string, error) {
	dir := filepath.Join(out, "timing")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	sums := Summarise(rows)
	var md bytes.Buffer
	WriteTimingMarkdown(&md, id, sums, paperTimes)
	var cb bytes.Buffer
	cw := csv.NewWriter(&cb)
	cw.Write([]string{"address", "dataset", "model", "test_percent", "total_seconds", "train_seconds", "upstream_seconds", "cached_upstream"})
	for _, r := range rows {
		cw.Write([]string{r.Address, r.Dataset, r.Model, fmt.Sprintf("%.4f", r.Test), fmt.Sprintf("%.6f", r.TotalSec),
			fmt.Sprintf("%.6f", r.TrainSec), fmt.Sprintf("%.6f", r.UpstreamSec), strings.Join(r.CachedUpstream, ";")})
	}
	cw.Flush()
	js, err := json.MarshalIndent(map[string]any{"run": id, "runs": rows}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	png, err := timingPlot(id, rows)
	if err != nil {
		return nil, nil, err
	}
	var files []string
	for _, f := range []struct {
		name string
		b    []byte
	}{{"timing.md", md.Bytes()}, {"timing.csv", cb.Bytes()}, {"timing.json", append(js, '\n')}, {"timing.png", png}} {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.b, 0o644); err != nil {
			return nil, files, err
		}
		files = append(files, p)
	}
	return md.Bytes(), files, nil
}

// timingPlot draws test accuracy against total seconds (Figure 4),
// one series per dataset × model.
func timingPlot(id int64, rows []Timing) ([]byte, error) {
	p := plot.New()
	legend := plot.NewLegend()
	p.Title.Text = fmt.Sprintf("Test accuracy against time incl. precompute (run %d)", id)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = "seconds (load + precompute + sample + train)"
	p.Y.Label.Text = "test accuracy (%)"
	groups := map[string]plotter.XYs{}
	var names []string
	for _, r := range rows {
		if math.IsNaN(r.Test) {
			continue
		}
		name := r.Model
		if r.Dataset != "" {
			name = r.Dataset + " " + r.Model
		}
		if _, ok := groups[name]; !ok {
			names = append(names, name)
		}
		groups[name] = append(groups[name], plotter.XY{X: r.TotalSec, Y: r.Test})
	}
	for i, n := range names {
		s, err := plotter.NewScatter(groups[n])
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = plotutil.Color(i)
		s.GlyphStyle.Shape = plotutil.Shape(i)
		s.GlyphStyle.Radius = vg.Points(3)
		p.Add(s)
		legend.Add(n, s)
	}
	p.Add(plotter.NewGrid())
	p.BackgroundColor = color.White
	return viz.RenderLegendRight(p, legend, 7*vg.Inch, 4*vg.Inch, "png")
}
