// Package bench times one row of the paper's tables end to end in this
// process, without the cache, through the same stage functions a pipeline
// runs (dataset, normalize, split, precompute, sample, train; train
// evaluates the test rows): the wall and CPU time of each phase and the
// peak resident memory. Seeds run as the runner runs them: several at a
// time, the cores divided between them.
package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/internal/cputime"
	"github.com/hylaflow/hylaflow/openblas" // selects OpenBLAS for blas64 in builds with -tags openblas
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

// Row describes one dataset's pipeline and hyper-parameters.
type Row struct {
	Name      string
	Dataset   map[string]any // dataset stage parameters
	Normalize map[string]any
	Split     map[string]any // nil: keep the dataset's own split
	// SplitPerSeed: Split is an hgcn_split stage's parameters whose seed is
	// each run's seed, so split and precompute run once per seed (table1).
	SplitPerSeed bool
	Level        string
	K            int
	Inductive    bool
	Dim          int
	Features     int
	Scale        float64
	LREmbed      float64
	LRHead       float64
	Epochs       int
	Metric       string
}

// OldNames maps the dataset names bench used before it took the
// catalogue's (hylaflow datasets list) to those.
var OldNames = map[string]string{"disease": "disease_nc", "disease-synth": "synthetic_disease", "reddit-synth": "synthetic_sbm"}

// LookupRow returns the row of a dataset name (a catalogue name) with HGCN
// datasets split by variant (code or disjoint), one split per seed.
func LookupRow(name, variant string) (Row, error) {
	row := Row{Name: name, Normalize: map[string]any{"adjacency": "sym_self_loops", "features": "none"}, Metric: "accuracy"}
	hp := func(src, setting, ds string) error {
		h, err := paper.LookupHyper(src, setting, ds)
		if err != nil {
			return err
		}
		row.Dim, row.Features, row.K, row.Scale, row.LREmbed, row.LRHead, row.Epochs = h.Dim, h.Features, h.K, h.Scale, h.LREmbed, h.LRHead, h.Epochs
		return nil
	}
	switch name {
	case "cora", "citeseer", "pubmed":
		row.Dataset = map[string]any{"source": "planetoid", "name": name}
		row.Level = "features"
		return row, hp("json16d", "node", name)
	case "airport":
		row.Dataset = map[string]any{"source": "hgcn", "name": "airport", "identity_features": true}
		row.Split, row.SplitPerSeed = map[string]any{"variant": variant}, true
		row.Level = "nodes"
		return row, hp("json16d", "node", name)
	case "disease_nc":
		// table1.hcl: identity features (the feature file is not shared),
		// embedded at feature level.
		row.Dataset = map[string]any{"source": "hgcn", "name": "disease_nc", "identity_features": true}
		row.Split, row.SplitPerSeed = map[string]any{"variant": variant}, true
		row.Level = "features"
		return row, hp("json16d", "node", "disease")
	case "synthetic_disease":
		row.Dataset = map[string]any{"source": "synthetic", "name": "disease", "seed": 7}
		row.Split = map[string]any{"rule": "hgcn", "seed": 0}
		row.Level = "features"
		if err := hp("json16d", "node", "disease"); err != nil {
			return row, err
		}
		row.LRHead = 0.01 // as pipelines/quickstart.hcl
		return row, nil
	case "synthetic_sbm":
		row.Dataset = map[string]any{"source": "synthetic", "name": "sbm", "seed": 1}
		row.Normalize["features"] = "standardize"
		row.Level, row.Inductive, row.Metric = "features", true, "micro_f1"
		return row, hp("appendix", "node", "reddit")
	}
	return row, fmt.Errorf("unknown dataset %q (want %s)", name, strings.Join(Datasets, ", "))
}

// Datasets are the rows bench knows, in the order of its help.
var Datasets = []string{"cora", "citeseer", "pubmed", "airport", "disease_nc", "synthetic_disease", "synthetic_sbm"}

// Table1Datasets are the rows of the paper's Table 1 (left).
var Table1Datasets = []string{"disease_nc", "airport", "pubmed", "citeseer", "cora"}

// Phases are the wall times of one dataset's data path, and the
// process CPU time (user+system) each phase took.
type Phases struct {
	Load          float64 `json:"load_s"`
	Normalize     float64 `json:"normalize_s"`
	Split         float64 `json:"split_s"`
	Precompute    float64 `json:"precompute_s"`
	LoadCPU       float64 `json:"load_cpu_s"`
	NormalizeCPU  float64 `json:"normalize_cpu_s"`
	SplitCPU      float64 `json:"split_cpu_s"`
	PrecomputeCPU float64 `json:"precompute_cpu_s"`
}

// Result is one (dataset, model) row.
type Result struct {
	Dataset   string    `json:"dataset"`
	Model     string    `json:"model"`
	Level     string    `json:"level"`
	Seeds     int       `json:"seeds"`
	Epochs    int       `json:"epochs"`
	Features  int       `json:"features"`
	K         int       `json:"k"`
	Workers   int       `json:"workers"`
	Data      Phases    `json:"data"`
	Sample    float64   `json:"sample_s"`         // all seeds, wall
	Train     float64   `json:"train_s"`          // all seeds, wall (training + evaluation)
	TrainSeed float64   `json:"train_per_seed_s"` // mean single-seed time
	Total     float64   `json:"total_s"`          // data path (unless shared) + sample + train
	CPU       float64   `json:"cpu_s"`            // process CPU time (user+system) of the same work
	PeakRSS   int64     `json:"peak_rss_bytes"`
	Metric    string    `json:"metric"`
	Mean      float64   `json:"test_mean"`
	Std       float64   `json:"test_std"`
	Tests     []float64 `json:"test"`
	Shared    bool      `json:"data_shared,omitempty"` // the data path was timed with an earlier row
	// SplitPerSeed: an HGCN split (variant Split) per seed, timed with the
	// seeds in data.split_s and data.precompute_s (never shared).
	SplitPerSeed bool   `json:"split_per_seed,omitempty"`
	Split        string `json:"split,omitempty"`
}

type nopProgress struct{}

func (nopProgress) Report(int, int, string) {}

// env runs stages in process.
type env struct {
	reg     *registry.Registry
	root    string
	workers int
	verbose io.Writer
}

func (e *env) run(ctx context.Context, typ string, params map[string]any, inputs map[string][]artifact.Artifact, workers int) (map[string]artifact.Artifact, error) {
	st, ok := e.reg.Lookup(typ)
	if !ok {
		return nil, fmt.Errorf("no stage type %q", typ)
	}
	vals, err := st.Complete(params)
	if err != nil {
		return nil, err
	}
	labels := map[string][]string{}
	for k, v := range inputs {
		for i := range v {
			labels[k] = append(labels[k], fmt.Sprintf("%s[%d]", k, i))
		}
	}
	logf := func(string, ...any) {}
	if e.verbose != nil {
		logf = func(format string, args ...any) { fmt.Fprintf(e.verbose, typ+": "+format+"\n", args...) }
	}
	// The runner's streams (common random numbers): the same seed parameter
	// draws what the pipeline's stage of this type draws.
	stageSeed := registry.SeedFor(registry.SeedParam(vals), typ)
	job := &registry.Job{Address: "bench." + typ, Key: "bench", Params: vals, Inputs: inputs, InputLabels: labels,
		Seed: stageSeed, RNG: registry.NewRNG(stageSeed), Progress: nopProgress{}, Logf: logf, Workers: max(workers, 1)}
	out, err := st.Run(ctx, job)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", typ, err)
	}
	return out, nil
}

// rowData is a row's data after the shared part of its data path: the
// precomputed features, or (SplitPerSeed) the graphs each seed splits and
// precomputes.
type rowData struct {
	features   artifact.Artifact // precompute's output (nil when SplitPerSeed)
	raw, graph artifact.Artifact // the dataset's and the normalised graph (SplitPerSeed)
}

// data runs dataset → normalize → [split] → precompute; with SplitPerSeed
// only dataset → normalize (seed splits and precomputes per seed).
func (e *env) data(ctx context.Context, row Row) (rowData, Phases, error) {
	var ph Phases
	params := map[string]any{}
	for k, v := range row.Dataset {
		params[k] = v
	}
	if e.root != "" && params["source"] != "synthetic" {
		params["root"] = e.root
	}
	t, c := time.Now(), cputime.Process().Seconds()
	out, err := e.run(ctx, "dataset", params, nil, e.workers)
	if err != nil {
		return rowData{}, ph, err
	}
	g := out["graph"]
	ph.Load, ph.LoadCPU = time.Since(t).Seconds(), cputime.Process().Seconds()-c
	t, c = time.Now(), cputime.Process().Seconds()
	if out, err = e.run(ctx, "normalize", row.Normalize, map[string][]artifact.Artifact{"graph": {g}}, e.workers); err != nil {
		return rowData{}, ph, err
	}
	ng := out["graph"]
	ph.Normalize, ph.NormalizeCPU = time.Since(t).Seconds(), cputime.Process().Seconds()-c
	if row.SplitPerSeed {
		return rowData{raw: g, graph: ng}, ph, nil
	}
	in := map[string][]artifact.Artifact{"graph": {ng}}
	if row.Split != nil {
		t, c = time.Now(), cputime.Process().Seconds()
		if out, err = e.run(ctx, "split", row.Split, map[string][]artifact.Artifact{"graph": {g}}, e.workers); err != nil {
			return rowData{}, ph, err
		}
		in["split"] = []artifact.Artifact{out["split"]}
		ph.Split, ph.SplitCPU = time.Since(t).Seconds(), cputime.Process().Seconds()-c
	}
	t, c = time.Now(), cputime.Process().Seconds()
	out, err = e.run(ctx, "precompute", map[string]any{"k": row.K, "level": row.Level, "inductive": row.Inductive}, in, e.workers)
	if err != nil {
		return rowData{}, ph, err
	}
	ph.Precompute, ph.PrecomputeCPU = time.Since(t).Seconds(), cputime.Process().Seconds()-c
	if e.verbose != nil {
		fmt.Fprintf(e.verbose, "bench: %s data path, wall / CPU s: load %.2f / %.2f, normalize %.2f / %.2f, split %.2f / %.2f, precompute %.2f / %.2f\n",
			row.Name, ph.Load, ph.LoadCPU, ph.Normalize, ph.NormalizeCPU, ph.Split, ph.SplitCPU, ph.Precompute, ph.PrecomputeCPU)
	}
	return rowData{features: out["features"]}, ph, nil
}

// seeds runs sample (unless sgc) and train for seeds 0..n-1: up to
// e.workers seeds at a time, the workers divided between them.
func (e *env) seeds(ctx context.Context, row Row, data rowData, model string, n int, res *Result) error {
	conc := max(min(e.workers, n), 1)
	per := max(e.workers/conc, 1)
	res.Workers = per
	tests := make([]float64, n)
	dataT := make([]seedData, n)
	sampleT := make([]float64, n)
	trainT := make([]float64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				tests[s], dataT[s], sampleT[s], trainT[s], errs[s] = e.seed(ctx, row, data, model, s, per)
			}
		}()
	}
	for s := 0; s < n; s++ {
		next <- s
	}
	close(next)
	wg.Wait()
	wall := time.Since(start).Seconds()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	var sumSp, sumP, sumS, sumT float64
	for s := range tests {
		sumSp += dataT[s].split
		sumP += dataT[s].precompute
		sumS += sampleT[s]
		sumT += trainT[s]
	}
	// Wall times of the phases: split the loop's wall time in proportion
	// to the summed per-seed times.
	if all := sumSp + sumP + sumS + sumT; all > 0 {
		if row.SplitPerSeed {
			res.Data.Split = wall * sumSp / all
			res.Data.Precompute = wall * sumP / all
		}
		res.Sample = wall * sumS / all
		res.Train = wall * sumT / all
	}
	res.TrainSeed = sumT / float64(n)
	res.Tests = tests
	sp := table.Summarize(tests) // the sample std of every table (0 for one seed)
	res.Mean, res.Std = sp.Mean, sp.StdOr0()
	return nil
}

// seedData is the part of a row's data path one seed ran
// (SplitPerSeed): wall seconds of its split and precompute (their CPU time
// is in the row's, as seeds run at once).
type seedData struct {
	split, precompute float64
}

func (e *env) seed(ctx context.Context, row Row, data rowData, model string, seed, workers int) (test float64, dataS seedData, sampleS, trainS float64, err error) {
	feats := data.features
	if row.SplitPerSeed {
		// table1.hcl's hgcn_split and precompute of this seed.
		params := map[string]any{"seed": seed}
		for k, v := range row.Split {
			params[k] = v
		}
		t := time.Now()
		out, err := e.run(ctx, "hgcn_split", params, map[string][]artifact.Artifact{"graph": {data.raw}}, workers)
		if err != nil {
			return 0, dataS, 0, 0, err
		}
		dataS.split = time.Since(t).Seconds()
		t = time.Now()
		in := map[string][]artifact.Artifact{"graph": {data.graph}, "split": {out["split"]}}
		if out, err = e.run(ctx, "precompute", map[string]any{"k": row.K, "level": row.Level, "inductive": row.Inductive}, in, workers); err != nil {
			return 0, dataS, 0, 0, err
		}
		feats = out["features"]
		dataS.precompute = time.Since(t).Seconds()
	}
	inputs := map[string][]artifact.Artifact{"features": {feats}}
	if model != "sgc" {
		t := time.Now()
		out, err := e.run(ctx, "sample", map[string]any{"kind": model, "dim": row.Dim, "features": row.Features,
			"scale": row.Scale, "seed": seed}, nil, workers)
		if err != nil {
			return 0, dataS, 0, 0, err
		}
		inputs["samples"] = []artifact.Artifact{out["samples"]}
		sampleS = time.Since(t).Seconds()
	}
	params := map[string]any{"model": model, "level": row.Level, "lr_embedding": row.LREmbed, "lr_classifier": row.LRHead,
		"epochs": row.Epochs, "metric": row.Metric, "seed": seed}
	if row.Level == "nodes" {
		params["k"] = row.K
	}
	t := time.Now()
	out, err := e.run(ctx, "train", params, inputs, workers)
	if err != nil {
		return 0, dataS, 0, 0, err
	}
	trainS = time.Since(t).Seconds()
	var m struct {
		Test float64 `json:"test"`
	}
	metrics, err := bundle.From(out["metrics"])
	if err == nil {
		err = metrics.JSON(schema.MemberMetrics, &m)
	}
	if err != nil {
		return 0, dataS, 0, 0, err
	}
	return m.Test, dataS, sampleS, trainS, nil
}

// PeakRSS returns VmHWM in bytes (0 if unavailable).
func PeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// resetPeak returns memory to the OS and resets VmHWM (Linux ≥ 4.0;
// silently skipped elsewhere), so the next row's peak is its own.
func resetPeak() {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// testText is the row's test metric in percent as every table shows it:
// mean ± sample std, "n = 1" for one seed.
func (r *Result) testText() string {
	pct := make([]float64, len(r.Tests))
	for i, v := range r.Tests {
		pct[i] = 100 * v
	}
	return table.Summarize(pct).Text(table.Decimals)
}

// Print writes results as a table (phase times, CPU time, peak memory,
// test metric), notes on the rows' splits and hyper-parameters, and a line
// with the total wall time, the process's peak memory, the kernels and the
// BLAS in use.
func Print(w io.Writer, results []Result, wall float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tmodel\tseeds\tload s\tnormalize s\tsplit s\tprecompute s\tsample s\ttrain s\tper seed s\ttotal s\tCPU s\tpeak RSS MiB\ttest %\t")
	for _, r := range results {
		data := fmt.Sprintf("%.3f\t%.3f\t%.3f\t%.3f", r.Data.Load, r.Data.Normalize, r.Data.Split, r.Data.Precompute)
		switch {
		case r.Shared && r.SplitPerSeed:
			data = fmt.Sprintf("(shared)\t\t%.3f\t%.3f", r.Data.Split, r.Data.Precompute)
		case r.Shared:
			data = "(shared)\t\t\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%.0f\t%s\t\n", r.Dataset, r.Model, r.Seeds, data,
			r.Sample, r.Train, r.TrainSeed, r.Total, r.CPU, float64(r.PeakRSS)/(1<<20), r.testText())
	}
	tw.Flush()
	var perSeed []string
	other := false
	for _, r := range results {
		if r.SplitPerSeed && !slices.Contains(perSeed, r.Dataset) {
			perSeed = append(perSeed, r.Dataset)
		}
		other = other || r.Model != "hyla"
	}
	if len(perSeed) > 0 {
		fmt.Fprintf(w, "%s: HGCN split (%s) drawn with each seed, as table1.hcl; split and precompute times are the row's own\n",
			strings.Join(perSeed, ", "), results[0].Split)
	}
	if other {
		fmt.Fprintln(w, "rff and sgc rows use HyLa-SGC's hyper-parameters (timing); table1.hcl's RFF-SGC and SGC cells use their own")
	}
	fmt.Fprintf(w, "wall %.2f s for everything above; peak RSS %.0f MiB; kernels: %s; BLAS %s\n", wall, float64(PeakRSS())/(1<<20), hyla.KernelPath(), openblas.Name())
}

// Cell is one dataset row timed with one or more models; the models share
// the row's data path (loaded, and with a fixed split precomputed, once),
// as a pipeline's cache shares it.
type Cell struct {
	Row    Row
	Models []string // hyla, rff or sgc
}

// Models are the models bench times.
var Models = []string{"hyla", "rff", "sgc"}

// Select returns the cells to time: every Table 1 dataset with every model
// when table1 is set, else dataset (a catalogue name, or a name of
// OldNames, then also returned as renamed) with model; each row's HGCN
// split is variant (code or disjoint) and, when epochs > 0, its epochs
// are epochs. An unknown dataset, model or variant is an error.
func Select(dataset, model string, table1 bool, variant string, epochs int) (cells []Cell, renamed string, err error) {
	if variant != "code" && variant != "disjoint" {
		return nil, "", fmt.Errorf("--split %q, want code or disjoint", variant)
	}
	if !slices.Contains(Models, model) {
		return nil, "", fmt.Errorf("--model %q, want hyla, rff or sgc", model)
	}
	names, models := []string{dataset}, []string{model}
	if table1 {
		names, models = Table1Datasets, Models
	} else if newName, ok := OldNames[dataset]; ok {
		names[0], renamed = newName, newName
	}
	for _, name := range names {
		r, err := LookupRow(name, variant)
		if err != nil {
			return nil, "", err
		}
		if epochs > 0 {
			r.Epochs = epochs
		}
		cells = append(cells, Cell{Row: r, Models: models})
	}
	return cells, renamed, nil
}

// Options says how Run runs the cells.
type Options struct {
	// Registry holds the stage types the rows run (dataset, normalize,
	// split, hgcn_split, precompute, sample, train).
	Registry *registry.Registry
	// Root is the data root of the datasets' files ("": the dataset
	// stage's default lookup); synthetic rows ignore it.
	Root string
	// Workers is the number of cores to use (at least 1).
	Workers int
	// Seeds is the number of seeds per model (0..Seeds-1, at least 1).
	Seeds int
	// Split names the HGCN split variant of SplitPerSeed rows in results.
	Split string
	// Log receives the stages' log lines and each row's data path times
	// when not nil.
	Log io.Writer
}

// Run times every cell's data path, then each of its models over the
// seeds, and returns a result per (row, model) and the wall time of the
// whole. The peak memory is reset before each row where the kernel allows
// it. An error names the row (and model) that failed.
func Run(ctx context.Context, cells []Cell, opts Options) ([]Result, float64, error) {
	e := &env{reg: opts.Registry, root: opts.Root, workers: opts.Workers, verbose: opts.Log}
	start := time.Now()
	var results []Result
	for _, c := range cells {
		row := c.Row
		resetPeak()
		cpu0 := cputime.Process().Seconds()
		data, ph, err := e.data(ctx, row)
		if err != nil {
			return results, time.Since(start).Seconds(), fmt.Errorf("%s: %w", row.Name, err)
		}
		for j, m := range c.Models {
			res := Result{Dataset: row.Name, Model: m, Level: row.Level, Seeds: opts.Seeds, Epochs: row.Epochs, K: row.K,
				Metric: row.Metric, Data: ph, Shared: j > 0, SplitPerSeed: row.SplitPerSeed}
			if row.SplitPerSeed {
				res.Split = opts.Split
			}
			if m != "sgc" {
				res.Features = row.Features
			}
			if err := e.seeds(ctx, row, data, m, opts.Seeds, &res); err != nil {
				return results, time.Since(start).Seconds(), fmt.Errorf("%s %s: %w", row.Name, m, err)
			}
			res.Total = res.Sample + res.Train
			switch {
			case row.SplitPerSeed: // split and precompute ran with the seeds
				res.Total += res.Data.Split + res.Data.Precompute
				if !res.Shared {
					res.Total += ph.Load + ph.Normalize
				}
			case !res.Shared:
				res.Total += ph.Load + ph.Normalize + ph.Split + ph.Precompute
			}
			res.PeakRSS = PeakRSS()
			now := cputime.Process().Seconds()
			res.CPU, cpu0 = now-cpu0, now
			results = append(results, res)
		}
	}
	return results, time.Since(start).Seconds(), nil
}

// WriteJSON writes results as one JSON object: the rows, the wall time,
// the process's peak memory, GOMAXPROCS, the workers used, the BLAS and
// the kernels in use.
func WriteJSON(w io.Writer, results []Result, wall float64, workers int) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"rows": results, "wall_s": wall, "peak_rss_bytes": PeakRSS(),
		"gomaxprocs": runtime.GOMAXPROCS(0), "workers": workers, "blas": openblas.Name(), "kernels": hyla.KernelPath()})
}
