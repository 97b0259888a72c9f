package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/viz"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

func init() {
	registerCommand(&command{
		Name:    "report",
		Summary: "write a run's tables and figures (md/csv/json/png/svg) from the cache into report/",
		Run:     withExitCode(reportCmdRun),
	})
}

const reportCmdUsage = `Usage: hylaflow report [RUN|latest] [--out DIR] [--timing] [--cache DIR]

Writes every table and figure of run RUN (a number from hylaflow runs;
default: latest, the run that finished last, so that a run another process
has started since, still going, is not taken; a run in progress only if
none has finished) from the cache into DIR/ADDRESS/, ADDRESS being the
stage instance (e.g. evaluate.table1, kernel.figure1): the evaluate
stages' tables (table.md, table.csv, table.json, chart.png) and the
figure stages' files (kernel, visualize, panels: PNG, SVG, CSV and their
JSON summaries). The Markdown tables are printed, then a listing of every
file written. Nothing is recomputed and nothing in the cache changes; an
output whose stage failed, or whose payload is gone (gc, clear), is
reported as missing.

  --out DIR    where to write the files (default: report/ beside the
               project's .hylaflow, i.e. at the repository root in a clone,
               even when --cache or $HYLAFLOW_CACHE moves the cache)
  --timing     also the timing view (Table 6 / Figure 4): for every train
               stage of the run, its duration plus the durations of all the
               stages it depends on in that run (load, normalise,
               precompute, sample), with its test accuracy; written to
               DIR/timing/ (timing.md, .csv, .json, .png). Times come from
               the run record only, so time a run made with --no-cache;
               dependencies taken from the cache are flagged.
  --cache DIR  cache directory (default $HYLAFLOW_CACHE, else the nearest
               .hylaflow here or above: see hylaflow cache --help)

Exit status: 0 ok, 1 a table is missing or unreadable, 2 usage error.
`

func reportCmdRun(args []string, stdout, stderr io.Writer) int {
	fs := cliFlagSet("report")
	dir := fs.String("cache", "", "cache directory")
	out := fs.String("out", "", "output directory")
	timing := fs.Bool("timing", false, "also the timing view")
	pos, err := cliParse(fs, args)
	if err != nil {
		return cliFlagError(err, stdout, stderr, "report", reportCmdUsage)
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "hylaflow report: want at most one run, got %s\n\n%s", strings.Join(pos, " "), reportCmdUsage)
		return exitUsage
	}
	which := "latest"
	if len(pos) == 1 {
		which = pos[0]
	}
	if *out == "" {
		set := false
		fs.Visit(func(f *flag.Flag) { set = set || f.Name == "out" })
		if set {
			fmt.Fprintln(stderr, "hylaflow report: --out must not be empty")
			return exitUsage
		}
		*out = reportDefaultOut(".")
	}
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow report: %v\n", err)
		return exitStageFailed
	}
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow report: %v\n", err)
		return exitStageFailed
	}
	defer c.Close()
	id, note, err := reportCmdRunID(c, which)
	if note != "" {
		fmt.Fprintf(stderr, "hylaflow report: %s\n", note)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow report: %v\n", err)
		if errors.Is(err, errReportUsage) {
			return exitUsage
		}
		return exitCodeOf(err) // an unknown run is exit 2
	}
	tables, err := reportCollect(c, id)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow report: run %d: %v\n", id, err)
		return exitCodeOf(err) // no such run: exit 2
	}
	code := exitOK
	if len(tables) == 0 && !*timing {
		fmt.Fprintf(stderr, "hylaflow report: run %d has no table or figure outputs "+
			"(evaluate stages make tables; kernel, visualize and panels stages make figures)\n", id)
		return exitStageFailed
	}
	var written []string
	perStage := map[string]int{}
	for _, t := range tables {
		perStage[t.address]++
	}
	for _, t := range tables {
		if t.err != nil {
			fmt.Fprintf(stderr, "hylaflow report: run %d: %s: %v\n", id, t.address, t.err)
			code = exitStageFailed
			continue
		}
		sub := reportDirName(t.address)
		if perStage[t.address] > 1 {
			sub += "-" + reportDirName(t.output)
		}
		files, err := reportWrite(filepath.Join(*out, sub), t)
		written = append(written, files...)
		if err != nil {
			fmt.Fprintf(stderr, "hylaflow report: %v\n", err)
			code = exitStageFailed
			continue
		}
		if t.kind != schema.KindTable {
			continue
		}
		if md, err := t.table.MemberFile("table.md"); err == nil {
			fmt.Fprintf(stdout, "<!-- %s (run %d) -->\n", t.address, id)
			stdout.Write(md)
			if len(md) > 0 && md[len(md)-1] != '\n' {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintln(stdout)
		}
	}
	if *timing {
		rows, err := reportTimings(c, id)
		if err != nil {
			fmt.Fprintf(stderr, "hylaflow report: run %d: timing: %v\n", id, err)
			return exitStageFailed
		}
		if len(rows) == 0 {
			fmt.Fprintf(stderr, "hylaflow report: run %d has no train stage to time\n", id)
			return exitStageFailed
		}
		md, files, err := reportWriteTiming(*out, id, rows, paper.Timing)
		if err != nil {
			fmt.Fprintf(stderr, "hylaflow report: timing: %v\n", err)
			return exitStageFailed
		}
		fmt.Fprintf(stdout, "<!-- timing (run %d) -->\n", id)
		stdout.Write(md)
		fmt.Fprintln(stdout)
		written = append(written, files...)
	}
	reportListing(stdout, *out, id, written)
	return code
}

// reportListing prints what report wrote: the files under out, one a line.
func reportListing(w io.Writer, out string, id int64, files []string) {
	if len(files) == 0 {
		return
	}
	noun := "files"
	if len(files) == 1 {
		noun = "file"
	}
	fmt.Fprintf(w, "wrote %d %s of run %d into %s:\n", len(files), noun, id, cliShowPath(out))
	for _, f := range files {
		if rel, err := filepath.Rel(out, f); err == nil {
			f = rel
		}
		fmt.Fprintf(w, "  %s\n", filepath.ToSlash(f))
	}
}

var errReportUsage = errors.New("usage")

// reportDefaultOut is where report writes without --out: report/ beside
// the project's cache, i.e. in the directory where cache.Locate finds or
// would create .hylaflow when neither --cache nor $HYLAFLOW_CACHE is
// given (the repository root in a clone), whether or not the cache was
// moved elsewhere; start is as for cache.Locate.
func reportDefaultOut(start string) string {
	loc, err := cache.Locate("", "", start)
	if err != nil {
		return "report" // a .hylaflow file in the way: the working directory
	}
	return filepath.Join(filepath.Dir(loc.Dir), "report")
}

// reportCmdRunID resolves RUN or "latest" (also "last") to a run id.
// latest is the run that finished last: with several processes on one
// cache, a run started later may still be going (its tables incomplete),
// so it is taken only when no run has finished; note says so.
func reportCmdRunID(c *cache.Cache, which string) (id int64, note string, err error) {
	if which == "latest" || which == "last" {
		runs, err := c.Runs(reportLatestWindow)
		if err != nil {
			return 0, "", err
		}
		if len(runs) == 0 {
			return 0, "", fmt.Errorf("the cache %s has no runs yet", c.Dir())
		}
		best := -1
		for i, r := range runs {
			if r.Status == "running" {
				continue
			}
			if best < 0 || r.Start.Add(r.Duration).After(runs[best].Start.Add(runs[best].Duration)) {
				best = i
			}
		}
		switch {
		case best < 0:
			return runs[0].ID, fmt.Sprintf("run %d is still running: its tables so far", runs[0].ID), nil
		case runs[best].ID != runs[0].ID && runs[0].Status == "running":
			return runs[best].ID, fmt.Sprintf("latest: run %d, the last to finish (run %d is still running)", runs[best].ID, runs[0].ID), nil
		}
		return runs[best].ID, "", nil
	}
	id, err = strconv.ParseInt(which, 10, 64)
	if err != nil || id < 1 {
		return 0, "", fmt.Errorf("run %q: want a run number or latest: %w", which, errReportUsage)
	}
	return id, "", nil
}

// reportLatestWindow is how many of the most recent runs "latest" looks
// through for the one that finished last.
const reportLatestWindow = 100

// reportTable is one table or figure output of a stage of a run, loaded.
type reportTable struct {
	address string // stage instance
	output  string // output name
	kind    artifact.Kind
	table   artifact.Artifact
	err     error
}

// reportKinds are the artifact kinds report writes out.
var reportKinds = []artifact.Kind{schema.KindTable, schema.KindFigure}

// reportCollect loads every table and figure output of run id, ordered by
// stage address: the run records stages in completion order, which
// depends on -j and timing, and a report must not. A stage whose type
// makes tables or figures but that did not finish in the run, or whose
// payload is gone (gc, clear), is an entry with err set.
func reportCollect(c *cache.Cache, id int64) ([]reportTable, error) {
	return reportCollectKinds(c, id, reportKinds...)
}

// reportCollectKinds is reportCollect for the given kinds only.
func reportCollectKinds(c *cache.Cache, id int64, kinds ...artifact.Kind) ([]reportTable, error) {
	run, err := c.Run(id)
	if err != nil {
		return nil, err
	}
	var out []reportTable
	for _, s := range run.Stages {
		want := reportOutputs(c, s, kinds)
		if len(want) == 0 {
			continue
		}
		if s.Status != "ran" && s.Status != "cached" {
			out = append(out, reportTable{address: s.Address, output: want[0].Name, kind: want[0].Kind,
				err: fmt.Errorf("the stage did not finish in that run (%s)", s.Status)})
			continue
		}
		refs, ok, err := c.Lookup(s.Key)
		if err != nil {
			return nil, err
		}
		for _, w := range want {
			t := reportTable{address: s.Address, output: w.Name, kind: w.Kind}
			i := slices.IndexFunc(refs, func(r cache.OutputRef) bool { return r.Name == w.Name })
			switch {
			case !ok || i < 0:
				t.err = fmt.Errorf("key %.12s… is no longer in the cache (rerun the pipeline)", s.Key)
			default:
				t.table, t.err = c.Load(refs[i])
			}
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].address != out[j].address {
			return out[i].address < out[j].address
		}
		return out[i].output < out[j].output
	})
	return out, nil
}

// reportOutputs returns the outputs of a run's stage whose kind is one of
// kinds: those its stage type declares (by its key record and the stage
// registry), else those stored under its key; stages of unknown type
// whose address says evaluate are taken to make a table.
func reportOutputs(c *cache.Cache, s cache.StageRecord, kinds []artifact.Kind) []registry.Output {
	var out []registry.Output
	if s.Key != "" {
		if rec, ok, err := c.Record(s.Key); err == nil && ok {
			if t, ok := cliRegistry().Lookup(rec.StageType); ok {
				for _, o := range t.Outputs {
					if slices.Contains(kinds, o.Kind) {
						out = append(out, o)
					}
				}
				return out
			}
		}
		if refs, ok, err := c.Lookup(s.Key); err == nil && ok {
			for _, r := range refs {
				if slices.Contains(kinds, r.Kind) {
					out = append(out, registry.Output{Name: r.Name, Kind: r.Kind})
				}
			}
			return out
		}
	}
	if strings.HasPrefix(s.Address, "evaluate.") && slices.Contains(kinds, schema.KindTable) {
		out = append(out, registry.Output{Name: "table", Kind: schema.KindTable})
	}
	return out
}

var reportUnsafe = regexp.MustCompile(`[^A-Za-z0-9._=,-]+`)

// reportDirName turns a stage address into a directory name:
// evaluate.reddit["synthetic"] → evaluate.reddit-synthetic.
func reportDirName(address string) string {
	s := reportUnsafe.ReplaceAllString(address, "-")
	s = strings.Trim(s, "-.")
	if s == "" {
		s = "table"
	}
	return s
}

// reportWrite writes the files of t (Artifact.WriteFiles: file members
// as they are, JSON members as NAME.json) into dir and returns the written
// paths.
func reportWrite(dir string, t reportTable) ([]string, error) {
	files, err := t.table.WriteFiles(dir, artifact.FilesOptions{})
	if err != nil {
		return files, fmt.Errorf("%s: %w", t.address, err)
	}
	return files, nil
}

// reportTiming is one train stage of a run with the time charged to it:
// its own duration plus the durations, in the same run, of every stage it
// depends on (each counted once), i.e. load + precompute + sample + train.
type reportTiming struct {
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

// reportTimings computes the timing rows of every train stage of run id.
func reportTimings(c *cache.Cache, id int64) ([]reportTiming, error) {
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
	var out []reportTiming
	for _, s := range run.Stages {
		rec, err := record(s.Key)
		if err != nil {
			return nil, err
		}
		if rec == nil || rec.StageType != "train" {
			continue
		}
		row := reportTiming{Address: s.Address, TrainSec: s.Duration.Seconds()}
		if s.Status != "ran" {
			row.CachedUpstream = append(row.CachedUpstream, s.Address+" itself ("+s.Status+")")
		}
		// Walk the dependencies once each.
		seen := map[string]bool{}
		stack := reportInputKeys(rec)
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
				stack = append(stack, reportInputKeys(r)...)
			}
		}
		sort.Strings(row.CachedUpstream)
		row.TotalSec = row.TrainSec + row.UpstreamSec
		row.Test = math.NaN()
		if m, err := reportLoadMetrics(c, s.Key); err == nil {
			row.Dataset, row.Model = m.Dataset, m.Model
			row.Test = 100 * m.Test
		}
		out = append(out, row)
	}
	return out, nil
}

// reportInputKeys returns the producer keys of a record's inputs.
func reportInputKeys(rec *cache.KeyRecord) []string {
	var keys []string
	slots := make([]string, 0, len(rec.Inputs))
	for s := range rec.Inputs {
		slots = append(slots, s)
	}
	sort.Strings(slots)
	for _, s := range slots {
		for _, ref := range rec.Inputs[s] {
			k, _, _ := strings.Cut(ref, "/")
			keys = append(keys, k)
		}
	}
	return keys
}

type reportMetrics struct {
	Dataset string  `json:"dataset"`
	Model   string  `json:"model"`
	Test    float64 `json:"test"`
}

func reportLoadMetrics(c *cache.Cache, key string) (*reportMetrics, error) {
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
		var m reportMetrics
		if err := a.JSON(schema.MemberMetrics, &m); err != nil {
			return nil, err
		}
		return &m, nil
	}
	return nil, fmt.Errorf("key %.12s… has no metrics output", key)
}

// reportTimingSummary is the mean over the train stages of one dataset × model.
type reportTimingSummary struct {
	Dataset, Model               string
	Runs                         int
	Test, TestStd                float64
	TotalSec, TrainSec, Upstream float64
	Incomplete                   int // rows with dependencies from the cache
}

func reportSummarise(rows []reportTiming) []reportTimingSummary {
	idx := map[[2]string]int{}
	var out []reportTimingSummary
	tests := map[int][]float64{}
	for _, r := range rows {
		k := [2]string{r.Dataset, r.Model}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, reportTimingSummary{Dataset: r.Dataset, Model: r.Model})
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
		var sum, sq float64
		for _, v := range tests[i] {
			sum += v
		}
		s.Test = sum / n
		for _, v := range tests[i] {
			sq += (v - s.Test) * (v - s.Test)
		}
		s.TestStd = math.Sqrt(sq / n)
	}
	return out
}

// reportTimingMarkdown renders the summary (and the paper's GPU times).
func reportTimingMarkdown(w io.Writer, id int64, sums []reportTimingSummary, paperTimes map[string]float64) {
	fmt.Fprintf(w, "# Training time including precompute (run %d)\n\n", id)
	fmt.Fprintln(w, "Per train stage: its duration plus the durations of every stage it depends on in the run "+
		"(load, normalise, precompute, sample), averaged over the seeds; from the run record, on this machine's CPU. "+
		"Paper: Table 6, an RTX 2080 Ti GPU.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| dataset | model | runs | test accuracy (%) | total (s) | train (s) | load + precompute + sample (s) | paper (s, GPU) |")
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
		fmt.Fprintf(w, "| %s | %s | %d | %.1f ± %.1f | %.3f%s | %.3f | %.3f | %s |\n",
			s.Dataset, s.Model, s.Runs, s.Test, s.TestStd, s.TotalSec, mark, s.TrainSec, s.Upstream, p)
	}
	if incomplete > 0 {
		fmt.Fprintf(w, "\n\\* %d runs had dependencies that came from the cache, so their time is missing from the total: "+
			"time a run made with --no-cache.\n", incomplete)
	}
}

// reportWriteTiming writes timing.md, timing.csv, timing.json and
// timing.png (test accuracy against total time, one point per run) into
// out/timing/ and returns the Markdown.
func reportWriteTiming(out string, id int64, rows []reportTiming, paperTimes map[string]float64) ([]byte, []string, error) {
	dir := filepath.Join(out, "timing")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	sums := reportSummarise(rows)
	var md bytes.Buffer
	reportTimingMarkdown(&md, id, sums, paperTimes)
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
	png, err := reportTimingPlot(id, rows)
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

// reportTimingPlot draws test accuracy against total seconds (Figure 4),
// one series per dataset × model.
func reportTimingPlot(id int64, rows []reportTiming) ([]byte, error) {
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
