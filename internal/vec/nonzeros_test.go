package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// CompressNonzeros against the loop, on every path, for
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
			for l, v := range x {
				if v != 0 {
					wantIdx, wantVal = append(wantIdx, int32(l)), append(wantVal, v)
				}
			}
			name := fmt.Sprintf("n=%d density=%g", n, density)
			forEachPath(t, func(arch Arch) {
				idx, val := make([]int32, n+CompressSlack), make([]float64, n+CompressSlack)
				k := CompressNonzeros(x, idx, val)
				if k != len(wantIdx) || !slices.Equal(idx[:k], wantIdx) {
					t.Fatalf("%s, %s: %d non-zeros at %v, want %v", name, arch, k, idx[:k], wantIdx)
				}
				for p := range k {
					if math.Float64bits(val[p]) != math.Float64bits(wantVal[p]) {
						t.Fatalf("%s, %s: value %d = %v, want %v", name, arch, p, val[p], wantVal[p])
					}
				}
			})
		}
	}
}

// CompressNonzeros in guard bands, on every path: every length 0–70 at
// every offset, with ±0, ±Inf and NaNs. x is read only within itself (the
// cells around it are NaNs, which would count as non-zeros), idx and val
// are written only within their len(x) + CompressSlack entries, and x
// never.
func TestNonzerosGuarded(t *testing.T) {
	const g = 16
	r := rand.New(rand.NewPCG(53, 54))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN()}
	for n := 0; n <= maxGuardLen; n++ {
		for off := 0; off < 8; off++ {
			xb := make([]float64, g+off+n+g)
			for i := range xb {
				xb[i] = math.NaN()
			}
			x := xb[g+off : g+off+n : g+off+n]
			for l := range x {
				switch u := r.IntN(4); {
				case u == 0:
					x[l] = special[r.IntN(len(special))]
				case u == 1:
					x[l] = 0
				default:
					x[l] = 2*r.Float64() - 1
				}
			}
			x0 := slices.Clone(xb)
			var wantIdx []int32
			var wantVal []float64
			for l, v := range x {
				if v != 0 {
					wantIdx, wantVal = append(wantIdx, int32(l)), append(wantVal, v)
				}
			}
			name := fmt.Sprintf("n=%d off=%d", n, off)
			forEachPath(t, func(arch Arch) {
				m := n + CompressSlack
				ib, vb := make([]int32, g+m+g), make([]float64, g+m+g)
				for i := range ib {
					ib[i] = -7
				}
				for i := range vb {
					vb[i] = -7
				}
				k := CompressNonzeros(x, ib[g:g+m:g+m], vb[g:g+m:g+m])
				if k != len(wantIdx) || !slices.Equal(ib[g:g+k], wantIdx) {
					t.Fatalf("%s, %s: %d non-zeros at %v, want %v", name, arch, k, ib[g:g+k], wantIdx)
				}
				for p := range k {
					if math.Float64bits(vb[g+p]) != math.Float64bits(wantVal[p]) {
						t.Fatalf("%s, %s: value %d = %v, want %v", name, arch, p, vb[g+p], wantVal[p])
					}
				}
				for i := range ib {
					if (i < g || i >= g+m) && (ib[i] != -7 || vb[i] != -7) {
						t.Fatalf("%s, %s: wrote idx or val %d entries outside", name, arch, i-g)
					}
				}
				if !slices.EqualFunc(xb, x0, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
					t.Fatalf("%s, %s: changed x", name, arch)
				}
			})
		}
	}
}
