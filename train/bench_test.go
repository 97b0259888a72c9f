package train

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchData mimics a Planetoid citation graph's feature-level shapes: n
// nodes, d features, C classes, 20 training nodes per class, 500 validation
// and 1000 test nodes.
func benchData(n, d, c int) *Data {
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(n, d, nil)
	raw := x.RawMatrix().Data
	for i := range raw {
		raw[i] = rng.Float64() * 0.01
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % c
	}
	perm := rng.Perm(n)
	return &Data{X: x, Labels: labels, Train: perm[:20*c], Val: perm[20*c : 20*c+500], Test: perm[20*c+500 : 20*c+1500]}
}

// BenchmarkEpochFeatureLevel measures one HyLa-SGC epoch at the feature
// level with Cora's (d = 1433, D = 100) and Citeseer's (d = 3703, D = 500) shapes.
func BenchmarkEpochFeatureLevel(b *testing.B) {
	for _, tc := range []struct {
		name       string
		n, d, c, D int
	}{{"cora", 2708, 1433, 7, 100}, {"citeseer", 3327, 3703, 6, 500}} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(b *testing.B) {
				data := benchData(tc.n, tc.d, tc.c)
				fm := featureMap(b, ModelHyLa, 1, tc.D, 16, 0.01)
				cfg := Config{Model: ModelHyLa, Level: LevelFeatures, Epochs: 1, LREmbedding: 0.05, LRClassifier: 0.01, Workers: workers}
				tr, err := newTrainer(data, fm, nil, cfg, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					b.Fatal(err)
				}
				benchEpochs(b, tr)
			})
		}
	}
}

// benchEpochs runs b.N epochs of tr after a first forward pass and reports
// the process CPU time per epoch (steadier than wall time on a shared
// machine).
func benchEpochs(b *testing.B, tr *trainer) {
	ctx := context.Background()
	if err := tr.forward(ctx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu0 := benchCPU()
	for i := 0; i < b.N; i++ {
		if err := tr.epoch(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(benchCPU()-cpu0)/float64(b.N)/1e6, "cpu-ms/epoch")
}

// benchCPU returns the process's user+system CPU time in nanoseconds.
func benchCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkRedditProducts measures the two products of a Reddit-scale
// inductive epoch on 20,000 of its 153,431 training rows (602 features,
// 41 classes): the logits X·Y (rowsProductRange) and (∂L/∂Y)ᵀ = Gᵀ·X
// (gtx), one worker; "gemm" is gonum's (or, with -tags openblas, OpenBLAS's)
// tiled product for comparison.
func BenchmarkRedditProducts(b *testing.B) {
	const n, d, c = 20000, 602, 41
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(n, d, nil)
	for i, raw := 0, x.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = rng.NormFloat64()
	}
	yT, g := mat.NewDense(c, d, nil), mat.NewDense(n, c, nil)
	for _, m := range []*mat.Dense{yT, g} {
		for i, raw := 0, m.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = rng.NormFloat64()
		}
	}
	logits, gyT := mat.NewDense(n, c, nil), mat.NewDense(c, d, nil)
	tr := &trainer{workers: 1, classes: c, xTrain: x, g: g, gyT: gyT}
	ctx := context.Background()
	gflop := 2 * float64(n) * d * c / 1e9
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"logits/rows", func() { rowsProductRange(x, nil, yT, logits, 0, n) }},
		{"logits/gemm", func() { gemm(false, true, x, yT, logits, 1) }},
		{"gtx/kernel", func() {
			if err := tr.gtx(ctx); err != nil {
				b.Fatal(err)
			}
		}},
		{"gtx/gemm", func() { gemm(true, false, g, x, gyT, 1) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cpu0 := benchCPU()
			for i := 0; i < b.N; i++ {
				tc.f()
			}
			b.ReportMetric(gflop*float64(b.N)/(float64(benchCPU()-cpu0)/1e9), "GFLOP/cpu-s")
		})
	}
}

// BenchmarkEpochSparseInput measures one inductive text epoch at R8's
// shape (4937 training documents × 7688 words, 0.5 % non-zero TF-IDF
// rows, 8 classes; HyLa D = 500, d0 = 50) with the sparse input path and
// with the dense one (the same bits; sparse_input.go), one worker.
func BenchmarkEpochSparseInput(b *testing.B) {
	const n, d, c = 7674, 7688, 8
	rng := rand.New(rand.NewPCG(1, 2))
	x := sparseDense(rng, n, d, 0.005)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(c)
	}
	perm := rng.Perm(n)
	data := &Data{X: x, Labels: labels, Train: perm[:4937], Val: perm[4937:5485], Test: perm[5485:]}
	for _, model := range []Model{ModelSGC, ModelHyLa} {
		for _, dense := range []bool{false, true} {
			path := "sparse"
			if dense {
				path = "dense"
			}
			b.Run(fmt.Sprintf("%s/%s", model, path), func(b *testing.B) {
				denseInputOnly = dense
				defer func() { denseInputOnly = false }()
				cfg := Config{Model: model, Level: LevelFeatures, Epochs: 1, LREmbedding: 0.001, LRClassifier: 0.0001, Workers: 1}
				tr, err := newTrainer(data, featureMap(b, model, 1, 500, 50, 0.5), nil, cfg, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					b.Fatal(err)
				}
				if (tr.sparse == nil) != dense {
					b.Fatalf("sparse path taken: %v, want %v", tr.sparse != nil, !dense)
				}
				benchEpochs(b, tr)
			})
		}
	}
}
