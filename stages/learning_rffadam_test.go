package stages

import (
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

// TestLearnTrainEmbeddingOptimizer: on the real Cora files the train stage
// passes optimizer_embedding through (auto and sgd give bit-identical
// models, adam a different one that learns as well: validation accuracy
// far above the 7 classes' chance) and refuses Adam for HyLa.
func TestLearnTrainEmbeddingOptimizer(t *testing.T) {
	root := learnDataRoot(t)
	feats := learnPrecompute(t, map[string]any{"source": "planetoid", "name": "cora", "root": root}, nil, nil, map[string]any{"k": 2})
	samples := learnRun(t, "sample", map[string]any{"kind": "rff", "features": 100, "scale": 2.0}, nil, 1, 1)["samples"]
	in := map[string][]*bundle.Bundle{"features": {feats}, "samples": {samples}}
	z := map[string]*mat.Dense{}
	for _, opt := range []string{"auto", "sgd", "adam"} {
		lr := 0.5
		if opt == "adam" {
			lr = 0.005
		}
		out := learnRun(t, "train", map[string]any{"model": "rff", "optimizer_embedding": opt, "lr_embedding": lr,
			"lr_classifier": 0.01, "epochs": 60}, in, 7, 2)
		m := learnMetricsOf(t, out["metrics"])
		t.Logf("%s: train %.3f val %.3f test %.3f", opt, m.Train, m.Val, m.Test)
		if m.Val < 0.7 {
			t.Errorf("%s: validation accuracy %.3f, want ≥ 0.7 (RFF-SGC reaches about 0.77 on Cora)", opt, m.Val)
		}
		zz, err := out["model"].Dense(schema.MemberZ)
		if err != nil {
			t.Fatal(err)
		}
		z[opt] = zz
	}
	if !mat.Equal(z["auto"], z["sgd"]) {
		t.Error("optimizer_embedding auto and sgd give different Z for rff")
	}
	if mat.EqualApprox(z["auto"], z["adam"], 1e-9) {
		t.Error("optimizer_embedding adam gives the same Z as SGD")
	}
	hs := learnRun(t, "sample", map[string]any{"kind": "hyla", "features": 64, "scale": 0.1}, nil, 1, 1)["samples"]
	_, err := learnRunErr("train", map[string]any{"model": "hyla", "optimizer_embedding": "adam", "epochs": 2},
		map[string][]*bundle.Bundle{"features": {feats}, "samples": {hs}}, 7, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "adam") {
		t.Errorf("hyla with optimizer_embedding adam: error %v, want a refusal naming adam", err)
	}
}
