//go:build goexperiment.simd && amd64

package train

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowDotsAVX512 compares the assembly row products with plain sums
// for lengths with and without a tail and 1…9 classes (groups of four and
// single classes).
func TestRowDotsAVX512(t *testing.T) {
	if !rowDotsVecOK {
		t.Skip("CPU without AVX-512")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{1, 7, 8, 9, 64, 3703} {
		for c := 1; c <= 9; c++ {
			stride := d + 3
			x := make([]float64, d)
			y := make([]float64, c*stride)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			out := make([]float64, c)
			rowDotsAVX512(x, y, stride, out)
			for k := 0; k < c; k++ {
				var want, scale float64
				for j := 0; j < d; j++ {
					want += x[j] * y[k*stride+j]
					scale += math.Abs(x[j] * y[k*stride+j])
				}
				if math.Abs(out[k]-want) > 1e-14*scale {
					t.Errorf("d=%d, C=%d, class %d: %v, want %v", d, c, k, out[k], want)
				}
			}
		}
	}
}
