package hgcn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

func TestRankingMetrics(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pos, neg []float64
		roc, ap  float64
	}{
		{"perfect", []float64{0.9, 0.8}, []float64{0.1, 0.2}, 1, 1},
		{"reversed", []float64{0.1}, []float64{0.9}, 0, 0.5},
		// sklearn: roc_auc_score([1,0,1,0],[0.8,0.6,0.4,0.2]) = 0.75,
		// average_precision_score(...) = 0.8333…
		{"mixed", []float64{0.8, 0.4}, []float64{0.6, 0.2}, 0.75, 5.0 / 6},
		// Ties count one half: roc_auc_score([1,0],[0.5,0.5]) = 0.5, AP 0.5.
		{"tie", []float64{0.5}, []float64{0.5}, 0.5, 0.5},
	} {
		if got := ROCAUC(tc.pos, tc.neg); math.Abs(got-tc.roc) > 1e-12 {
			t.Errorf("%s: ROC-AUC %v, want %v", tc.name, got, tc.roc)
		}
		if got := AveragePrecision(tc.pos, tc.neg); math.Abs(got-tc.ap) > 1e-12 {
			t.Errorf("%s: AP %v, want %v", tc.name, got, tc.ap)
		}
	}
}

func TestSplitEdges(t *testing.T) {
	adj, _, _ := communities(2, 3, 20)
	split := func(seed uint64) *EdgeSplit {
		s, err := SplitEdges(adj, 0.05, 0.10, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := split(1), split(1)
	m := adj.NNZ() / 2
	if len(a.Val) != int(float64(m)*0.05) || len(a.Test) != int(float64(m)*0.10) || len(a.Train)+len(a.Val)+len(a.Test) != m {
		t.Fatalf("sizes train %d val %d test %d for %d edges", len(a.Train), len(a.Val), len(a.Test), m)
	}
	if len(a.ValNeg) != len(a.Val) || len(a.TestNeg) != len(a.Test) {
		t.Fatalf("negatives val %d test %d", len(a.ValNeg), len(a.TestNeg))
	}
	for k := range a.Train {
		if a.Train[k] != b.Train[k] {
			t.Fatal("same seed, different splits")
		}
	}
	seen := map[Edge]string{}
	for name, es := range map[string][]Edge{"train": a.Train, "val": a.Val, "test": a.Test, "val-neg": a.ValNeg, "test-neg": a.TestNeg} {
		for _, e := range es {
			if e.I >= e.J {
				t.Fatalf("%s edge %v not ordered", name, e)
			}
			if other, dup := seen[e]; dup {
				t.Fatalf("pair %v in %s and %s", e, name, other)
			}
			seen[e] = name
			isEdge := adj.At(e.I, e.J) != 0
			if isEdge != (name == "train" || name == "val" || name == "test") {
				t.Fatalf("%s pair %v: edge %v", name, e, isEdge)
			}
		}
	}
	for _, e := range a.TrainNegatives(500, rand.New(rand.NewPCG(3, 3))) {
		if a.trainSet[e] || e.I >= e.J {
			t.Fatalf("training negative %v is a training edge or unordered", e)
		}
	}
	if _, err := SplitEdges(adj, 0.6, 0.5, rand.New(rand.NewPCG(1, 0))); err == nil {
		t.Fatal("proportions summing above 1: no error")
	}
}

func TestLinkPredictionLearns(t *testing.T) {
	adj, x, _ := communities(7, 4, 25)
	s, err := SplitEdges(adj, 0.05, 0.10, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	at, err := s.TrainAdjacency()
	if err != nil {
		t.Fatal(err)
	}
	a, err := RowNormalizeSelfLoops(at)
	if err != nil {
		t.Fatal(err)
	}
	run := func(workers int) *LPResult {
		net, err := New(Config{Kind: "hgcn", Dim: 8, Layers: 2, Act: "relu", Bias: true, C: 1, LearnC: true,
			LinkPred: true, Input: x, Adj: a}, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := TrainLinkPrediction(context.Background(), net, s, LPConfig{Epochs: 150, LR: 0.01,
			Decoder: FermiDirac{R: 2, T: 1}, Workers: workers}, rand.New(rand.NewPCG(4, 4)), rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	r1, r2 := run(1), run(2)
	if r1.TestROC != r2.TestROC || r1.TestAP != r2.TestAP {
		t.Fatal("different results with 1 and 2 workers")
	}
	if r1.TestROC < 0.8 || r1.TestAP < 0.75 {
		t.Fatalf("test ROC-AUC %.3f AP %.3f, want ≥ 0.8 and 0.75 on a graph of four communities", r1.TestROC, r1.TestAP)
	}
	t.Logf("test ROC-AUC %.3f AP %.3f at epoch %d, c %.3f", r1.TestROC, r1.TestAP, r1.StopEpoch, r1.Curvature)
}
