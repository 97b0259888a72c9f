package runs

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func ptr(v float64) *float64 { return &v }

// cell builds a table cell from its values, with the sample standard
// deviation the evaluate stage writes (package table).
func cell(dataset, model string, values ...float64) Cell {
	c := Cell{Dataset: dataset, Model: model, Runs: len(values), Values: values}
	if len(values) == 0 {
		return c
	}
	sp := table.Summarize(values)
	c.Mean, c.Std = &sp.Mean, sp.Std
	return c
}

func TestCompareCell(t *testing.T) {
	noValues := cell("d", "m", 70, 72)
	noValues.Values = nil // the SD is the table's std then
	for _, tc := range []struct {
		name    string
		a, b    *Cell
		verdict string
		delta   *float64
		bound   *float64
	}{
		// sA = sB = 1, n = 3: 2·SE = 2·sqrt(2/3) = 1.633.
		{"beyond", ptrCell(cell("d", "m", 70, 71, 72)), ptrCell(cell("d", "m", 72, 73, 74)), Beyond, ptr(2), ptr(2 * math.Sqrt(2.0/3))},
		{"within", ptrCell(cell("d", "m", 70, 71, 72)), ptrCell(cell("d", "m", 71, 72, 73)), Within, ptr(1), ptr(2 * math.Sqrt(2.0/3))},
		{"no spread, no difference", ptrCell(cell("d", "m", 5, 5)), ptrCell(cell("d", "m", 5, 5)), Within, ptr(0), ptr(0)},
		{"no spread, a difference", ptrCell(cell("d", "m", 5, 5)), ptrCell(cell("d", "m", 6, 6)), Beyond, ptr(1), ptr(0)},
		// values 70, 72: sample SD sqrt(2), from the table's std.
		{"std without the values", &noValues, ptrCell(cell("d", "m", 70, 72)), Within, ptr(0), ptr(2 * math.Sqrt(2.0/2+2.0/2))},
		{"one run", ptrCell(cell("d", "m", 70)), ptrCell(cell("d", "m", 71, 72)), TooFew, ptr(1.5), nil},
		{"no runs", ptrCell(cell("d", "m")), ptrCell(cell("d", "m", 71, 72)), NoValues, nil, nil},
		{"only A", ptrCell(cell("d", "m", 70)), nil, OnlyA, nil, nil},
		{"only B", nil, ptrCell(cell("d", "m", 70)), OnlyB, nil, nil},
	} {
		got := compareCell(cellKey{"d", "m"}, tc.a, tc.b)
		if got.Verdict != tc.verdict || !near(got.Delta, tc.delta) || !near(got.Bound, tc.bound) {
			t.Errorf("%s: verdict %q Δ %v bound %v; want %q %v %v", tc.name, got.Verdict, deref(got.Delta), deref(got.Bound),
				tc.verdict, deref(tc.delta), deref(tc.bound))
		}
	}
}

func ptrCell(c Cell) *Cell { return &c }

func near(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) < 1e-12
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestCompareProvenance(t *testing.T) {
	a := &Provenance{Build: Build{Version: "(devel)"}, Go: "go1.99", OS: "linux", Arch: "amd64", Kernel: "avx512", BLAS: "gonum",
		Host: "h", Cores: 2, Pipeline: File{"p.hcl", "aa"}, Vars: map[string]string{"epochs": "50"}}
	b := *a
	b.Kernel, b.Pipeline.SHA256, b.Vars = "generic", "bb", map[string]string{"seeds": "[0]"}
	d := compareProvenance(a, &b)
	want := []FieldChange{{"kernel", "avx512", "generic"}, {"pipeline sha256", "aa", "bb"}, {"var epochs", "50", ""}, {"var seeds", "", "[0]"}}
	if !d.RecordedA || !d.RecordedB || !reflect.DeepEqual(d.Changed, want) {
		t.Errorf("changed %+v, want %+v", d.Changed, want)
	}
	if wantSame := []string{"hylaflow", "revision", "go", "blas", "host", "cores", "pipeline"}; !reflect.DeepEqual(d.Same, wantSame) {
		t.Errorf("same %q, want %q", d.Same, wantSame)
	}
	if d := compareProvenance(nil, a); d.RecordedA || !d.RecordedB || len(d.Changed) != 0 {
		t.Errorf("with A not recorded: %+v", d)
	}
}

// diffRuns are two runs of an ablation: run 2 trains with fewer epochs,
// has one more seed, and lost run 1's sgc instance.
func diffRuns() (*Run, *Run) {
	rec := func(addr, typ string, params map[string]string, inputs map[string][]string) *cache.KeyRecord {
		r := &cache.KeyRecord{Address: addr, StageType: typ, Version: "1", Params: params, Inputs: inputs}
		cache.ComputeKey(r)
		return r
	}
	mk := func(id int64, epochs string, seeds []string, sgc bool, vars map[string]string, tables []Table) *Run {
		r := &Run{Records: map[string]*cache.KeyRecord{}, Tables: tables}
		r.ID, r.Pipeline, r.Status, r.Args = id, "ablation", "ok", []string{"run", "p.hcl"}
		add := func(k *cache.KeyRecord, status string) {
			r.Records[k.Key] = k
			r.Stages = append(r.Stages, cache.StageRecord{Address: k.Address, Key: k.Key, Status: status})
		}
		data := rec("dataset.d", "dataset", map[string]string{"name": `"d"`}, nil)
		add(data, "cached")
		var trained []string
		for _, s := range seeds {
			tr := rec(`train.hyla["`+s+`"]`, "train", map[string]string{"epochs": epochs, "seed": s}, map[string][]string{"graph": {data.Key + "/graph"}})
			add(tr, "ran")
			trained = append(trained, tr.Key+"/model")
		}
		if sgc {
			add(rec("train.sgc", "train", map[string]string{"epochs": "100"}, map[string][]string{"graph": {data.Key + "/graph"}}), "cached")
		}
		add(rec("evaluate.t", "evaluate", map[string]string{}, map[string][]string{"runs": trained}), "ran")
		r.Prov = &Provenance{Build: Build{Version: "(devel)", Revision: "abc"}, Go: "go1.99", OS: "linux", Arch: "amd64",
			Kernel: "avx2", BLAS: "gonum", Host: "h", Cores: 2, Pipeline: File{"p.hcl", "aa"}, Vars: vars}
		return r
	}
	a := mk(1, "100", []string{"0", "1", "2"}, true, map[string]string{}, []Table{{Stage: "evaluate.t", Title: "Ablation", Metric: "test accuracy", Unit: "percent",
		Cells: []Cell{cell("cora", "hyla", 81.5, 82.1, 81.9), cell("cora", "sgc", 80.1, 80.4, 80.0), cell("cora", "rff", 75)}}})
	b := mk(2, "50", []string{"0", "1", "2", "3"}, false, map[string]string{"epochs": "50", "seeds": "[0,1,2,3]"}, []Table{{Stage: "evaluate.t", Title: "Ablation", Metric: "test accuracy", Unit: "percent",
		Cells: []Cell{cell("cora", "hyla", 78.2, 79.0, 78.4, 78.8), cell("cora", "sgc", 80.3, 80.1, 80.2), cell("cora", "gcn", 81)}}})
	// Run 2's dataset key record is gone (gc): its stages with the same key still count as same.
	b.Notes = []string{"run 2: the outputs of 1 of its stages are no longer in the cache (removed by gc); their tables cannot be compared"}
	return a, b
}

func TestCompareStages(t *testing.T) {
	a, b := diffRuns()
	d := compareStages(a, b)
	if d.Same != 1 || len(d.Changed) != 4 || !reflect.DeepEqual(d.OnlyA, []string{"train.sgc"}) || !reflect.DeepEqual(d.OnlyB, []string{`train.hyla["3"]`}) {
		t.Fatalf("stages diff %+v", d)
	}
	byAddr := map[string]StageChange{}
	for _, c := range d.Changed {
		byAddr[c.Address] = c
	}
	if w := byAddr[`train.hyla["1"]`].Why; !reflect.DeepEqual(w, []string{"param epochs changed 100 → 50"}) {
		t.Errorf("train.hyla[1]: %q", w)
	}
	if c := byAddr["evaluate.t"]; c.Block != "evaluate.t" || !reflect.DeepEqual(c.Why, []string{"input runs changed (3 → 4 artifacts)"}) {
		t.Errorf("evaluate.t: %+v", c)
	}
	// Without the key records (gc removed them) the reason says so.
	delete(b.Records, byAddr[`train.hyla["0"]`].KeyB)
	d = compareStages(a, b)
	for _, c := range d.Changed {
		if c.Address == `train.hyla["0"]` && !reflect.DeepEqual(c.Why, []string{"key record no longer in the cache (removed by gc)"}) {
			t.Errorf("train.hyla[0] without its record: %q", c.Why)
		}
	}
	// Same count of inputs: the changed producers are named as in plan.
	a2, b2 := diffRuns()
	evalA, evalB := a2.Records[a2.Stages[len(a2.Stages)-1].Key], b2.Records[b2.Stages[len(b2.Stages)-1].Key]
	evalB.Inputs["runs"] = evalB.Inputs["runs"][:3]
	got := strings.Join(compareStagesWhy(a2, b2, evalA, evalB), "; ")
	if want := `input runs changed (train.hyla["0"] changed, train.hyla["1"] changed, train.hyla["2"] changed)`; got != want {
		t.Errorf("evaluate with the same number of inputs: %s, want %s", got, want)
	}
}

// compareStagesWhy returns the reason compareStages gives for the change
// from record ra of run a to rb of run b.
func compareStagesWhy(a, b *Run, ra, rb *cache.KeyRecord) []string {
	for _, c := range compareStages(a, b).Changed {
		if c.Address == rb.Address {
			return c.Why
		}
	}
	return nil
}

func TestBlockAndInstances(t *testing.T) {
	for _, tc := range []struct{ addr, block string }{
		{`train.hyla["0"]`, "train.hyla"}, {"evaluate.t", "evaluate.t"}, {`m.x["a[1]"]`, "m.x"},
	} {
		if got := Block(tc.addr); got != tc.block {
			t.Errorf("Block(%s) = %s, want %s", tc.addr, got, tc.block)
		}
	}
	var many []string
	for _, k := range []string{"0", "1", "2", "3", "4", "5", "6"} {
		many = append(many, `t.h["`+k+`"]`)
	}
	if got, want := instances("t.h", many), `t.h["0", "1", "2", "3", "4", … 7 in all]`; got != want {
		t.Errorf("instances: %s, want %s", got, want)
	}
	if got, want := groupAddresses([]string{"a.b", `t.h["0"]`, `t.h["1"]`}), []string{"a.b", `t.h["0", "1"]`}; !reflect.DeepEqual(got, want) {
		t.Errorf("groupAddresses: %q, want %q", got, want)
	}
}

// The text and JSON forms of the comparison of diffRuns, against golden
// files (go test ./runs -update rewrites them).
func TestWriteDiffGolden(t *testing.T) {
	a, b := diffRuns()
	d := Compare(a, b)
	var text bytes.Buffer
	if err := WriteDiff(&text, d); err != nil {
		t.Fatal(err)
	}
	js, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "diff.golden", text.Bytes())
	golden(t, "diff.json.golden", append(js, '\n'))

	// Neither run has provenance, or one lacks it.
	a.Prov = nil
	text.Reset()
	if err := WriteDiff(&text, Compare(a, b)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "\nprovenance: not recorded for run 1 (A)\n") {
		t.Errorf("A without provenance:\n%s", text.String())
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./runs -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./runs -update rewrites it); got:\n%s", path, got)
	}
}

// Load reads a run's tables (table.json of its table outputs), its key
// records and its provenance from a cache, and notes the stages whose
// outputs are gone.
func TestLoad(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	table := bundle.New(schema.KindTable)
	doc := []byte(`{"title":"T","metric":"test accuracy","unit":"percent","cells":[{"dataset":"cora","model":"hyla","runs":2,"values":[80,82],"mean":81,"std":1,"status":"ok"}]}`)
	table.SetFile("table.json", doc)
	table.SetFile("table.md", []byte("| x |\n"))
	evalRec := &cache.KeyRecord{Address: "evaluate.t", StageType: "evaluate", Version: "1", Params: map[string]string{}, Inputs: map[string][]string{}}
	cache.ComputeKey(evalRec)
	if _, err := c.Store(evalRec, map[string]artifact.Artifact{"table": table}); err != nil {
		t.Fatal(err)
	}
	gone := &cache.KeyRecord{Address: "train.x", StageType: "train", Version: "1", Params: map[string]string{}, Inputs: map[string][]string{}}
	cache.ComputeKey(gone)
	id, err := c.BeginRun("p", []string{"run", "p.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	prov := &Provenance{Go: "go1.99", Vars: map[string]string{"k": "2"}, VarFiles: []File{}}
	pdoc, _ := prov.Encode()
	if err := c.SetRunProvenance(id, pdoc); err != nil {
		t.Fatal(err)
	}
	for _, s := range []cache.StageRecord{{Address: "train.x", Key: gone.Key, Status: "ran"}, {Address: "evaluate.t", Key: evalRec.Key, Status: "cached"}} {
		if err := c.RecordStage(id, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.FinishRun(id, "ok"); err != nil {
		t.Fatal(err)
	}
	r, err := Load(c, id)
	if err != nil {
		t.Fatal(err)
	}
	// A table of evaluate version 3 (no std_ddof: the population std 1) is
	// read with the sample std sqrt(2), the one convention of package table.
	want := []Table{{Stage: "evaluate.t", Title: "T", Metric: "test accuracy", Unit: "percent",
		Cells: []Cell{{Dataset: "cora", Model: "hyla", Runs: 2, Values: []float64{80, 82}, Mean: ptr(81), Std: ptr(math.Sqrt(2)), Status: "ok"}}}}
	if !reflect.DeepEqual(r.Tables, want) {
		t.Errorf("tables %+v, want %+v", r.Tables, want)
	}
	if len(r.Records) != 1 || r.Records[evalRec.Key] == nil || r.Records[evalRec.Key].Address != "evaluate.t" {
		t.Errorf("records %v", r.Records)
	}
	if !reflect.DeepEqual(r.Prov, prov) {
		t.Errorf("provenance %+v, want %+v", r.Prov, prov)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "the outputs of 1 of its stages are no longer in the cache") {
		t.Errorf("notes %q", r.Notes)
	}
	if _, err := Load(c, 99); err == nil || !strings.Contains(err.Error(), "no run 99") {
		t.Errorf("Load of an unknown run: %v", err)
	}
}
