package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMatMulSkipZerosSameBits checks MatMul's products over A's non-zeros
// against gonum's Dgemm (mat.Dense.Mul, the native BLAS) bit for bit: A·B
// and Aᵀ·B for shapes around the kernels' 4- and 8-column blocks and
// gonum's 64-wide parallel blocks, A with zeros of both signs (a hidden
// layer after ReLU and dropout), infinities in B, 1 and 3 workers.
func TestMatMulSkipZerosSameBits(t *testing.T) {
	if !nativeBLAS() {
		t.Skip("blas64 is not gonum's native BLAS (openblas build): MatMul calls it")
	}
	rng := rand.New(rand.NewPCG(43, 44))
	for _, sh := range []struct{ r, k, n int }{
		{1, 1, 1}, {3, 5, 2}, {7, 13, 4}, {17, 9, 8}, {40, 33, 12}, {65, 200, 52}, {300, 130, 1}, {260, 70, 47},
	} {
		a := randDense(rng, sh.r, sh.k)
		for i := 0; i < sh.r; i++ {
			for l := 0; l < sh.k; l++ {
				switch rng.IntN(4) {
				case 0:
					a.Set(i, l, 0)
				case 1:
					a.Set(i, l, math.Copysign(0, -1))
				}
			}
		}
		b := randDense(rng, sh.k, sh.n)
		if sh.k > 2 {
			b.Set(1, 0, math.Inf(1))
			b.Set(2, 0, math.Inf(-1))
		}
		g := randDense(rng, sh.r, sh.n)
		for _, workers := range []int{1, 3} {
			name := fmt.Sprintf("%dx%d·%dx%d/%d workers", sh.r, sh.k, sh.k, sh.n, workers)
			tp := New(workers)
			want := mat.NewDense(sh.r, sh.n, nil)
			want.Mul(a, b)
			got := mat.NewDense(sh.r, sh.n, nil)
			tp.mulSkipZeros(a, b, got)
			if d := firstBitDiff(got, want); d != "" {
				t.Errorf("%s: A·B %s", name, d)
			}
			wantT := mat.NewDense(sh.k, sh.n, nil)
			wantT.Mul(a.T(), g)
			gotT := mat.NewDense(sh.k, sh.n, nil)
			for i := range gotT.RawMatrix().Data {
				gotT.RawMatrix().Data[i] = math.NaN() // every entry is written
			}
			tp.mulTransSkipZeros(a, g, gotT)
			if d := firstBitDiff(gotT, wantT); d != "" {
				t.Errorf("%s: Aᵀ·G %s", name, d)
			}
		}
	}
}
