package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/stages"
)

// runRow times one row with one model.
func runRow(t *testing.T, name, model string, seeds, workers, epochs int, root string) Result {
	t.Helper()
	row, err := LookupRow(name, "code")
	if err != nil {
		t.Fatal(err)
	}
	if epochs > 0 {
		row.Epochs = epochs
	}
	res, wall, err := Run(context.Background(), []Cell{{Row: row, Models: []string{model}}},
		Options{Registry: stages.Default(), Root: root, Workers: workers, Seeds: seeds, Split: "code"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !(wall > 0) {
		t.Fatalf("%d results, wall %v", len(res), wall)
	}
	return res[0]
}

// TestRunSynthetic runs the quickstart's synthetic disease tree end to end
// (no data files needed) and checks the row's shape and values, and that
// the accuracies do not depend on the number of cores.
func TestRunSynthetic(t *testing.T) {
	r := runRow(t, "synthetic_disease", "hyla", 2, 2, 20, "")
	if r.Dataset != "synthetic_disease" || r.Model != "hyla" || r.Seeds != 2 || r.Epochs != 20 || r.Features != 500 || r.K != 5 ||
		r.Workers != 1 || r.Shared || r.SplitPerSeed {
		t.Errorf("row header %+v", r)
	}
	if len(r.Tests) != 2 {
		t.Fatalf("%d test values, want 2", len(r.Tests))
	}
	for _, v := range r.Tests {
		if !(v >= 0 && v <= 1) {
			t.Errorf("test accuracy %v, want in [0, 1]", v)
		}
	}
	if r.Data.Load <= 0 || r.Data.Precompute <= 0 || r.Train <= 0 || r.Total < r.Train {
		t.Errorf("phase times %+v train %v total %v", r.Data, r.Train, r.Total)
	}
	// The data path's CPU times are part of the row's.
	d := r.Data
	if d.LoadCPU < 0 || d.NormalizeCPU < 0 || d.SplitCPU < 0 || d.PrecomputeCPU < 0 ||
		d.LoadCPU+d.NormalizeCPU+d.SplitCPU+d.PrecomputeCPU > r.CPU+1e-6 {
		t.Errorf("phase CPU times %+v, row CPU %v", d, r.CPU)
	}
	if _, err := os.Stat("/proc/self/status"); err == nil && (r.PeakRSS < 1<<20 || PeakRSS() < r.PeakRSS) {
		t.Errorf("peak RSS row %d, process %d", r.PeakRSS, PeakRSS())
	}
	// The same seeds give the same accuracies on 4 cores.
	again := runRow(t, "synthetic_disease", "hyla", 2, 4, 20, "")
	for i, v := range again.Tests {
		if v != r.Tests[i] {
			t.Errorf("seed %d: test %v with 4 workers, %v with 2", i, v, r.Tests[i])
		}
	}

	// Print and WriteJSON show the row.
	var b bytes.Buffer
	Print(&b, []Result{r}, 1.5)
	if !strings.Contains(b.String(), "synthetic_disease") || !strings.Contains(b.String(), "wall 1.50 s for everything above") {
		t.Errorf("Print:\n%s", b.String())
	}
	b.Reset()
	if err := WriteJSON(&b, []Result{r}, 1.5, 2); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows    []Result `json:"rows"`
		Wall    float64  `json:"wall_s"`
		Workers int      `json:"workers"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Rows) != 1 || doc.Wall != 1.5 || doc.Workers != 2 ||
		doc.Rows[0].Mean != r.Mean {
		t.Errorf("WriteJSON: %v\n%s", err, b.String())
	}
}

// TestRunCora runs the Cora row on the real files with SGC (the paper
// reports 81.0; one seed here) and with HyLa-SGC (the official JSON values;
// seed 0 lands at 78.7, the official code at 79.3 ± 2.2).
func TestRunCora(t *testing.T) {
	testenv.Data(t, "planetoid")
	root := testenv.Data(t)
	r := runRow(t, "cora", "sgc", 1, 2, 0, root)
	if r.Level != "features" || r.K != 2 || r.Metric != "accuracy" {
		t.Errorf("row %+v", r)
	}
	if !(r.Mean > 0.75 && r.Mean < 0.85) {
		t.Errorf("Cora SGC test accuracy %v, want about 0.8", r.Mean)
	}
	r = runRow(t, "cora", "hyla", 1, 2, 0, root)
	if r.Features != 100 || r.Epochs != 100 || len(r.Tests) != 1 {
		t.Errorf("row %+v", r)
	}
	for i, v := range r.Tests {
		if !(v > 0.75 && v < 0.85) {
			t.Errorf("Cora HyLa-SGC seed %d: test accuracy %v, want 0.75..0.85", i, v)
		}
	}
}

func TestLookupRow(t *testing.T) {
	for _, tt := range []struct {
		name, level, metric string
		inductive           bool
	}{
		{"cora", "features", "accuracy", false},
		{"airport", "nodes", "accuracy", false},
		{"synthetic_sbm", "features", "micro_f1", true},
	} {
		row, err := LookupRow(tt.name, "code")
		if err != nil || row.Level != tt.level || row.Metric != tt.metric || row.Inductive != tt.inductive || row.Epochs <= 0 {
			t.Errorf("LookupRow(%q) = %+v, %v", tt.name, row, err)
		}
	}
	if _, err := LookupRow("nope", "code"); err == nil ||
		err.Error() != `unknown dataset "nope" (want cora, citeseer, pubmed, airport, disease_nc, synthetic_disease, synthetic_sbm)` {
		t.Errorf("unknown dataset: %v", err)
	}
}

// The HGCN rows run table1.hcl's workload: hgcn_split (variant --split)
// with each run's seed, so split and precompute run once per seed.
func TestHGCNSplitPerSeed(t *testing.T) {
	for _, tt := range []struct {
		name, split, level string
	}{
		{"airport", "code", "nodes"},
		{"disease_nc", "disjoint", "features"},
	} {
		row, err := LookupRow(tt.name, tt.split)
		if err != nil {
			t.Fatal(err)
		}
		if !row.SplitPerSeed || row.Split["variant"] != tt.split || row.Level != tt.level || row.Dataset["identity_features"] != true {
			t.Errorf("%s: row %+v", tt.name, row)
		}
	}
	// A synthetic row through the per-seed path: the seeds' times are
	// attributed to split and precompute.
	e := &env{reg: stages.Default(), workers: 2}
	row, err := LookupRow("synthetic_disease", "code")
	if err != nil {
		t.Fatal(err)
	}
	row.Split, row.SplitPerSeed, row.Epochs = map[string]any{"variant": "code", "p_val": 0.1, "p_test": 0.6}, true, 5
	data, _, err := e.data(context.Background(), row)
	if err != nil || data.features != nil || data.raw == nil || data.graph == nil {
		t.Fatalf("data path: %v %+v", err, data)
	}
	res := Result{}
	if err := e.seeds(context.Background(), row, data, "hyla", 2, &res); err != nil {
		t.Fatal(err)
	}
	if res.Data.Split <= 0 || res.Data.Precompute <= 0 || len(res.Tests) != 2 {
		t.Errorf("per-seed data times %+v, tests %v", res.Data, res.Tests)
	}
}

// Select: one dataset and model, an old name renamed, every Table 1 cell,
// and the errors the bench command reports as usage errors.
func TestSelect(t *testing.T) {
	for _, tt := range []struct {
		dataset, model string
		table1         bool
		split          string
		epochs         int
		rows, models   string
		renamed, err   string
	}{
		{dataset: "cora", model: "rff", split: "code", rows: "cora", models: "rff"},
		{dataset: "disease", model: "hyla", split: "disjoint", rows: "disease_nc", models: "hyla", renamed: "disease_nc"},
		{dataset: "x", model: "sgc", table1: true, split: "code", rows: "disease_nc airport pubmed citeseer cora", models: "hyla rff sgc"},
		{dataset: "cora", model: "hyla", split: "code", epochs: 7, rows: "cora", models: "hyla"},
		{dataset: "cora", model: "gcn", split: "code", err: `--model "gcn", want hyla, rff or sgc`},
		{dataset: "cora", model: "hyla", split: "random", err: `--split "random", want code or disjoint`},
		{dataset: "nosuch", model: "hyla", split: "code", err: `unknown dataset "nosuch"`},
	} {
		cells, renamed, err := Select(tt.dataset, tt.model, tt.table1, tt.split, tt.epochs)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Select(%q, %q): %v, want %q", tt.dataset, tt.model, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Select(%q, %q): %v", tt.dataset, tt.model, err)
		}
		var rows []string
		for _, c := range cells {
			rows = append(rows, c.Row.Name)
			if strings.Join(c.Models, " ") != tt.models {
				t.Errorf("%s: models %q, want %q", c.Row.Name, c.Models, tt.models)
			}
			if tt.epochs > 0 && c.Row.Epochs != tt.epochs {
				t.Errorf("%s: epochs %d, want %d", c.Row.Name, c.Row.Epochs, tt.epochs)
			}
		}
		if strings.Join(rows, " ") != tt.rows || renamed != tt.renamed {
			t.Errorf("Select(%q): rows %q, renamed %q; want %q, %q", tt.dataset, rows, renamed, tt.rows, tt.renamed)
		}
	}
}
