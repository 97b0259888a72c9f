package stages_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// ringSource is a dataset source that exists only in this test: dataset
// NAME reads fake/NAME.txt (one label per line) and connects node i to
// i+ring_step (its own parameter, default 1) around a ring; its official
// split is HGCN's rule with 0.25/0.25.
type ringSource struct{}

func (ringSource) Name() string { return "fake" }

func (ringSource) Files(req datasets.Request) ([]datasets.File, error) {
	return []datasets.File{{Path: "fake/" + req.Name + ".txt"}}, nil
}

func (ringSource) Generator(string) (string, string) { return "", "" }

func (s ringSource) Load(_ context.Context, req datasets.Request) (*datasets.Graph, error) {
	req, err := datasets.Resolve(s, req)
	if err != nil {
		return nil, err
	}
	path, err := req.Path("fake/" + req.Name + ".txt")
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var labels []int
	for _, l := range strings.Fields(string(data)) {
		labels = append(labels, map[string]int{"a": 0, "b": 1}[l])
	}
	n := len(labels)
	if n < 3 {
		return nil, errors.New("ring needs 3 nodes")
	}
	step := max(req.Params.Int("ring_step"), 1)
	us, vs := make([]int, n), make([]int, n)
	for i := range us {
		us[i], vs[i] = i, (i+step)%n
	}
	adj, err := datasets.SymmetricFromEdges(n, us, vs)
	if err != nil {
		return nil, err
	}
	g := &datasets.Graph{Name: req.Name, Source: "fake", Adj: adj, Labels: labels, Classes: 2,
		DenseFeatures: sparse.Identity(n).ToDense()}
	return g, g.Validate()
}

func (ringSource) OfficialSplit(string) datasets.SplitRule {
	return datasets.SplitRule{Rule: datasets.SplitHGCN, PVal: 0.25, PTest: 0.25}
}

func (ringSource) Params() []datasets.ParamSpec {
	return []datasets.ParamSpec{{Name: "ring_step", Kind: datasets.ParamInt, Default: 1, Min: datasets.Bound(1),
		Doc: "offset of each node's neighbour around the ring"}}
}

// ringEntry is the catalogue entry of the fake source's one dataset.
var ringEntry = datasets.Entry{Name: "fake_ring", Source: "fake", Doc: "a test ring",
	Files: []datasets.File{{Path: "fake/fake_ring.txt"}}, Expected: datasets.Stats{Nodes: 8, Edges: 8, Features: 8, Classes: 2}}

// TestFakeSourceParameter: a parameter a source declares (ring_step) is a
// parameter of the dataset stage, with its default, bound and doc, once
// the source is registered, and nothing else changes: unknown before,
// checked against its bound, and read by the source's loader.
func TestFakeSourceParameter(t *testing.T) {
	src := func(step string) []byte {
		return []byte(`stage "dataset" "x" {
  source    = "fake"
  name      = "fake_ring"
  ring_step = ` + step + `
}
`)
	}
	mentions := func(diags hcl.Diagnostics, s string) bool {
		for _, d := range diags {
			if strings.Contains(d.Summary+d.Detail, s) {
				return true
			}
		}
		return false
	}
	if _, diags := pipeline.LoadSource(stages.Default(), "p.hcl", src("4"), pipeline.LoadOptions{}); !mentions(diags, `"ring_step"`) {
		t.Fatalf("ring_step before the source is registered: %v", diags)
	}
	defer datasets.RegisterForTest(ringSource{}, ringEntry)()
	typ, ok := stages.Default().Lookup("dataset")
	if !ok {
		t.Fatal("no dataset stage type")
	}
	p, ok := typ.Param("ring_step")
	if !ok || p.Type != registry.Int || p.Default != 1 || p.Range == nil || p.Range.Min != 1 || p.Range.HasMax ||
		p.Doc != "fake: offset of each node's neighbour around the ring" {
		t.Fatalf("dataset's ring_step: %+v (declared: %v)", p, ok)
	}
	if _, diags := pipeline.LoadSource(stages.Default(), "p.hcl", src("0"), pipeline.LoadOptions{}); !mentions(diags, "ring_step") {
		t.Errorf("ring_step = 0, below its bound: %v", diags)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "fake"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "fake", "fake_ring.txt"), []byte("a b a b a b a b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HYLAFLOW_DATA", root)
	// Step 4 on 8 nodes pairs i with i+4: 4 edges, not the ring's 8.
	for step, edges := range map[string]int{"1": 8, "4": 4} {
		pl, diags := pipeline.LoadSource(stages.Default(), "p.hcl", src(step), pipeline.LoadOptions{})
		if diags.HasErrors() {
			t.Fatalf("ring_step = %s: %v", step, diags)
		}
		store := executortest.NewMemStore()
		res, err := runner.Run(context.Background(), pl, store, runner.RunOptions{Jobs: 1})
		if err != nil || res.Status != runner.RunOK {
			t.Fatalf("ring_step = %s: run %v, %v", step, res, err)
		}
		a, err := store.Load(res.ByAddress["dataset.x"].Outputs[0])
		if err != nil {
			t.Fatal(err)
		}
		var info schema.GraphInfo
		if err := a.(*bundle.Bundle).JSON(schema.MemberInfo, &info); err != nil {
			t.Fatal(err)
		}
		if info.Edges != edges {
			t.Errorf("ring_step = %s: %d edges, want %d", step, info.Edges, edges)
		}
	}
}

// TestFakeSourceThroughPipeline: registering a source and its catalogue
// entry (what a new source package and catalog.go would do) is all a
// pipeline needs: validate accepts the source and name, the dataset
// stage's key follows the file's contents, the graph loads, and the split
// stage's hgcn rule takes the source's official proportions.
func TestFakeSourceThroughPipeline(t *testing.T) {
	defer datasets.RegisterForTest(ringSource{}, ringEntry)()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "fake"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(labels string) {
		if err := os.WriteFile(filepath.Join(root, "fake", "fake_ring.txt"), []byte(labels), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a b a b a b a b\n")
	t.Setenv("HYLAFLOW_DATA", root)
	src := []byte(`pipeline "fake" {}
stage "dataset" "x" {
  source = "fake"
  name   = "fake_ring"
}
stage "split" "x" {
  graph = stage.dataset.x
  rule  = "hgcn"
}
`)
	run := func(store *executortest.MemStore) *runner.RunResult {
		t.Helper()
		p, diags := pipeline.LoadSource(stages.Default(), "fake.hcl", src, pipeline.LoadOptions{})
		if diags.HasErrors() {
			t.Fatalf("load: %v", diags)
		}
		res, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 1})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if res.Status != runner.RunOK {
			for _, s := range res.Stages {
				t.Logf("%s: %s %v", s.Address, s.Status, s.Err)
			}
			t.Fatalf("run: %s", res.Status)
		}
		return res
	}
	store := executortest.NewMemStore()
	res := run(store)
	load := func(address string) *bundle.Bundle {
		t.Helper()
		st := res.ByAddress[address]
		if st == nil || len(st.Outputs) != 1 {
			t.Fatalf("%s: %+v", address, st)
		}
		a, err := store.Load(st.Outputs[0])
		if err != nil {
			t.Fatal(err)
		}
		b, ok := a.(*bundle.Bundle)
		if !ok {
			t.Fatalf("%s: output is %T, want a bundle", address, a)
		}
		return b
	}
	var info schema.GraphInfo
	if err := load("dataset.x").JSON(schema.MemberInfo, &info); err != nil {
		t.Fatal(err)
	}
	if info.Name != "fake_ring" || info.Source != "fake" || info.Nodes != 8 || info.Edges != 8 || info.Classes != 2 {
		t.Errorf("graph info %+v", info)
	}
	// HGCN's rule with 0.25/0.25: 4 nodes of each label, m = 4, one
	// validation and one test node of each label, the other 4 train.
	sp := load("split.x")
	for m, want := range map[string]int{schema.MemberTrain: 4, schema.MemberVal: 2, schema.MemberTest: 2} {
		if v, err := sp.Ints(m); err != nil || len(v) != want {
			t.Errorf("split %s: %v (err %v), want %d nodes", m, v, err, want)
		}
	}
	// The key follows the file's contents: the same file keeps it, another changes it.
	key := res.ByAddress["dataset.x"].Key
	if again := run(executortest.NewMemStore()).ByAddress["dataset.x"].Key; again != key {
		t.Errorf("same file, key %s then %s", key, again)
	}
	write("a b a b a b a a\n")
	if changed := run(executortest.NewMemStore()).ByAddress["dataset.x"].Key; changed == key {
		t.Error("the key did not change with the file's contents")
	}
	// A misspelt name fails validation with the registered entry as a hint.
	bad := []byte(strings.Replace(string(src), `"fake_ring"`, `"fake_rign"`, 1))
	if _, diags := pipeline.LoadSource(stages.Default(), "bad.hcl", bad, pipeline.LoadOptions{}); !diags.HasErrors() ||
		!strings.Contains(diags.Error(), `did you mean "fake_ring"?`) {
		t.Errorf("misspelt name: %v", diags)
	}
}
