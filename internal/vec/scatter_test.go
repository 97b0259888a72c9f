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
