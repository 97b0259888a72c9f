package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

type publishTestStore map[string]artifact.Artifact

// publishTestRegistry has the two stage types the published pipeline
// uses: a source of a graph and its meta, and a train stage on the graph.
func publishTestRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	run := func(context.Context, *registry.Job) (map[string]artifact.Artifact, error) {
		return nil, fmt.Errorf("test stages do not run")
	}
	r := registry.New()
	for _, typ := range []*registry.Type{
		{
			Name: "source", Version: "1", Doc: "Makes a graph.", Run: run,
			Params:  []registry.Param{{Name: "name", Type: registry.String, Required: true, Doc: "dataset name"}},
			Outputs: []registry.Output{{Name: "graph", Kind: schema.KindGraph}, {Name: "meta", Kind: schema.KindValue}},
		},
		{
			Name: "train", Version: "2", Doc: "Trains a model.", Run: run,
			Inputs:  []registry.Input{{Name: "data", Kind: schema.KindGraph, Doc: "the graph"}},
			Outputs: []registry.Output{{Name: "model", Kind: schema.KindModel}, {Name: "metrics", Kind: schema.KindMetrics}},
		},
	} {
		if err := r.Register(typ); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func (s publishTestStore) Load(ref cache.OutputRef) (artifact.Artifact, error) {
	if a, ok := s[ref.Key+"/"+ref.Name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no artifact %s/%s", ref.Key, ref.Name)
}

// TestPublishOutputs publishes from a hand-made run result: whole
// artifacts, a file member and a JSON member, and the refusals (a failed
// run, a stage that did not finish, a member that is not there).
func TestPublishOutputs(t *testing.T) {
	dir := t.TempDir()
	src := `stage "source" "a" {
  name = "a"
}

stage "train" "t" {
  data = stage.source.a
}

publish "out" {
  from = [stage.source.a, stage.train.t.metrics]

  file "a.png" {
    from   = stage.source.a
    member = "plot.png"
  }
  file "info.json" {
    from   = stage.source.a
    member = "info"
  }
}

publish "off" {
  enabled = false
  from    = [stage.source.a]
}
`
	p, diags := pipeline.LoadSource(publishTestRegistry(t), filepath.Join(dir, "p.hcl"), []byte(src), pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	graph := bundle.New(schema.KindGraph)
	graph.SetFile("plot.png", []byte("png bytes"))
	graph.SetFloats("x", []float64{1, 2})
	if err := graph.SetJSON("info", map[string]int{"n": 2}); err != nil {
		t.Fatal(err)
	}
	metrics := bundle.New(schema.KindMetrics)
	if err := metrics.SetJSON("metrics", map[string]float64{"test": 0.5}); err != nil {
		t.Fatal(err)
	}
	store := publishTestStore{"ka/graph": graph, "kt/metrics": metrics}
	result := func(status, trainStatus string) *RunResult {
		return &RunResult{Status: status, Plan: &Plan{Pipeline: p}, ByAddress: map[string]*StageResult{
			"source.a": {Address: "source.a", Status: StatusCached, Outputs: []cache.OutputRef{{Key: "ka", Name: "graph"}, {Key: "ka", Name: "meta"}}},
			"train.t":  {Address: "train.t", Status: trainStatus, Outputs: []cache.OutputRef{{Key: "kt", Name: "model"}, {Key: "kt", Name: "metrics"}}},
		}}
	}
	done, err := PublishOutputs(result(RunOK, StatusRan), store)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if len(done) != 1 || done[0].Dir != out || done[0].Label != "out" {
		t.Fatalf("published %+v", done)
	}
	var rel []string
	for _, f := range done[0].Files {
		r, _ := filepath.Rel(out, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := "source.a/info.json source.a/plot.png source.a/graph.npz train.t.metrics/metrics.json a.png info.json"
	if strings.Join(rel, " ") != want {
		t.Errorf("files %v, want %s", rel, want)
	}
	for name, body := range map[string]string{"a.png": "png bytes", "info.json": "{\n  \"n\": 2\n}\n",
		"train.t.metrics/metrics.json": "{\n  \"test\": 0.5\n}\n"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != body {
			t.Errorf("%s = %q, %v; want %q", name, b, err, body)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "off")); err == nil {
		t.Error("the disabled block published")
	}

	for _, c := range []struct {
		res  *RunResult
		want string
	}{
		{result(RunFailed, StatusFailed), "publish: the run did not succeed (failed); nothing published"},
		{result(RunOK, StatusSkipped), "publish out: train.t: the stage did not finish in this run"},
	} {
		if _, err := PublishOutputs(c.res, store); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
