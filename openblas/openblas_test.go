package openblas

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func randGeneral(rng *rand.Rand, r, c int) blas64.General {
	d := make([]float64, r*c)
	for i := range d {
		d[i] = rng.NormFloat64()
	}
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: d}
}

// TestGemmMatchesNaiveAndIsDeterministic runs the training's product shapes
// (X·Yᵀ and Gᵀ·X, at a reduced row count) through blas64 — OpenBLAS under
// the openblas tag, gonum otherwise — checks them against a plain triple
// loop, and checks that eight concurrent calls give bit-identical results
// (OpenBLAS must run single-threaded and deterministically).
func TestGemmMatchesNaiveAndIsDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d, c = 1000, 602, 41
	x := randGeneral(rng, n, d)
	yT := randGeneral(rng, c, d)
	g := randGeneral(rng, n, c)
	for _, tc := range []struct {
		name   string
		ta, tb blas.Transpose
		a, b   blas64.General
		m, k   int
		cols   int
		at     func(i, l int) float64
		bt     func(l, j int) float64
	}{
		{"logits X·Yᵀ", blas.NoTrans, blas.Trans, x, yT, n, d, c,
			func(i, l int) float64 { return x.Data[i*d+l] }, func(l, j int) float64 { return yT.Data[j*d+l] }},
		{"gradient Gᵀ·X", blas.Trans, blas.NoTrans, g, x, c, n, d,
			func(i, l int) float64 { return g.Data[l*c+i] }, func(l, j int) float64 { return x.Data[l*d+j] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func() blas64.General {
				out := blas64.General{Rows: tc.m, Cols: tc.cols, Stride: tc.cols, Data: make([]float64, tc.m*tc.cols)}
				blas64.Gemm(tc.ta, tc.tb, 1, tc.a, tc.b, 0, out)
				return out
			}
			ref := run()
			for i := 0; i < tc.m; i++ {
				for j := 0; j < tc.cols; j++ {
					var want, scale float64
					for l := 0; l < tc.k; l++ {
						p := tc.at(i, l) * tc.bt(l, j)
						want += p
						scale += math.Abs(p)
					}
					if got := ref.Data[i*tc.cols+j]; math.Abs(got-want) > 1e-13*scale {
						t.Fatalf("%s (%d,%d) = %v, want %v (%s)", tc.name, i, j, got, want, Name())
					}
				}
			}
			outs := make([]blas64.General, 8)
			var wg sync.WaitGroup
			for w := range outs {
				wg.Add(1)
				go func() { defer wg.Done(); outs[w] = run() }()
			}
			wg.Wait()
			for w, o := range outs {
				for p, v := range o.Data {
					if math.Float64bits(v) != math.Float64bits(ref.Data[p]) {
						t.Fatalf("concurrent call %d: entry %d = %v, first call %v (%s)", w, p, v, ref.Data[p], Name())
					}
				}
			}
		})
	}
}
