package gnn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/internal/cputime"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Benchmarks of one training run (benchEpochs epochs, each a training step
// and an evaluation pass) on a synthetic problem of Pubmed's size: 19 717
// nodes, 500 features with 50 stored per row, 44 000 random undirected
// edges plus self loops (normalised), 3 classes, 60/500/1000 labelled
// nodes. They report s/epoch and cpu-s/epoch; docs/performance.md quotes them.
//
//	go test -run '^$' -bench PubmedLike -benchtime 1x ./nn/gnn

const benchEpochs = 10

// pubmedLike returns the synthetic Pubmed-sized problem (the same for
// every call).
func pubmedLike(b *testing.B) *Data {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	n, f, perRow, edges := 19717, 500, 50, 44000
	ri, ci, v := make([]int, 0, n*perRow), make([]int, 0, n*perRow), make([]float64, 0, n*perRow)
	for i := 0; i < n; i++ {
		for k := 0; k < perRow; k++ {
			ri, ci, v = append(ri, i), append(ci, rng.IntN(f)), append(v, rng.Float64())
		}
	}
	x, err := sparse.FromCOO(n, f, ri, ci, v)
	if err != nil {
		b.Fatal(err)
	}
	ri, ci, v = ri[:0], ci[:0], v[:0]
	for k := 0; k < edges; k++ {
		i, j := rng.IntN(n), rng.IntN(n)
		ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, 1, 1)
	}
	a, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		b.Fatal(err)
	}
	if a, err = sparse.SymNormalize(a); err != nil {
		b.Fatal(err)
	}
	d := &Data{A: a, X: x, Classes: 3, Labels: make([]int, n)}
	for i := range d.Labels {
		d.Labels[i] = rng.IntN(3)
	}
	for i := 0; i < 60; i++ {
		d.Train = append(d.Train, i)
	}
	for i := 60; i < 560; i++ {
		d.Val = append(d.Val, i)
	}
	for i := 1000; i < 2000; i++ {
		d.Test = append(d.Test, i)
	}
	return d
}

// benchTrain times b.N training runs of the model newModel builds (its
// construction excluded) on 2 workers and reports wall seconds per epoch
// and the process's CPU seconds per epoch (user + system, which the other
// work of a busy machine changes less than the wall time).
func benchTrain(b *testing.B, d *Data, lr float64, newModel func(rng *rand.Rand) (Model, error)) {
	b.Helper()
	benchTrainEpochs(b, d, lr, benchEpochs, newModel)
}

// benchTrainEpochs is benchTrain with runs of the given number of epochs.
func benchTrainEpochs(b *testing.B, d *Data, lr float64, benchEpochs int, newModel func(rng *rand.Rand) (Model, error)) {
	b.Helper()
	var total, cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		rng := rand.New(rand.NewPCG(3, 4))
		m, err := newModel(rng)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start, cpu0 := time.Now(), cputime.Process()
		if _, err := Train(context.Background(), m, d, Config{Epochs: benchEpochs, LR: lr, Stopping: "accuracy", Workers: 2}, rng); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		cpu += cputime.Process() - cpu0
	}
	epochs := float64(b.N * benchEpochs)
	b.ReportMetric(total.Seconds()/epochs, "s/epoch")
	b.ReportMetric(cpu.Seconds()/epochs, "cpu-s/epoch")
}

// BenchmarkGATPubmedLike is table1's GAT on Pubmed: 8 heads × 8 units, 8
// output heads.
func BenchmarkGATPubmedLike(b *testing.B) {
	d := pubmedLike(b)
	benchTrain(b, d, 0.01, func(rng *rand.Rand) (Model, error) { return NewGAT(d, 8, 8, 8, 0.6, 0.001, rng) })
}

// BenchmarkGCNPubmedLike is table1's GCN: hidden 16.
func BenchmarkGCNPubmedLike(b *testing.B) {
	d := pubmedLike(b)
	benchTrain(b, d, 0.01, func(rng *rand.Rand) (Model, error) { return NewGCN(d, 16, 0.5, 5e-4, rng) })
}

// BenchmarkHyLaGCNPubmedLike is table1's HyLa-GCN on Pubmed: level
// features, d0 = 16, 250 HyLa features.
func BenchmarkHyLaGCNPubmedLike(b *testing.B) {
	d := pubmedLike(b)
	benchTrain(b, d, 0.01, func(rng *rand.Rand) (Model, error) {
		fm, err := hyla.NewHyLa(hyla.SampleHyLa(rng, 250, 16, 0.1), hyla.ConventionCode)
		if err != nil {
			return nil, err
		}
		fm.SetWorkers(2)
		return NewHyLaGCN(d, HyLaGCNConfig{Map: fm, Z0: hylaInit(rng, d.X.Cols, 16, 0.05), Level: "features", LREmbedding: 0.5,
			Center: true, Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4}, rng)
	})
}

// r8Like returns a synthetic problem of R8's corpus-graph size (the same
// for every call): 15 362 nodes (7 674 documents, then 7 688 words) with
// one-hot inputs, a symmetric normalised adjacency of about 3.5 million
// stored entries (random pairs plus self loops), 8 classes,
// 5 485/500/2 189 labelled documents.
func r8Like(b *testing.B) *Data {
	b.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	docs, n, pairs := 7674, 15362, 1_750_000
	ri, ci := make([]int, 0, 2*pairs+n), make([]int, 0, 2*pairs+n)
	for i := range n {
		ri, ci = append(ri, i), append(ci, i)
	}
	for range pairs {
		i, j := rng.IntN(n), rng.IntN(n)
		ri, ci = append(ri, i, j), append(ci, j, i)
	}
	a, err := sparse.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		b.Fatal(err)
	}
	if a, err = sparse.SymNormalize(a); err != nil {
		b.Fatal(err)
	}
	x := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, n), Data: make([]float64, n)}
	for i := range n {
		x.Indptr[i+1], x.Indices[i], x.Data[i] = i+1, int32(i), 1
	}
	d := &Data{A: a, X: x, Classes: 8, Labels: make([]int, n)}
	for i := range d.Labels {
		d.Labels[i] = -1
		if i < docs {
			d.Labels[i] = rng.IntN(8)
		}
	}
	for i := range 5485 {
		d.Train = append(d.Train, i)
	}
	for i := 5485; i < 5985; i++ {
		d.Val = append(d.Val, i)
	}
	for i := docs - 2189; i < docs; i++ {
		d.Test = append(d.Test, i)
	}
	return d
}

// BenchmarkTextGCNR8Like is table2's TextGCN on R8: hidden 200, dropout
// 0.5, learning rate 0.02; 3 epochs a run.
//
//	go test -run '^$' -bench TextGCNR8Like -benchtime 1x ./nn/gnn
func BenchmarkTextGCNR8Like(b *testing.B) {
	d := r8Like(b)
	benchTrainEpochs(b, d, 0.02, 3, func(rng *rand.Rand) (Model, error) { return NewTextGCN(d, 200, 0.5, 0, rng) })
}

// BenchmarkMulDenseR8Like times one product of TextGCN's layers alone on
// the R8-sized graph: by a 200-column matrix (the first layer's, 24.6 MB,
// larger than the caches: 3.5 million rows of 1600 bytes gathered) and by
// an 8-column one (the second layer's). cpu-ms/op is the process CPU time.
//
//	go test -run '^$' -bench MulDenseR8Like -benchtime 10x -cpu 1 ./nn/gnn
func BenchmarkMulDenseR8Like(b *testing.B) {
	d := r8Like(b)
	rng := rand.New(rand.NewPCG(7, 8))
	for _, w := range []int{200, 8} {
		x := mat.NewDense(d.A.Cols, w, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
		out := mat.NewDense(d.A.Rows, w, nil)
		b.Run(fmt.Sprintf("cols=%d", w), func(b *testing.B) {
			cpu0 := cputime.Process()
			for b.Loop() {
				if err := sparse.MulDenseTo(context.Background(), d.A, x, out, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
