package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/vec"
)

// TestRowDotsAVX512 compares the assembly row products with plain sums
// for lengths with and without a tail and 1…9 classes (groups of four and
// single classes).
func TestRowDotsAVX512(t *testing.T) {
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
			vec.RowDots(x, y, stride, out)
			// Four rows at once give the bits of the one-row kernel.
			var xs, os [4][]float64
			for r := range xs {
				xs[r], os[r] = make([]float64, d), make([]float64, c)
				for j := range xs[r] {
					xs[r][j] = rng.NormFloat64()
				}
			}
			rowDots4AVX512(&xs, y, stride, &os)
			for r := range os {
				one := make([]float64, c)
				vec.RowDots(xs[r], y, stride, one)
				for k := range one {
					if math.Float64bits(os[r][k]) != math.Float64bits(one[k]) {
						t.Fatalf("d=%d, C=%d: four-row kernel, row %d class %d: %v, one-row %v", d, c, r, k, os[r][k], one[k])
					}
				}
			}
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

// TestGtxAVX512 compares Gᵀ·X from the assembly with plain sums, whole and
// split into column ranges at multiples of 32 (the same bits either way),
// with tiles, row chunks and class groups of four complete or not.
func TestGtxAVX512(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ n, c, d int }{{1, 1, 3}, {7, 6, 37}, {120, 6, 3703}, {13, 41, 64}, {9, 3, 8}, {300, 41, 602}, {5, 2, 100}} {
		g := make([]float64, tc.n*tc.c)
		x := make([]float64, tc.n*tc.d)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		whole := make([]float64, tc.c*tc.d)
		gtxRangeAVX512(g, x, whole, make([]float64, gtxPackLen(tc.c)), tc.c, tc.d, tc.d, tc.n, tc.c, 0, tc.d)
		split := make([]float64, tc.c*tc.d)
		for j0 := 0; j0 < tc.d; j0 += 64 {
			gtxRangeAVX512(g, x, split, make([]float64, gtxPackLen(tc.c)), tc.c, tc.d, tc.d, tc.n, tc.c, j0, min(j0+64, tc.d))
		}
		for k := 0; k < tc.c; k++ {
			for j := 0; j < tc.d; j++ {
				var want, scale float64
				for r := 0; r < tc.n; r++ {
					want += g[r*tc.c+k] * x[r*tc.d+j]
					scale += math.Abs(g[r*tc.c+k] * x[r*tc.d+j])
				}
				got := whole[k*tc.d+j]
				if math.Abs(got-want) > 1e-14*scale {
					t.Fatalf("n=%d C=%d d=%d: entry (%d,%d) = %v, want %v", tc.n, tc.c, tc.d, k, j, got, want)
				}
				if math.Float64bits(got) != math.Float64bits(split[k*tc.d+j]) {
					t.Fatalf("n=%d C=%d d=%d: entry (%d,%d) differs when the columns are split", tc.n, tc.c, tc.d, k, j)
				}
			}
		}
	}
}
