package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// GonumDots is a row of gonum's A·Bᵀ (native BLAS, serial and parallel
// paths: up to 64 inner terms, blocks of 64 in m and n) bit for bit, on
// every path (on amd64, where gonum's DotUnitary is the assembly whose sums
// GonumDots copies; elsewhere the paths against each other): inner lengths 1–64 (whole groups of four and tails), column
// counts around the kernel's blocks, zeros, −0 and a NaN.
func TestGonumDotsIsGonumGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, k := range []int{1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 33, 64} {
		for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 31, 32, 33, 40, 100, 250, 300} {
			m := 3
			if n == 300 {
				m = 200 // gonum's parallel path (four or more 64×64 blocks)
			}
			a, b := mat.NewDense(m, k, randSlice(r, m*k, 1)), mat.NewDense(n, k, randSlice(r, n*k, 3))
			a.Set(0, 0, 0)
			a.Set(m-1, k-1, math.Copysign(0, -1))
			if n > 7 {
				b.Set(7, 0, math.NaN())
			}
			want := make([]float64, m*n) // gonum's native Dgemm, whatever blas64 is
			gonum.Implementation{}.Dgemm(blas.NoTrans, blas.Trans, m, n, k, 1, a.RawMatrix().Data, k, b.RawMatrix().Data, k, 0, want, n)
			bt := mat.DenseCopyOf(b.T())
			res := onEveryPath(t, func() []float64 {
				out := make([]float64, 0, m*n)
				for i := range m {
					c := make([]float64, n)
					GonumDots(a.RawRowView(i), bt.RawMatrix().Data, n, c)
					out = append(out, c...)
				}
				return out
			})
			if runtime.GOARCH == "amd64" { // gonum's DotUnitary in amd64 assembly, GonumDots' definition
				res[-1] = want
			}
			sameBits(t, fmt.Sprintf("GonumDots k=%d n=%d", k, n), res)
		}
	}
}

// GonumDots in guard bands, every path against the portable code: every
// column count 0–70 at every offset (the blocks of eight and the masked
// last 1–7 columns), inner lengths around the groups of four, the last row
// of bt ending at its guard, and −0 and either ±Inf in a or NaN in bt (not
// both: a sum of two NaNs of different payloads, the default one of
// Inf − Inf and math.NaN()'s, keeps whichever the compiler made the first
// operand, which the portable code does not pin down; the paths differ
// there and nowhere else).
func TestGuardGonumDots(t *testing.T) {
	forLengths(t, 43, func(t *testing.T, r *rand.Rand, n, off int) {
		for i, k := range []int{0, 1, 3, 4, 5, 9, 16, 64} {
			stride := n + 2
			aSpecial, btSpecial := []float64{math.Copysign(0, -1), math.Inf(1), math.Inf(-1)}, []float64{math.Copysign(0, -1)}
			if i%2 == 1 {
				aSpecial, btSpecial = []float64{math.Copysign(0, -1)}, []float64{math.Copysign(0, -1), math.NaN()}
			}
			fill := func(special []float64) func(int) float64 {
				return func(int) float64 {
					if r.IntN(10) == 0 {
						return special[r.IntN(len(special))]
					}
					return 2*r.Float64() - 1
				}
			}
			args := []*arg{
				newArg("a", k, o2(off), fill(aSpecial), nil),
				newArg("bt", max(0, (k-1)*stride+n), o3(off), fill(btSpecial), nil),
				newArg("c", n, off, uniform(r, 5), every),
			}
			checkGuarded(t, fmt.Sprintf("GonumDots k=%d n=%d off=%d", k, n, off), args, func(s [][]float64) ([]float64, bool) {
				GonumDots(s[0], s[1], stride, s[2])
				return nil, true
			})
		}
	})
}
