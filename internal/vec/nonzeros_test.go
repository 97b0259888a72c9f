package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// CompressNonzeros and CountNonzeros against the loop, on every path, for
// every length 0–70 (the kernels' blocks and masked tails), at densities
// from none to all, with −0, +0 and NaNs.
func TestNonzerosSameAsLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for n := 0; n <= 70; n++ {
		for _, density := range []float64{0, 0.1, 0.5, 0.9, 1} {
			x := make([]float64, n)
			for l := range x {
				switch u := r.Float64(); {
				case u >= density:
					x[l] = []float64{0, math.Copysign(0, -1)}[r.IntN(2)]
				case u < density/10:
					x[l] = math.NaN()
				default:
					x[l] = 2*r.Float64() - 1
				}
			}
			var wantIdx []int32
			var wantVal []float64
			wantCnt := make([]int, n)
			for l, v := range x {
				if v != 0 {
					wantIdx, wantVal = append(wantIdx, int32(l)), append(wantVal, v)
					wantCnt[l] = 3
				} else {
					wantCnt[l] = 2
				}
			}
			name := fmt.Sprintf("n=%d density=%g", n, density)
			forEachPath(t, func(arch Arch) {
				idx, val := make([]int32, n+CompressSlack), make([]float64, n+CompressSlack)
				k := CompressNonzeros(x, idx, val)
				cnt := make([]int, n)
				for l := range cnt {
					cnt[l] = 2
				}
				CountNonzeros(x, cnt)
				if k != len(wantIdx) || !slices.Equal(idx[:k], wantIdx) {
					t.Fatalf("%s, %s: %d non-zeros at %v, want %v", name, arch, k, idx[:k], wantIdx)
				}
				for p := range k {
					if math.Float64bits(val[p]) != math.Float64bits(wantVal[p]) {
						t.Fatalf("%s, %s: value %d = %v, want %v", name, arch, p, val[p], wantVal[p])
					}
				}
				if !slices.Equal(cnt, wantCnt) {
					t.Fatalf("%s, %s: counts %v, want %v", name, arch, cnt, wantCnt)
				}
			})
		}
	}
}
