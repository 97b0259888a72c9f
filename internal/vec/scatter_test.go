package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ScatterRow against the plain loop, on every path: widths around the
// kernel's one- and four-block groups, repeated rows (two entries adding
// into one row in order), −0 values, and a stride past the width.
func TestScatterRowSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const rows = 12
	for _, w := range []int{1, 3, 7, 8, 9, 16, 24, 31, 32, 33, 40, 64, 71} {
		for _, nnz := range []int{0, 1, 5, 40} {
			stride := w + 2
			dst0 := randSlice(r, rows*stride, 1)
			src := randSlice(r, w, 1)
			idx := make([]int32, nnz)
			for k := range idx {
				idx[k] = int32(r.IntN(rows))
			}
			val := randSlice(r, nnz, 2)
			if nnz > 1 {
				val[1] = math.Copysign(0, -1)
			}
			want := append([]float64(nil), dst0...)
			for k, j := range idx {
				for q, y := range src {
					want[int(j)*stride+q] += float64(val[k] * y)
				}
			}
			res := onEveryPath(t, func() []float64 {
				dst := append([]float64(nil), dst0...)
				ScatterRow(idx, val, src, dst, stride)
				return dst
			})
			res[-1] = want
			sameBits(t, fmt.Sprintf("ScatterRow w=%d nnz=%d", w, nnz), res)
		}
	}
}

func TestScatterRowBadRow(t *testing.T) {
	forEachPath(t, func(arch Arch) {
		for _, bad := range []int32{4, -1} {
			dst := make([]float64, 4*16)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: row %d of 4: no panic", arch, bad)
					}
				}()
				ScatterRow([]int32{0, bad}, []float64{1, 1}, randSlice(rand.New(rand.NewPCG(1, 2)), 16, 1), dst, 16)
			}()
			for k, x := range dst {
				if x != 0 {
					t.Errorf("%s: row %d: dst[%d] written before the panic", arch, bad, k)
					break
				}
			}
		}
	})
}

// ScatterRow in guard bands: every width 0–70 at every offset (the AVX2
// kernel's groups of 8, 4, 2 and 1 quads and the columns past them, the
// AVX-512 kernel's blocks), the last row of dst ending at its guard, rows
// repeated, and −0, ±Inf and NaN among the values and the source.
func TestGuardScatterRow(t *testing.T) {
	special := []float64{math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 0}
	forLengths(t, 33, func(t *testing.T, r *rand.Rand, w, off int) {
		const nrows = 5
		stride := w + 3
		for _, nnz := range []int{1, 3, 9} {
			idx := make([]int32, nnz)
			for k := range idx {
				idx[k] = int32(r.IntN(nrows))
			}
			idx[nnz/2] = nrows - 1 // the last row, which ends at the guard
			fill := func(scale float64) func(int) float64 {
				return func(int) float64 {
					if r.IntN(8) == 0 {
						return special[r.IntN(len(special))]
					}
					return scale * (2*r.Float64() - 1)
				}
			}
			args := []*arg{
				newArg("val", nnz, o2(off), fill(2), nil),
				newArg("src", w, o3(off), fill(1), nil),
				newArg("dst", (nrows-1)*stride+w, off, uniform(r, 5), rows(nrows, stride, w)),
			}
			checkGuarded(t, fmt.Sprintf("ScatterRow w=%d off=%d nnz=%d", w, off, nnz), args, func(s [][]float64) ([]float64, bool) {
				ScatterRow(idx, s[0], s[1], s[2], stride)
				return nil, true
			})
		}
	})
}
