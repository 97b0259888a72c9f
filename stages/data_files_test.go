package stages_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets/files/filestest"
	"github.com/hylaflow/hylaflow/datasets/planetoid"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	"github.com/hylaflow/hylaflow/stages"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// filesHyLaPipeline is HyLa-SGC with the official code's Cora values
// (D 100, s 0.01, lr_e 0.05, lr_c 0.01, K 2) on the dataset block given.
const filesHyLaPipeline = `pipeline "p" {}
stage "dataset" "g" {
%s
}
stage "split" "g" {
  graph = stage.dataset.g
  rule  = "given"
}
stage "normalize" "g" { graph = stage.dataset.g }
stage "precompute" "g" {
  graph = stage.normalize.g
  split = stage.split.g
  k     = 2
}
stage "sample" "h" {
  kind     = "hyla"
  dim      = 16
  features = 100
  scale    = 0.01
  seed     = 0
}
stage "train" "h" {
  features      = stage.precompute.g
  samples       = stage.sample.h
  model         = "hyla"
  lr_embedding  = 0.05
  lr_classifier = 0.01
  epochs        = 100
  seed          = 0
}
`

// runFilesPipeline runs src and returns the train stage's metrics.
func runFilesPipeline(t *testing.T, src string) map[string]float64 {
	t.Helper()
	p, diags := pipeline.LoadSource(stages.Default(), "p.hcl", []byte(src), pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	store := executortest.NewMemStore()
	res, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != runner.RunOK {
		for _, s := range res.Stages {
			t.Logf("%s: %s %v", s.Address, s.Status, s.Err)
		}
		t.Fatalf("run: %s", res.Status)
	}
	st := res.ByAddress["train.h"]
	for _, o := range st.Outputs {
		a, err := store.Load(o)
		if err != nil {
			t.Fatal(err)
		}
		if b, ok := a.(*bundle.Bundle); ok && b.Kind() == schema.KindMetrics {
			return b.Metrics()
		}
	}
	t.Fatal("train.h has no metrics output")
	return nil
}

// TestFilesCoraHyLaAccuracy is the second half of the done-when:
// Cora exported into each layout (shuffled, renamed, gzipped) gives
// HyLa-SGC the accuracy the Planetoid loader's Cora gives, through the
// pipeline a user writes (source = "files", path = ...).
func TestFilesCoraHyLaAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("trains HyLa on Cora four times")
	}
	root := testenv.Data(t)
	g, err := planetoid.Load(filepath.Join(root, "planetoid"), "cora")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("HYLAFLOW_DATA", root)
	want := runFilesPipeline(t, fmt.Sprintf(filesHyLaPipeline, `source = "planetoid"
  name = "cora"`))
	if want["test"] < 0.7 {
		t.Fatalf("planetoid Cora: HyLa-SGC test accuracy %v, want the usual ≈ 0.8", want["test"])
	}
	ex := filestest.New(g, 3)
	dir := t.TempDir()
	for _, step := range []error{ex.EdgeList(filepath.Join(dir, "edgelist")), ex.PyG(filepath.Join(dir, "cora.npz")), ex.OGB(filepath.Join(dir, "ogb"))} {
		if step != nil {
			t.Fatal(step)
		}
	}
	for _, path := range []string{"edgelist", "cora.npz", "ogb"} {
		got := runFilesPipeline(t, fmt.Sprintf(filesHyLaPipeline, fmt.Sprintf(`source = "files"
  path = %q`, filepath.Join(dir, path))))
		// The nodes come in another order, so sums run in another order:
		// the same accuracy within one test node of a thousand.
		if d := got["test"] - want["test"]; d > 0.0011 || d < -0.0011 {
			t.Errorf("%s: HyLa-SGC test accuracy %.4f, Planetoid's Cora %.4f", path, got["test"], want["test"])
		} else {
			t.Logf("%s: test accuracy %.4f (Planetoid %.4f)", path, got["test"], want["test"])
		}
	}
}
