package viz

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkTSNEGradient measures one exact gradient evaluation at Cora's size
// (2708 points, 7.3 million ordered pairs) in 2-D.
func BenchmarkTSNEGradient(b *testing.B) {
	const n, dims = 2708, 2
	x, _ := gaussianClusters(1, 7, n/7+1, 10, 4)
	x = x.Slice(0, n, 0, 10).(*mat.Dense)
	p, _, _, err := jointProbabilities(context.Background(), x, 30, 2)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	y := make([]float64, n*dims)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[w], func(b *testing.B) {
			st := &tsneState{n: n, dims: dims, p: p, y: y, workers: w, grad: make([]float64, n*dims),
				rowZ: make([]float64, n), rep: make([]float64, n*dims)}
			for b.Loop() {
				st.gradient(1)
			}
		})
	}
}
