package hgcn

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hylaflow/hylaflow/datasets/planetoid"
	"github.com/hylaflow/hylaflow/internal/cputime"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/sparse"
)

// The benchmarks time one epoch of each model on Pubmed, the largest
// graph of Table 1 (19,717 nodes, 44,324 edges, 500 features, 3 classes),
// with table1.hcl's settings: the real files under $HYLAFLOW_DATA (or the
// shared datasets) when present, otherwise a generated graph of the same
// size, degree and feature density (the cost depends only on the shapes and
// the nonzeros, not on the values). An epoch is one Train call of one
// epoch: the training forward and backward pass, the Adam step, the
// evaluation forward pass and the copy of the best parameters.
//
//	go test ./nn/hgcn -run '^$' -bench . -benchtime 5x -cpu 1,2
//
// cpu-s/op is the process's CPU time per epoch (user + system), steadier
// than the wall time on a shared machine; with -cpu 2 it counts both cores.

type pubmedData struct {
	adj, x *sparse.CSR
	split  *Split
	source string
}

var (
	pubmedOnce sync.Once
	pubmed     pubmedData
)

func pubmedGraph(b *testing.B) pubmedData {
	b.Helper()
	pubmedOnce.Do(func() {
		dir := filepath.Join(testenv.DataRoot(), "planetoid")
		if _, err := os.Stat(filepath.Join(dir, "ind.pubmed.graph")); err == nil {
			g, err := planetoid.Load(dir, "pubmed")
			if err != nil {
				b.Fatalf("pubmed: %v", err)
			}
			pubmed = pubmedData{adj: g.Adj, x: sparse.RowNormalize(g.SparseFeatures),
				split:  &Split{Labels: g.Labels, Classes: g.Classes, Train: g.Train, Val: g.Val, Test: g.Test},
				source: "planetoid pubmed files"}
			return
		}
		pubmed = syntheticPubmed()
	})
	b.Logf("graph: %s (%d nodes, %d stored adjacency entries, %d feature nonzeros)",
		pubmed.source, pubmed.adj.Rows, len(pubmed.adj.Data), len(pubmed.x.Data))
	return pubmed
}

// syntheticPubmed is a random graph of Pubmed's shape: 19,717 nodes,
// 44,324 undirected edges, 500 features with 50 nonzeros per row
// (Pubmed's TF-IDF rows hold about 50), 3 classes, Planetoid's split
// (20 per class, 500 validation, 1,000 test).
func syntheticPubmed() pubmedData {
	const n, edges, f, nnz, k = 19717, 44324, 500, 50, 3
	rng := rand.New(rand.NewPCG(22, 19717))
	seen := make(map[Edge]bool, edges)
	var ri, ci []int
	var v []float64
	for len(seen) < edges {
		e, ok := randomPair(n, rng)
		if !ok || seen[e] {
			continue
		}
		seen[e] = true
		ri, ci, v = append(ri, e.I, e.J), append(ci, e.J, e.I), append(v, 1, 1)
	}
	adj, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		panic(err)
	}
	ri, ci, v = ri[:0], ci[:0], v[:0]
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = rng.IntN(k)
		for _, j := range rng.Perm(f)[:nnz] {
			ri, ci, v = append(ri, i), append(ci, j), append(v, rng.Float64())
		}
	}
	x, err := sparse.FromCOO(n, f, ri, ci, v)
	if err != nil {
		panic(err)
	}
	s := &Split{Labels: labels, Classes: k}
	count := make([]int, k)
	for i := 0; i < n; i++ {
		switch {
		case count[labels[i]] < 20:
			count[labels[i]]++
			s.Train = append(s.Train, i)
		case len(s.Val) < 500:
			s.Val = append(s.Val, i)
		case len(s.Test) < 1000:
			s.Test = append(s.Test, i)
		}
	}
	return pubmedData{adj: adj, x: sparse.RowNormalize(x), split: s, source: "synthetic, Pubmed's size"}
}

// BenchmarkEpochPubmed times one node-classification epoch of HNN, HGCN
// and LGCN with table1.hcl's Pubmed settings (dim 16, 2 layers, bias;
// HNN act none, dropout 0.5; HGCN and LGCN relu, dropout 0.5, weight decay
// 0.001, learnt curvature; "hgcn-att" with attention, use_att).
func BenchmarkEpochPubmed(b *testing.B) {
	d := pubmedGraph(b)
	a, err := RowNormalizeSelfLoops(d.adj)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name, act string
		learnC    bool
		wd        float64
	}{
		{"hnn", "none", false, 0},
		{"hgcn", "relu", true, 0.001},
		{"hgcn-att", "relu", true, 0.001},
		{"lgcn", "relu", true, 0.001},
	} {
		b.Run(tc.name, func(b *testing.B) {
			kind := strings.TrimSuffix(tc.name, "-att")
			net, err := New(Config{Kind: kind, Dim: 16, Layers: 2, Act: tc.act, Dropout: 0.5, Bias: true, C: 1, Att: kind != tc.name,
				LearnC: tc.learnC, Classes: d.split.Classes, Input: d.x, Adj: a}, rand.New(rand.NewPCG(0, 1)))
			if err != nil {
				b.Fatal(err)
			}
			cfg := TrainConfig{Epochs: 1, LR: 0.01, WeightDecay: tc.wd, Select: "accuracy", Workers: runtime.GOMAXPROCS(0)}
			rng := rand.New(rand.NewPCG(0, 2))
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Process()
			for i := 0; i < b.N; i++ {
				if _, err := Train(context.Background(), net, d.split, d.adj.Rows, cfg, rng); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkLinkPredEpochPubmed times one link-prediction epoch on Pubmed
// with table1.hcl's settings (HGCN's README command for Pubmed: dim 16,
// 2 layers, relu, dropout 0.4, weight decay 1e-4, c = 1): the encoder on
// the training edges' graph, the Fermi–Dirac loss over the 37,676
// training edges and as many fresh negatives, the step, and the
// validation ROC-AUC and AP.
func BenchmarkLinkPredEpochPubmed(b *testing.B) {
	d := pubmedGraph(b)
	split, err := SplitEdges(d.adj, 0.05, 0.10, rand.New(rand.NewPCG(0, 3)))
	if err != nil {
		b.Fatal(err)
	}
	at, err := split.TrainAdjacency()
	if err != nil {
		b.Fatal(err)
	}
	a, err := RowNormalizeSelfLoops(at)
	if err != nil {
		b.Fatal(err)
	}
	net, err := New(Config{Kind: "hgcn", Dim: 16, Layers: 2, Act: "relu", Dropout: 0.4, Bias: true, C: 1,
		LinkPred: true, Input: d.x, Adj: a}, rand.New(rand.NewPCG(0, 1)))
	if err != nil {
		b.Fatal(err)
	}
	cfg := LPConfig{Epochs: 1, LR: 0.01, WeightDecay: 1e-4, Decoder: FermiDirac{R: 2, T: 1}, Workers: runtime.GOMAXPROCS(0)}
	neg, drop := rand.New(rand.NewPCG(0, 4)), rand.New(rand.NewPCG(0, 5))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		if _, err := TrainLinkPrediction(context.Background(), net, split, cfg, neg, drop); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
