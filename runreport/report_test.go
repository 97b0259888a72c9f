package runreport

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// testPipeline trains HyLa-SGC for two seeds on a small synthetic disease
// tree and evaluates them twice (one plain, one for_each instance).
const testPipeline = `
stage "dataset" "d" {
  source = "synthetic"
  name   = "disease"
  nodes  = 120
  seed   = 3
}
stage "split" "d" {
  graph = stage.dataset.d
  rule  = "hgcn"
}
stage "normalize" "d" { graph = stage.dataset.d }
stage "precompute" "d" {
  graph = stage.normalize.d
  split = stage.split.d
  k     = 2
}
stage "sample" "h" {
  for_each = toset([0, 1])
  dim      = 4
  features = 20
  seed     = each.value
}
stage "train" "h" {
  for_each = toset([0, 1])
  features = stage.precompute.d
  samples  = stage.sample.h[each.key]
  epochs   = 3
  seed     = each.value
}
stage "evaluate" "all" {
  runs       = stage.train.h
  compare_to = "none"
  title      = "Report test"
}
stage "evaluate" "each" {
  for_each = toset(["hyla"])
  runs     = stage.train.h
  title    = "Report test, HyLa only"
}
`

// testRun runs testPipeline into a new cache and returns it with the run id.
func testRun(t *testing.T) (*cache.Cache, int64) {
	t.Helper()
	return testRunSource(t, testPipeline)
}

// testRunSource runs the pipeline src into a new cache and returns it with
// the run id.
func testRunSource(t *testing.T, src string) (*cache.Cache, int64) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := pipeline.Load(stages.Default(), file, pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	c, err := cache.Open(filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	res, err := runner.Run(context.Background(), p, c, runner.RunOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	return c, res.RunID
}

// Collect finds the run's two tables in address order; WriteOutputs
// writes their files and prints their Markdown; WriteTablesText prints
// the compact text; Timings charges each train stage its dependencies.
func TestCollectWriteAndTimings(t *testing.T) {
	c, id := testRun(t)
	outputs, err := Collect(c, stages.Default(), id, Kinds...)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range outputs {
		if o.Err != nil {
			t.Errorf("%s: %v", o.Address, o.Err)
		}
		got = append(got, o.Address+"/"+o.Output+" "+string(o.Kind))
	}
	if want := `evaluate.all/table table,evaluate.each["hyla"]/table table`; strings.Join(got, ",") != want {
		t.Errorf("Collect = %s, want %s", strings.Join(got, ","), want)
	}
	// Without the registry, the outputs stored under the keys say the same.
	if again, err := Collect(c, nil, id, schema.KindTable); err != nil || len(again) != 2 || again[1].Address != outputs[1].Address {
		t.Errorf("Collect without a registry: %v, %+v", err, again)
	}

	out := t.TempDir()
	var md bytes.Buffer
	files := WriteOutputs(&md, out, id, outputs)
	if len(files.Problems) != 0 {
		t.Errorf("problems: %v", files.Problems)
	}
	for _, f := range []string{"evaluate.all/table.md", "evaluate.all/chart.png", "evaluate.each-hyla/table.json"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	table, err := os.ReadFile(filepath.Join(out, "evaluate.all", "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "<!-- evaluate.all (run 1) -->\n"+string(table)) {
		t.Errorf("Markdown printed:\n%s", md.String())
	}
	var listing bytes.Buffer
	WriteListing(&listing, out, "OUT", id, files.Paths[:2])
	if want := "wrote 2 files of run 1 into OUT:\n  evaluate.all/chart.png\n  evaluate.all/table.csv\n"; listing.String() != want {
		t.Errorf("listing:\n%s\nwant:\n%s", listing.String(), want)
	}

	var text bytes.Buffer
	if problems := WriteTablesText(&text, c, stages.Default(), id); len(problems) != 0 {
		t.Errorf("WriteTablesText: %v", problems)
	}
	if n := strings.Count(text.String(), "hyla-sgc"); n != 2 || !strings.HasPrefix(text.String(), "\nReport test — ") {
		t.Errorf("tables text:\n%s", text.String())
	}

	rows, err := Timings(c, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d timing rows, want 2", len(rows))
	}
	for _, r := range rows {
		if r.Model != "hyla-sgc" || r.Dataset == "" || len(r.CachedUpstream) != 0 || r.UpstreamSec <= 0 ||
			math.Abs(r.TotalSec-r.TrainSec-r.UpstreamSec) > 1e-9 || !(r.Test >= 0 && r.Test <= 100) {
			t.Errorf("timing row %+v", r)
		}
	}

	// An unknown run wraps cache.ErrNotFound.
	if _, err := Collect(c, stages.Default(), 99, Kinds...); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("Collect of run 99: %v, want cache.ErrNotFound", err)
	}
}

// An output that cannot be had is a problem naming the run and stage; the
// others are written all the same.
func TestWriteOutputsProblems(t *testing.T) {
	var w bytes.Buffer
	files := WriteOutputs(&w, t.TempDir(), 4, []Output{
		{Address: "evaluate.a", Output: "table", Kind: schema.KindTable, Err: errors.New("the stage did not finish in that run (failed)")},
	})
	if len(files.Problems) != 1 || files.Problems[0].Error() != "run 4: evaluate.a: the stage did not finish in that run (failed)" || w.Len() != 0 {
		t.Errorf("problems %v, printed %q", files.Problems, w.String())
	}
}

// Stage addresses that read the same once made safe ("a b", "a/b",
// "a?b") get distinct directories; one that collides with none keeps its
// readable name; nothing escapes the output directory.
func TestWriteOutputsDistinctDirs(t *testing.T) {
	c, id := testRun(t)
	outputs, err := Collect(c, stages.Default(), id, schema.KindTable)
	if err != nil || len(outputs) == 0 || outputs[0].Err != nil {
		t.Fatalf("Collect: %v %+v", err, outputs)
	}
	table := outputs[0]
	var in []Output
	for _, key := range []string{"a b", "a/b", "a?b", "../../c"} {
		o := table
		o.Address = `evaluate.x["` + key + `"]`
		in = append(in, o)
	}
	out := t.TempDir()
	var md bytes.Buffer
	files := WriteOutputs(&md, out, id, in)
	if len(files.Problems) != 0 {
		t.Fatalf("problems: %v", files.Problems)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		dirs = append(dirs, e.Name())
		if st, err := os.Stat(filepath.Join(out, e.Name(), "table.md")); err != nil || st.Size() == 0 {
			t.Errorf("%s/table.md not written: %v", e.Name(), err)
		}
	}
	if len(dirs) != 4 {
		t.Fatalf("directories %q, want 4 distinct ones", dirs)
	}
	if !slices.Contains(dirs, "evaluate.x-..-..-c") {
		t.Errorf("directories %q: want the non-colliding one readable, evaluate.x-..-..-c", dirs)
	}
	for _, d := range dirs {
		if d != "evaluate.x-..-..-c" && !strings.HasPrefix(d, "evaluate.x-a-b~") {
			t.Errorf("directory %q: want evaluate.x-a-b~HASH for the colliding ones", d)
		}
	}
}

// ResolveRun takes a number, or latest: the run that finished last,
// passing over one still running unless none has finished.
func TestResolveRun(t *testing.T) {
	c, err := cache.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, _, err := ResolveRun(c, "latest"); err == nil || !strings.Contains(err.Error(), "has no runs yet") {
		t.Errorf("latest of no runs: %v", err)
	}
	first, _ := c.BeginRun("a", nil)
	check := func(which string, wantID int64, wantNote string) {
		t.Helper()
		id, note, err := ResolveRun(c, which)
		if err != nil || id != wantID || note != wantNote {
			t.Errorf("ResolveRun(%q) = %d, %q, %v; want %d, %q", which, id, note, err, wantID, wantNote)
		}
	}
	check("latest", first, "run 1 is still running: its tables so far")
	if err := c.FinishRun(first, "ok"); err != nil {
		t.Fatal(err)
	}
	second, _ := c.BeginRun("b", nil)
	check("latest", first, "latest: run 1, the last to finish (run 2 is still running)")
	check("last", first, "latest: run 1, the last to finish (run 2 is still running)")
	if err := c.RecordStage(second, cache.StageRecord{Address: "a.x", Key: "k", Status: "ran"}); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishRun(second, "ok"); err != nil {
		t.Fatal(err)
	}
	check("latest", second, "")
	// A run canceled or failed before recording any stage has no results:
	// latest passes over it and says so.
	third, _ := c.BeginRun("c", nil)
	if err := c.FinishRun(third, "canceled"); err != nil {
		t.Fatal(err)
	}
	check("latest", second, "latest: run 2, the last with stages (run 3 was canceled before recording any stage)")
	fourth, _ := c.BeginRun("d", nil)
	check("latest", second, "latest: run 2, the last to finish with stages (run 4 is still running; run 3 was canceled before recording any stage)")
	if err := c.RecordStage(fourth, cache.StageRecord{Address: "a.x", Key: "k", Status: "ran"}); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishRun(fourth, "failed"); err != nil {
		t.Fatal(err)
	}
	check("latest", fourth, "") // failed, but with a stage to report
	check("3", 3, "")
	check("7", 7, "")
	for _, bad := range []string{"0", "-1", "abc", ""} {
		var be *BadRunError
		if _, _, err := ResolveRun(c, bad); !errors.As(err, &be) || be.Which != bad {
			t.Errorf("ResolveRun(%q): %v, want a *BadRunError", bad, err)
		}
	}
}

// Timings has a row for every stage whose metrics name a model, whatever
// its type (here gcn beside train), charged with its own upstream stages.
func TestTimingsOfEveryTrainingStageType(t *testing.T) {
	c, id := testRunSource(t, testPipeline+`
stage "gcn" "g" {
  graph  = stage.normalize.d
  split  = stage.split.d
  epochs = 3
}
`)
	rows, err := Timings(c, id)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]int{}
	for _, r := range rows {
		models[r.Model]++
		if r.Model == "gcn" && (r.Address != "gcn.g" || r.UpstreamSec <= 0 || len(r.CachedUpstream) != 0 || !(r.Test >= 0 && r.Test <= 100)) {
			t.Errorf("gcn timing row %+v", r)
		}
	}
	if len(rows) != 3 || models["hyla-sgc"] != 2 || models["gcn"] != 1 {
		t.Errorf("timing rows by model: %v, want hyla-sgc 2, gcn 1", models)
	}
}

// The timing summary averages per dataset × model and flags rows whose
// dependencies came from the cache (golden testdata/timing.golden).
func TestTimingMarkdown(t *testing.T) {
	rows := []Timing{
		{Address: `train.h["0"]`, Dataset: "pubmed", Model: "hyla-sgc", Test: 80, TrainSec: 1, UpstreamSec: 2, TotalSec: 3},
		{Address: `train.h["1"]`, Dataset: "pubmed", Model: "hyla-sgc", Test: 82, TrainSec: 2, UpstreamSec: 2, TotalSec: 4},
		{Address: `train.s["0"]`, Dataset: "cora", Model: "sgc", Test: 81.5, TrainSec: 0.5, TotalSec: 0.5,
			CachedUpstream: []string{"precompute.d"}},
		{Address: `train.s["1"]`, Dataset: "pubmed", Model: "sgc", Test: 79, TrainSec: 0.5, UpstreamSec: 1.5, TotalSec: 2},
		{Address: `gat.p["0"]`, Dataset: "pubmed", Model: "gat", Test: 78, TrainSec: 20, UpstreamSec: 1, TotalSec: 21},
	}
	sums := Summarise(rows)
	if len(sums) != 4 || sums[0].Runs != 2 || sums[0].Test.Mean != 81 || sums[0].Test.Std == nil || math.Abs(*sums[0].Test.Std-math.Sqrt(2)) > 1e-12 || sums[1].Test.Std != nil || sums[0].TotalSec != 3.5 || sums[1].Incomplete != 1 {
		t.Errorf("Summarise = %+v", sums)
	}
	var b bytes.Buffer
	WriteTimingMarkdown(&b, 5, sums, map[string]float64{"hyla-sgc": 0.5, "sgc": 0.25, "gat": 5})
	golden := filepath.Join("testdata", "timing.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if b.String() != string(want) {
		t.Errorf("differs from %s; got:\n%s\nwant:\n%s", golden, b.String(), want)
	}
}
