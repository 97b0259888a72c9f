package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Guard-band tests: every kernel, on every path this CPU has, for every
// length 0–70 and the eight offsets of a 64-byte line, is called on slices
// that sit inside larger arrays filled with guard values. After the call
//
//   - no guard cell has changed (nothing was written before or after a
//     slice, whatever its capacity),
//   - no input has changed, and no cell of an output that the kernel's
//     documentation leaves alone (the tail past the last block of eight, the
//     gap between strided rows),
//   - every output cell and every returned value has the bits the portable
//     code gives on plain copies of the same inputs.
//
// The guards are NaNs with a payload that numbers their position, so a
// kernel that reads past an input (a block too many, a stride too long)
// takes a NaN into its sums and fails the comparison too. Inputs are as
// short as the documentation allows (e.g. Ωᵀ ends with the last row's
// last block), so such a read lands in a guard. Every check then runs
// again with finite guards: a store as much too wide as its load (an
// accumulator's read-modify-write under a mask of too many lanes) turns
// a NaN guard into the same NaN, but a finite one into another number,
// and in a parallel kernel that write would race with a neighbour's.

const guardCells = 24 // three blocks of eight on each side

// guardValue is the guard of backing cell i; finiteGuard is the finite
// one of the second round.
func guardValue(i int) float64 { return math.Float64frombits(0x7ff8_dead_0000_0000 | uint64(i)) }

func finiteGuard(i int) float64 { return 1e6 + float64(i) }

// arg is one slice argument of a kernel inside its guarded backing array.
type arg struct {
	name string
	back []float64 // guards, the slice at back[guardCells+off:], guards
	off  int
	n    int
	orig []float64 // back as filled
	// writes reports whether the kernel may write cell i of the slice
	// (nil: an input, never written).
	writes func(i int) bool
}

// newArg places a slice of n values fill(i) at offset off (in elements)
// after the front guard.
func newArg(name string, n, off int, fill func(i int) float64, writes func(i int) bool) *arg {
	back := make([]float64, guardCells+off+n+guardCells)
	for i := range back {
		back[i] = guardValue(i)
	}
	for i := 0; i < n; i++ {
		back[guardCells+off+i] = fill(i)
	}
	return &arg{name: name, back: back, off: off, n: n, orig: slices.Clone(back), writes: writes}
}

// s is the argument as the kernel sees it: length and capacity n.
func (a *arg) s() []float64 {
	lo := guardCells + a.off
	return a.back[lo : lo+a.n : lo+a.n]
}

func (a *arg) reset() { copy(a.back, a.orig) }

// setGuards refills the guard cells (before and after the slice) with
// guard(i), in the original and the working array.
func (a *arg) setGuards(guard func(i int) float64) {
	lo := guardCells + a.off
	for i := range a.orig {
		if i < lo || i >= lo+a.n {
			a.orig[i], a.back[i] = guard(i), guard(i)
		}
	}
}

// plain is a copy of the filled slice in an array of its own.
func (a *arg) plain() []float64 { return slices.Clone(a.orig[guardCells+a.off : guardCells+a.off+a.n]) }

// call runs a kernel on its arguments' slices (in the order given) and
// returns its other results (a count, a bool as 0/1) and whether the
// written cells are defined (RFFExact's are not when it reports false).
type call func(s [][]float64) (extra []float64, defined bool)

// checkGuarded runs f on the guarded arguments on every path the CPU has
// and compares each with the portable code on plain copies.
func checkGuarded(t *testing.T, what string, args []*arg, f call) {
	t.Helper()
	plain := make([][]float64, len(args))
	for i, a := range args {
		plain[i] = a.plain()
	}
	restore, err := Use(Generic)
	if err != nil {
		t.Fatal(err)
	}
	refExtra, refDefined := f(plain)
	restore()
	defer func() {
		for _, a := range args {
			a.setGuards(guardValue)
		}
	}()
	for round, guard := range []func(int) float64{guardValue, finiteGuard} {
		for _, a := range args {
			a.setGuards(guard)
		}
		checkGuardedPaths(t, fmt.Sprintf("%s (guards %s)", what, [2]string{"NaN", "finite"}[round]), args, f, plain, refExtra, refDefined)
	}
}

// checkGuardedPaths is checkGuarded's comparison on every path, with the
// guards args hold.
func checkGuardedPaths(t *testing.T, what string, args []*arg, f call, plain [][]float64, refExtra []float64, refDefined bool) {
	t.Helper()
	for _, path := range Available() {
		for _, a := range args {
			a.reset()
		}
		restore, err := Use(path)
		if err != nil {
			t.Fatal(err)
		}
		s := make([][]float64, len(args))
		for i, a := range args {
			s[i] = a.s()
		}
		extra, defined := f(s)
		restore()
		if !slices.EqualFunc(extra, refExtra, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) || defined != refDefined {
			t.Fatalf("%s on %s: returned %v (defined %v), portable code %v (defined %v)", what, path, extra, defined, refExtra, refDefined)
		}
		for ai, a := range args {
			lo := guardCells + a.off
			for i, v := range a.back {
				got, orig := math.Float64bits(v), math.Float64bits(a.orig[i])
				switch {
				case i < lo || i >= lo+a.n:
					if got != orig {
						t.Fatalf("%s on %s: wrote %v into the guard %d cells %s %s", what, path, v, distance(i, lo, a.n), side(i, lo), a.name)
					}
				case a.writes == nil || !a.writes(i-lo):
					if got != orig {
						t.Fatalf("%s on %s: changed %s[%d] from %v to %v (it may not write there)", what, path, a.name, i-lo, a.orig[i], v)
					}
				case defined:
					if want := math.Float64bits(plain[ai][i-lo]); got != want {
						t.Fatalf("%s on %s: %s[%d] = %v (%#x), portable code %v (%#x)", what, path, a.name, i-lo, v, got, plain[ai][i-lo], want)
					}
				}
			}
		}
	}
}

func distance(i, lo, n int) int {
	if i < lo {
		return lo - i
	}
	return i - (lo + n) + 1
}

func side(i, lo int) string {
	if i < lo {
		return "before"
	}
	return "after"
}

// every is a writes predicate for a whole output; below is one for the
// first n cells.
func every(int) bool { return true }

func below(n int) func(int) bool { return func(i int) bool { return i < n } }

// rows is a writes predicate for the cells k·stride+j, k < nr, j < n.
func rows(nr, stride, n int) func(int) bool {
	return func(i int) bool { return i/stride < nr && i%stride < n }
}

func uniform(r *rand.Rand, scale float64) func(int) float64 {
	return func(int) float64 { return scale * (2*r.Float64() - 1) }
}

// maxGuardLen bounds the lengths: 0–70 is empty, shorter than a block, every
// remainder mod 8 and the assembly's unrolled groups of 4 and 8 blocks.
const maxGuardLen = 70

// forLengths runs f for every length 0–70 and offsets 0–7 (every position
// in a 64-byte line; the other arguments get other offsets).
func forLengths(t *testing.T, seed uint64, f func(t *testing.T, r *rand.Rand, n, off int)) {
	r := rand.New(rand.NewPCG(seed, 99))
	for n := 0; n <= maxGuardLen; n++ {
		for off := 0; off < 8; off++ {
			f(t, r, n, off)
		}
	}
}

// o2 and o3 give the other arguments offsets that differ from off.
func o2(off int) int { return (off*3 + 1) % 8 }
func o3(off int) int { return (off*5 + 2) % 8 }

func TestGuardLinear(t *testing.T) {
	kernels := []struct {
		name string
		f    func(z, omegaT []float64, stride int, q []float64)
	}{{"Dist", Dist}, {"Args", Args}, {"Args2", Args2}}
	for _, k := range kernels {
		forLengths(t, 1, func(t *testing.T, r *rand.Rand, n, off int) {
			nb := n / 8 * 8
			for _, d0 := range []int{0, 1, 2, 3} {
				if k.name == "Dist" && d0 == 0 {
					continue // len(z) ≥ 1
				}
				stride := n + 3
				om := 0
				if nb > 0 && d0 > 0 {
					om = (d0-1)*stride + nb
				}
				args := []*arg{
					newArg("z", d0, o2(off), uniform(r, 0.9), nil),
					newArg("omegaT", om, o3(off), uniform(r, 1), nil),
					newArg("q", n, off, uniform(r, 5), below(nb)),
				}
				checkGuarded(t, fmt.Sprintf("%s n=%d off=%d d0=%d", k.name, n, off, d0), args, func(s [][]float64) ([]float64, bool) {
					k.f(s[0], s[1], stride, s[2])
					return nil, true
				})
			}
		})
	}
}

func TestGuardMath(t *testing.T) {
	forLengths(t, 2, func(t *testing.T, r *rand.Rand, n, off int) {
		nb := n / 8 * 8
		q, lam := hylaInputs(r, nb)
		a := 0.3 + 0.7*r.Float64()
		args := []*arg{
			newArg("q", n, o2(off), func(i int) float64 { return at(q, i, 1) }, nil),
			newArg("lam", nb, o3(off), func(i int) float64 { return lam[i] }, nil),
			newArg("phi", n, off, uniform(r, 1), below(nb)),
			newArg("e1", n, o2(off+1), uniform(r, 1), below(nb)),
			newArg("e2", nb, o3(off+1), uniform(r, 1), every),
		}
		checkGuarded(t, fmt.Sprintf("MathA n=%d off=%d", n, off), args, func(s [][]float64) ([]float64, bool) {
			return []float64{float64(MathA(s[0], s[1], s[2], s[3], s[4], a))}, true
		})
		for _, twoRho := range []int{0, 1, 16, 49} {
			args := []*arg{
				newArg("lam", nb, o2(off), func(i int) float64 { return lam[i] }, nil),
				newArg("sinB", nb, o3(off), uniform(r, 1), nil),
				newArg("cosB", nb, off, uniform(r, 1), nil),
				newArg("phi", n, off, func(int) float64 { return math.Exp(r.Float64()*20 - 10) }, below(nb)),
				newArg("e1", nb, o2(off+1), uniform(r, 0.5), every),
				newArg("e2", n, o3(off+1), uniform(r, 3), below(nb)),
			}
			checkGuarded(t, fmt.Sprintf("MathB n=%d off=%d twoRho=%d", n, off, twoRho), args, func(s [][]float64) ([]float64, bool) {
				MathB(s[0], s[1], s[2], s[3], s[4], s[5], twoRho)
				return nil, true
			})
		}
	})
}

// at is s[i], or def past its end.
func at(s []float64, i int, def float64) float64 {
	if i < len(s) {
		return s[i]
	}
	return def
}

func TestGuardGradPass(t *testing.T) {
	forLengths(t, 3, func(t *testing.T, r *rand.Rand, n, off int) {
		nb := n / 8 * 8
		for _, nc := range []int{0, 1, 3} {
			stride := n + 1
			w := 0
			if nb > 0 && nc > 0 {
				w = (nc-1)*stride + nb
			}
			args := []*arg{
				newArg("w", w, o2(off), uniform(r, 1), nil),
				newArg("gy", nc, o3(off), uniform(r, 2), nil),
				newArg("e1", nb, off, uniform(r, 1), nil),
				newArg("e2", nb, o2(off+1), uniform(r, 1), nil),
				newArg("c", n, off, uniform(r, 7), below(nb)),
				newArg("s", 16, o3(off+1), uniform(r, 7), every),
			}
			checkGuarded(t, fmt.Sprintf("GradPass n=%d off=%d nc=%d", n, off, nc), args, func(s [][]float64) ([]float64, bool) {
				GradPass(s[0], stride, s[1], s[2], s[3], s[4], (*[16]float64)(s[5]))
				return nil, true
			})
		}
	})
}

func TestGuardDots(t *testing.T) {
	forLengths(t, 4, func(t *testing.T, r *rand.Rand, n, off int) {
		nb := n / 8 * 8
		stride := n + 3
		tight := func(rows int) int { // Ωᵀ or y with rows rows of stride, ending at the last block
			if nb == 0 {
				return 0
			}
			return (rows-1)*stride + nb
		}
		gz := []*arg{
			newArg("c", n, off, uniform(r, 1), nil),
			newArg("omegaT", tight(8), o2(off), uniform(r, 1), nil),
			newArg("out", 64, o3(off), uniform(r, 9), every),
		}
		checkGuarded(t, fmt.Sprintf("Gz8 n=%d off=%d", n, off), gz, func(s [][]float64) ([]float64, bool) {
			Gz8(s[0], s[1], stride, (*[64]float64)(s[2]))
			return nil, true
		})
		d1 := []*arg{
			newArg("x", n, off, uniform(r, 1), nil),
			newArg("y", nb, o2(off), uniform(r, 1), nil),
			newArg("out", 8, o3(off), uniform(r, 9), every),
		}
		checkGuarded(t, fmt.Sprintf("Dot1 n=%d off=%d", n, off), d1, func(s [][]float64) ([]float64, bool) {
			Dot1(s[0], s[1], (*[8]float64)(s[2]))
			return nil, true
		})
		d4 := []*arg{
			newArg("x", n, off, uniform(r, 1), nil),
			newArg("y", tight(4), o2(off), uniform(r, 1), nil),
			newArg("out", 32, o3(off), uniform(r, 9), every),
		}
		checkGuarded(t, fmt.Sprintf("Dot4 n=%d off=%d", n, off), d4, func(s [][]float64) ([]float64, bool) {
			Dot4(s[0], s[1], stride, (*[32]float64)(s[2]))
			return nil, true
		})
		d44 := []*arg{
			newArg("x0", n, off, uniform(r, 1), nil),
			newArg("x1", nb, o2(off), uniform(r, 1), nil),
			newArg("x2", nb, o3(off), uniform(r, 1), nil),
			newArg("x3", nb, o2(off+1), uniform(r, 1), nil),
			newArg("y", tight(4), o3(off+1), uniform(r, 1), nil),
			newArg("acc", 128, off, uniform(r, 9), every),
		}
		checkGuarded(t, fmt.Sprintf("Dots4x4 n=%d off=%d", n, off), d44, func(s [][]float64) ([]float64, bool) {
			x := [4][]float64{s[0], s[1], s[2], s[3]}
			Dots4x4(&x, s[4], stride, (*[128]float64)(s[5]))
			return nil, true
		})
		for _, nc := range []int{1, 3, 4, 5, 9} {
			rd := []*arg{
				newArg("x", n, off, uniform(r, 1), nil),
				newArg("y", max(0, (nc-1)*stride+n), o2(off), uniform(r, 1), nil),
				newArg("out", nc, o3(off), uniform(r, 9), every),
			}
			checkGuarded(t, fmt.Sprintf("RowDots d=%d off=%d classes=%d", n, off, nc), rd, func(s [][]float64) ([]float64, bool) {
				RowDots(s[0], s[1], stride, s[2])
				return nil, true
			})
		}
	})
}

func TestGuardAxpy(t *testing.T) {
	forLengths(t, 5, func(t *testing.T, r *rand.Rand, n, off int) {
		nb := n / 8 * 8
		for _, nc := range []int{0, 1, 3} {
			stride := n + 3
			part := 0
			if nc > 0 {
				part = (nc-1)*stride + n
			}
			args := []*arg{
				newArg("part", part, off, uniform(r, 4), rows(nc, stride, nb)),
				newArg("gy", nc, o2(off), uniform(r, 2), nil),
				newArg("phi", n, o3(off), uniform(r, 1), nil),
			}
			checkGuarded(t, fmt.Sprintf("Axpy n=%d off=%d nc=%d", n, off, nc), args, func(s [][]float64) ([]float64, bool) {
				Axpy(s[0], stride, s[1], s[2])
				return nil, true
			})
		}
	})
}

func TestGuardGyW(t *testing.T) {
	forLengths(t, 8, func(t *testing.T, r *rand.Rand, n, off int) {
		nb := n / 8 * 8
		for _, tc := range []struct{ nc, rows int }{{0, 2}, {1, 1}, {3, 2}, {5, 3}, {52, 4}} {
			ostride, gstride, wstride := n+3, tc.nc+2, n+5
			gy, w := 0, 0
			if tc.nc > 0 {
				gy, w = (tc.rows-1)*gstride+tc.nc, (tc.nc-1)*wstride+n
			}
			args := []*arg{
				newArg("out", (tc.rows-1)*ostride+n, off, uniform(r, 4), rows(tc.rows, ostride, nb)),
				newArg("gy", gy, o2(off), uniform(r, 2), nil),
				newArg("w", w, o3(off), uniform(r, 1), nil),
			}
			checkGuarded(t, fmt.Sprintf("GyW n=%d off=%d nc=%d rows=%d", n, off, tc.nc, tc.rows), args, func(s [][]float64) ([]float64, bool) {
				GyW(s[0], ostride, s[1], gstride, tc.rows, s[2], wstride, tc.nc, n)
				return nil, true
			})
		}
	})
}

func TestGuardAxpyRows(t *testing.T) {
	forLengths(t, 6, func(t *testing.T, r *rand.Rand, n, off int) {
		nb := n / 8 * 8
		for _, tc := range []struct{ nc, rows int }{{0, 2}, {1, 3}, {4, 1}, {4, 3}, {6, 2}, {9, 3}} {
			stride, gstride, pstride := n+3, tc.nc+2, n+5
			part := 0
			if tc.nc > 0 {
				part = (tc.nc-1)*stride + n
			}
			gy := 0
			if tc.nc > 0 {
				gy = (tc.rows-1)*gstride + tc.nc
			}
			args := []*arg{
				newArg("part", part, off, uniform(r, 4), rows(tc.nc, stride, nb)),
				newArg("gy", gy, o2(off), uniform(r, 2), nil),
				newArg("phi", (tc.rows-1)*pstride+n, o3(off), uniform(r, 1), nil),
			}
			checkGuarded(t, fmt.Sprintf("AxpyRows n=%d off=%d nc=%d rows=%d", n, off, tc.nc, tc.rows), args, func(s [][]float64) ([]float64, bool) {
				AxpyRows(s[0], stride, s[1], gstride, tc.nc, s[2], pstride, n, tc.rows)
				return nil, true
			})
		}
	})
}

// GtxTiles over the whole tiles of cols columns, then GtxTile over the
// rest, as the classifier's gradient calls them.
func TestGuardGtx(t *testing.T) {
	forLengths(t, 6, func(t *testing.T, r *rand.Rand, cols, off int) {
		for _, nrows := range []int{1, 5} {
			for _, nc := range []int{1, 3, 4} {
				xs, os := cols+2, cols+3
				nt := cols / 32
				gp := make([]float64, 4*nrows)
				for i := range gp {
					if i%4 < nc {
						gp[i] = 2*r.Float64() - 1
					}
				}
				args := []*arg{
					newArg("gp", 4*nrows, o2(off), func(i int) float64 { return gp[i] }, nil),
					newArg("x", max(0, (nrows-1)*xs+cols), o3(off), uniform(r, 1), nil),
					newArg("out", max(0, (nc-1)*os+cols), off, uniform(r, 3), rows(nc, os, cols)),
				}
				checkGuarded(t, fmt.Sprintf("GtxTiles+GtxTile cols=%d off=%d rows=%d nc=%d", cols, off, nrows, nc), args, func(s [][]float64) ([]float64, bool) {
					if cols == 0 {
						return nil, true
					}
					GtxTiles(s[0], s[1], xs, nrows, s[2], os, nt, nc)
					if rest := cols - 32*nt; rest > 0 {
						GtxTile(s[0], s[1][32*nt:], xs, nrows, s[2][32*nt:], os, rest, nc)
					}
					return nil, true
				})
			}
		}
	})
}

func TestGuardSpMMRow(t *testing.T) {
	forLengths(t, 7, func(t *testing.T, r *rand.Rand, w, off int) {
		const nrows = 6
		stride := w + 3
		for _, nnz := range []int{0, 1, 4} {
			for _, acc := range []bool{false, true} {
				idx := make([]int32, nnz)
				for q := range idx {
					idx[q] = int32(r.IntN(nrows))
				}
				if nnz > 0 {
					idx[0] = nrows - 1 // the last row, which ends at the guard
				}
				idx0 := slices.Clone(idx)
				args := []*arg{
					newArg("val", nnz, o2(off), uniform(r, 2), nil),
					newArg("src", max(0, (nrows-1)*stride+w), o3(off), uniform(r, 1), nil),
					newArg("d", w, off, uniform(r, 5), every),
				}
				checkGuarded(t, fmt.Sprintf("SpMMRow w=%d off=%d nnz=%d acc=%v", w, off, nnz, acc), args, func(s [][]float64) ([]float64, bool) {
					SpMMRow(idx, s[0], s[1], stride, s[2], acc)
					return nil, true
				})
				if !slices.Equal(idx, idx0) {
					t.Fatalf("SpMMRow w=%d: changed its index slice", w)
				}
			}
		}
	})
}

// SinCosAdd and RFFExact do one block of eight: every offset, and inputs
// that make them report false (then writing nothing, or, for RFFExact,
// nothing outside o and e).
func TestGuardBlockKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 99))
	for off := 0; off < 8; off++ {
		for i := 0; i < 12; i++ {
			argv := make([]float64, 8)
			for l := range argv {
				argv[l] = 0.5 * (2*r.Float64() - 1)
			}
			if i%4 == 1 {
				argv[r.IntN(8)] = 0.75
			}
			args := []*arg{
				newArg("arg", 8, o2(off), func(l int) float64 { return argv[l] }, nil),
				newArg("sinB", 8, o3(off), uniform(r, 1), nil),
				newArg("cosB", 8, off, uniform(r, 1), nil),
				newArg("o", 8, o2(off+1), uniform(r, 1), every),
				newArg("e", 8, o3(off+1), uniform(r, 1), every),
			}
			checkGuarded(t, fmt.Sprintf("SinCosAdd off=%d case=%d", off, i), args, func(s [][]float64) ([]float64, bool) {
				if SinCosAdd(s[0], s[1], s[2], 0.35, s[3], s[4]) {
					return []float64{1}, true
				}
				return []float64{0}, true // false writes nothing: o and e compare as unchanged
			})

			d0 := 1 + r.IntN(9)
			stride := 8 + r.IntN(4)
			big := i%4 == 2 // |x| ≥ 2^29 in a lane: false, o and e unspecified
			args = []*arg{
				newArg("z", d0, o2(off), uniform(r, 3), nil),
				newArg("omegaT", (d0-1)*stride+8, o3(off), func(j int) float64 {
					if big && j == 0 {
						return 1e12
					}
					return 5 * (2*r.Float64() - 1)
				}, nil),
				newArg("phase", 8, off, uniform(r, 6), nil),
				newArg("o", 8, o2(off+1), uniform(r, 1), every),
				newArg("e", 8, o3(off+1), uniform(r, 1), every),
			}
			checkGuarded(t, fmt.Sprintf("RFFExact off=%d case=%d d0=%d", off, i, d0), args, func(s [][]float64) ([]float64, bool) {
				ok := RFFExact(s[0], s[1], stride, s[2], 0.35, s[3], s[4])
				if ok {
					return []float64{1}, true
				}
				return []float64{0}, false
			})
		}
	}
}
