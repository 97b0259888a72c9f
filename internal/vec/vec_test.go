package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// onEveryPath runs f once per path the CPU has (Generic first) and returns
// what each produced; the test then requires identical bits.
func onEveryPath[T any](t *testing.T, f func() T) map[Arch]T {
	t.Helper()
	out := map[Arch]T{}
	forEachPath(t, func(a Arch) { out[a] = f() })
	if len(out) < 3 {
		t.Logf("this CPU runs %d of the 3 paths (best: %s)", len(out), Best())
	}
	return out
}

// forEachPath calls f with each path this CPU has made the active one in
// turn (Generic first), and restores the path afterwards, also when f
// fails the test.
func forEachPath(t *testing.T, f func(a Arch)) {
	t.Helper()
	for _, a := range Available() {
		restore, err := Use(a)
		if err != nil {
			t.Fatal(err)
		}
		func() {
			defer restore()
			f(a)
		}()
	}
}

// sameBits fails unless every path's result equals Generic's bit for bit.
func sameBits(t *testing.T, what string, res map[Arch][]float64) {
	t.Helper()
	ref := res[Generic]
	for a, got := range res {
		if len(got) != len(ref) {
			t.Fatalf("%s: %s has %d values, generic %d", what, a, len(got), len(ref))
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("%s: %s[%d] = %v (%#x), generic %v (%#x)", what, a, i, got[i], math.Float64bits(got[i]), ref[i], math.Float64bits(ref[i]))
			}
		}
	}
}

func randSlice(r *rand.Rand, n int, scale float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = scale * (2*r.Float64() - 1)
	}
	return s
}

// lengths covers one block, several, the unrolled groups of the assembly
// (4 and 8 blocks at a time) and their remainders; tails past the last
// block (not multiples of eight) must be ignored.
var lengths = []int{8, 16, 24, 32, 40, 64, 72, 100, 128, 200, 1000}

func TestChoose(t *testing.T) {
	for _, tc := range []struct {
		env  string
		top  Arch
		want Arch
		err  bool
	}{
		{"", AVX512, AVX512, false},
		{"auto", AVX2, AVX2, false},
		{"generic", AVX512, Generic, false},
		{"AVX2", AVX512, AVX2, false},
		{" avx512 ", AVX512, AVX512, false},
		{"avx512", AVX2, AVX2, true},
		{"avx2", Generic, Generic, true},
		{"sse", AVX512, AVX512, true},
	} {
		got, err := choose(tc.env, tc.top)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("choose(%q, %s) = %s, %v; want %s, error %v", tc.env, tc.top, got, err, tc.want, tc.err)
		}
	}
	if _, err := choose("sse", AVX2); err == nil || err.Error() != `HYLAFLOW_CPU=sse: unknown kernel path "sse" (want avx512, avx2 or generic); using avx2` {
		t.Errorf("error for an unknown value: %v", err)
	}
}

func TestUseRejectsMissingPath(t *testing.T) {
	if Best() == AVX512 {
		t.Skip("this CPU runs every path")
	}
	if _, err := Use(Best() + 1); err == nil {
		t.Errorf("Use(%s) on a CPU whose best is %s: no error", Best()+1, Best())
	}
}

func TestLinearKernelsSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range lengths {
		for _, d0 := range []int{1, 2, 3, 16, 17} {
			name := fmt.Sprintf("n=%d,d0=%d", n, d0)
			stride := n + 5
			z := randSlice(r, d0, 0.9)
			om := randSlice(r, d0*stride, 1)
			sameBits(t, "Dist "+name, onEveryPath(t, func() []float64 { q := make([]float64, n); Dist(z, om, stride, q); return q }))
			sameBits(t, "Args "+name, onEveryPath(t, func() []float64 { q := make([]float64, n); Args(z, om, stride, q); return q }))
			sameBits(t, "Args2 "+name, onEveryPath(t, func() []float64 { q := make([]float64, n); Args2(z, om, stride, q); return q }))
		}
		x := randSlice(r, n, 1)
		y := randSlice(r, 8*(n+3), 1)
		sameBits(t, fmt.Sprint("Dot1 ", n), onEveryPath(t, func() []float64 { var o [8]float64; Dot1(x, y, &o); return o[:] }))
		sameBits(t, fmt.Sprint("Dot4 ", n), onEveryPath(t, func() []float64 { var o [32]float64; Dot4(x, y, n+3, &o); return o[:] }))
		sameBits(t, fmt.Sprint("Gz8 ", n), onEveryPath(t, func() []float64 { var o [64]float64; Gz8(x, y, n+3, &o); return o[:] }))
		xs := [4][]float64{x, randSlice(r, n, 1), randSlice(r, n, 1), randSlice(r, n, 1)}
		sameBits(t, fmt.Sprint("Dots4x4 ", n), onEveryPath(t, func() []float64 { var o [128]float64; Dots4x4(&xs, y, n+3, &o); return o[:] }))
		for _, nc := range []int{1, 2, 3, 7} {
			gy := randSlice(r, nc, 2)
			w := randSlice(r, nc*(n+1), 1)
			e1, e2 := randSlice(r, n, 1), randSlice(r, n, 1)
			sameBits(t, fmt.Sprint("GradPass ", n, nc), onEveryPath(t, func() []float64 {
				c := make([]float64, n)
				var s [16]float64
				GradPass(w, n+1, gy, e1, e2, c, &s)
				return append(c, s[:]...)
			}))
			part := randSlice(r, nc*(n+1), 1)
			sameBits(t, fmt.Sprint("Axpy ", n, nc), onEveryPath(t, func() []float64 {
				p := append([]float64(nil), part...)
				Axpy(p, n+1, gy, x)
				return p
			}))
		}
		// GyW's sums are GradPass's g_j (GradPass with e2 = 1 leaves them
		// in c), on every path, for odd and even row counts.
		for _, nc := range []int{1, 3, 52} {
			for _, nr := range []int{1, 2, 5} {
				gys := randSlice(r, nr*(nc+2), 2)
				w := randSlice(r, nc*(n+4), 1)
				ones := make([]float64, n)
				for j := range ones {
					ones[j] = 1
				}
				want := make([]float64, nr*(n+1))
				for row := 0; row < nr; row++ {
					var s [16]float64
					gradPassGeneric(w, n+4, gys[row*(nc+2):row*(nc+2)+nc], x, ones, want[row*(n+1):row*(n+1)+n], &s)
				}
				res := onEveryPath(t, func() []float64 {
					o := randSlice(r, nr*(n+1), 3) // overwritten but for the gaps
					for row := 0; row < nr; row++ {
						o[row*(n+1)+n] = 0
						clear(o[row*(n+1)+n/8*8 : row*(n+1)+n])
					}
					GyW(o, n+1, gys, nc+2, nr, w, n+4, nc, n)
					return o
				})
				sameBits(t, fmt.Sprint("GyW ", n, nc, nr), res)
				for j, v := range res[Generic] {
					if math.Float64bits(v) != math.Float64bits(want[j]) {
						t.Fatalf("GyW n=%d nc=%d rows=%d: entry %d is %v, GradPass's sum %v", n, nc, nr, j, v, want[j])
					}
				}
			}
		}
		// AxpyRows is Axpy row by row, on every path: class counts with
		// and without a remainder past the groups of four.
		for _, nc := range []int{1, 4, 5, 8, 13} {
			const nr = 9
			gys := randSlice(r, nr*(nc+1), 2)
			phis := randSlice(r, nr*(n+2), 1)
			part := randSlice(r, nc*(n+1), 1)
			rowByRow := append([]float64(nil), part...)
			for row := 0; row < nr; row++ {
				axpyGeneric(rowByRow, n+1, gys[row*(nc+1):row*(nc+1)+nc], phis[row*(n+2):row*(n+2)+n])
			}
			res := onEveryPath(t, func() []float64 {
				p := append([]float64(nil), part...)
				AxpyRows(p, n+1, gys, nc+1, nc, phis, n+2, n, nr)
				return p
			})
			sameBits(t, fmt.Sprint("AxpyRows ", n, nc), res)
			for j, v := range res[Generic] {
				if math.Float64bits(v) != math.Float64bits(rowByRow[j]) {
					t.Fatalf("AxpyRows n=%d nc=%d: entry %d is %v, Axpy row by row %v", n, nc, j, v, rowByRow[j])
				}
			}
		}
	}
}

func TestGtxSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{1, 5, 128} {
		for _, cols := range []int{1, 7, 8, 9, 31, 32, 64, 100} {
			for nc := 1; nc <= 4; nc++ {
				xs := cols + 3
				gp := randSlice(r, 4*rows, 1)
				for k := nc; k < 4; k++ {
					for i := 0; i < rows; i++ {
						gp[4*i+k] = 0
					}
				}
				x := randSlice(r, rows*xs, 1)
				out0 := randSlice(r, 4*(cols+2), 1)
				sameBits(t, fmt.Sprintf("Gtx rows=%d cols=%d nc=%d", rows, cols, nc), onEveryPath(t, func() []float64 {
					out := append([]float64(nil), out0...)
					nt := cols / 32
					GtxTiles(gp, x, xs, rows, out, cols+2, nt, nc)
					GtxTile(gp, x[32*nt:], xs, rows, out[32*nt:], cols+2, cols-32*nt, nc)
					return out
				}))
			}
		}
	}
}

// hylaInputs returns distances q whose p = a/q spread over the logarithm's
// reduction (both sides of √2, many exponents) and frequencies λ' with
// |δ| up to about 0.5, plus the cases that make a block bad.
func hylaInputs(r *rand.Rand, n int) (q, lam []float64) {
	q = make([]float64, n)
	lam = make([]float64, n)
	for j := range q {
		q[j] = math.Exp(r.Float64()*40 - 20)
		lam[j] = (2*r.Float64() - 1) * 0.5 / 22
	}
	return q, lam
}

func TestMathSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range lengths {
		for _, twoRho := range []int{0, 1, 2, 15, 16, 49} {
			q, lam := hylaInputs(r, n)
			sb, cb := randSlice(r, n, 1), randSlice(r, n, 1)
			a := 0.3 + 0.7*r.Float64()
			res := onEveryPath(t, func() []float64 {
				phi, e1, e2 := make([]float64, n), make([]float64, n), make([]float64, n)
				nb := MathA(q, lam, phi, e1, e2, a)
				if nb != n/8 {
					t.Fatalf("MathA n=%d: %d good blocks, want all %d", n, nb, n/8)
				}
				out := append(append(append([]float64(nil), phi...), e1...), e2...)
				MathB(lam, sb, cb, phi, e1, e2, twoRho)
				return append(append(append(out, phi...), e1...), e2...)
			})
			sameBits(t, fmt.Sprintf("MathA/B n=%d twoRho=%d", n, twoRho), res)
		}
	}
}

func TestMathABadBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	// n = 600: the AVX2 kernel works in runs of 32 blocks; bad entries
	// on both sides of a run's end.
	for _, n := range []int{64, 600} {
		for _, tc := range []struct {
			name string
			set  func(q, lam []float64, j int)
		}{
			{"p above 2^1000", func(q, lam []float64, j int) { q[j] = 1e-310 }},
			{"p below 2^-1000", func(q, lam []float64, j int) { q[j] = 1e305 }},
			{"q zero (p infinite)", func(q, lam []float64, j int) { q[j] = 0 }},
			{"q NaN", func(q, lam []float64, j int) { q[j] = math.NaN() }},
			{"negative q", func(q, lam []float64, j int) { q[j] = -1 }},
			{"|δ| > 0.5", func(q, lam []float64, j int) { lam[j] = 1e3 }},
		} {
			for _, j := range []int{0, 3, 12, 31, 63, 255, 256, 300, 599} {
				if j >= n {
					continue
				}
				q, lam := hylaInputs(r, n)
				tc.set(q, lam, j)
				got := onEveryPath(t, func() []float64 {
					phi, e1, e2 := make([]float64, n), make([]float64, n), make([]float64, n)
					nb := MathA(q, lam, phi, e1, e2, 0.5)
					// Only the blocks before the bad one are defined.
					return append(append(append([]float64{float64(nb)}, phi[:8*nb]...), e1[:8*nb]...), e2[:8*nb]...)
				})
				if got[Generic][0] != float64(j/8) {
					t.Errorf("%s at %d: %v good blocks, want %d", tc.name, j, got[Generic][0], j/8)
				}
				sameBits(t, fmt.Sprintf("MathA n=%d %s at %d", n, tc.name, j), got)
			}
		}
	}
}

func TestSinCosAddSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 200; i++ {
		arg := randSlice(r, 8, 0.5)
		switch i % 10 {
		case 1:
			arg[r.IntN(8)] = 0.5000001
		case 2:
			arg[r.IntN(8)] = math.NaN()
		case 3:
			arg[r.IntN(8)] = -0.5
		case 4:
			arg[r.IntN(8)] = 0
		}
		sb, cb := randSlice(r, 8, 1), randSlice(r, 8, 1)
		res := onEveryPath(t, func() []float64 {
			o, e := make([]float64, 8), make([]float64, 8)
			ok := SinCosAdd(arg, sb, cb, 0.35, o, e)
			if !ok {
				return []float64{-1}
			}
			return append(o, e...)
		})
		sameBits(t, fmt.Sprint("SinCosAdd ", i), res)
	}
}

// The package's logarithm and small-angle sine and cosine are accurate:
// within 2 units in the last place of the math package's.
func TestPolynomialsAccurate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ulps := func(a, b float64) float64 { return math.Abs(a-b) / math.Abs(math.Nextafter(b, math.Inf(1))-b) }
	for i := 0; i < 100000; i++ {
		p := math.Exp(r.Float64()*1380 - 690)
		if u := ulps(vlog(p), math.Log(p)); u > 2 && math.Abs(math.Log(p)) > 1e-300 {
			t.Fatalf("log(%v) = %v, math.Log %v (%.1f ulp)", p, vlog(p), math.Log(p), u)
		}
		d := r.Float64() - 0.5
		s, c := sinCosSmall(d)
		if d != 0 && (ulps(s, math.Sin(d)) > 2 || ulps(c, math.Cos(d)) > 2) {
			t.Fatalf("sincos(%v) = %v, %v; math %v, %v", d, s, c, math.Sin(d), math.Cos(d))
		}
	}
}

func TestSpMMRowSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const rows = 50
	for _, w := range []int{1, 3, 4, 5, 7, 8, 9, 12, 15, 31, 32, 33, 36, 40, 48, 52, 56, 60, 64, 84, 88, 100} {
		for _, nnz := range []int{0, 1, 3, 20} {
			for _, accumulate := range []bool{false, true} {
				stride := w + 3
				src := randSlice(r, rows*stride, 1)
				idx := make([]int32, nnz)
				for q := range idx {
					idx[q] = int32(r.IntN(rows))
				}
				val := randSlice(r, nnz, 2)
				if nnz > 1 {
					val[1] = -0.0 // products of −0 must not turn a +0 sum into −0
				}
				d0 := randSlice(r, w, 1)
				sameBits(t, fmt.Sprintf("SpMMRow w=%d nnz=%d acc=%v", w, nnz, accumulate), onEveryPath(t, func() []float64 {
					d := append([]float64(nil), d0...)
					SpMMRow(idx, val, src, stride, d, accumulate)
					return d
				}))
			}
		}
	}
	// No entries: src is not read and may be empty.
	for _, w := range []int{4, 8, 12} {
		d := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}[:w]
		SpMMRow(nil, nil, nil, w, d, true)
		SpMMRow(nil, nil, nil, w, d, false)
		for c, x := range d {
			if x != 0 {
				t.Fatalf("SpMMRow without entries, w=%d: d[%d] = %v, want 0", w, c, x)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SpMMRow with an index past src: no panic")
		}
	}()
	SpMMRow([]int32{rows}, []float64{1}, make([]float64, rows*8), 8, make([]float64, 8), false)
}

// Sincos is math.Sincos bit for bit (where the math package is unfused),
// on the reduction's edges, every octant and the special cases.
func TestSincosMatchesMath(t *testing.T) {
	if !mathUnfused {
		t.Skip("this build's math package may fuse multiply-adds")
	}
	r := rand.New(rand.NewPCG(15, 16))
	xs := []float64{0, math.Copysign(0, -1), 1e-300, 5e-324, math.Pi / 4, math.Pi / 2, math.Pi, 1 << 29, 1<<29 - 1, 1e10, math.Inf(1), math.Inf(-1), math.NaN()}
	for i := 0; i < 200000; i++ {
		xs = append(xs, (2*r.Float64()-1)*math.Pow(10, float64(r.IntN(12)-4)))
	}
	for _, x := range xs {
		s, c := Sincos(x)
		ms, mc := math.Sincos(x)
		if math.Float64bits(s) != math.Float64bits(ms) || math.Float64bits(c) != math.Float64bits(mc) {
			if !(x != x && s != s && c != c) {
				t.Fatalf("Sincos(%v) = %v, %v; math.Sincos %v, %v", x, s, c, ms, mc)
			}
		}
	}
}

func TestRFFExactSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	done := 0
	defer func() {
		if done < 150 {
			t.Errorf("only %d of 300 blocks took the exact path", done)
		}
	}()
	for i := 0; i < 300; i++ {
		d0 := 1 + r.IntN(20)
		stride := 8 + r.IntN(5)
		z := randSlice(r, d0, 3)
		om := randSlice(r, d0*stride, 5)
		phase := randSlice(r, 8, 6)
		switch i % 7 {
		case 1:
			phase[r.IntN(8)] = math.NaN()
		case 2:
			om[r.IntN(8)] = 1e12 // |x| ≥ 2^29
		case 3:
			clear(z) // x = phase
		}
		res := onEveryPath(t, func() []float64 {
			o, e := make([]float64, 8), make([]float64, 8)
			if !RFFExact(z, om, stride, phase, 0.35, o, e) {
				return []float64{-1}
			}
			return append(o, e...)
		})
		sameBits(t, fmt.Sprint("RFFExact ", i), res)
		if len(res[Generic]) == 16 {
			done++
		}
		if got := res[Generic]; len(got) == 16 && mathUnfused {
			for l := 0; l < 8; l++ {
				var arg float64
				for k := range z {
					arg += float64(z[k] * om[k*stride+l])
				}
				s, c := math.Sincos(arg + phase[l])
				if got[l] != 0.35*c || got[8+l] != -0.35*s {
					t.Fatalf("RFFExact %d lane %d: %v, %v; scalar %v, %v", i, l, got[l], got[8+l], 0.35*c, -0.35*s)
				}
			}
		}
	}
}

// TestSpMMRowAgainstTheLoop checks SpMMRow on every path against the
// definition written as the plain loop (d[c] = d[c] + each rounded
// product, in entry order), at the widths whose last columns take the
// narrow path (one to three columns, alone or past blocks of four and
// eight), with sums that pass through zero of both signs.
func TestSpMMRowAgainstTheLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	const rows = 40
	for _, w := range []int{1, 2, 3, 6, 7, 11, 19, 23, 51} {
		for _, nnz := range []int{0, 1, 2, 30} {
			for _, accumulate := range []bool{false, true} {
				stride := w + 2
				src := randSlice(r, rows*stride, 1)
				src[0] = math.Copysign(0, -1)
				idx := make([]int32, nnz)
				for q := range idx {
					idx[q] = int32(r.IntN(rows))
				}
				if nnz > 0 {
					idx[0] = 0
				}
				val := randSlice(r, nnz, 2)
				d0 := randSlice(r, w, 1)
				want := append([]float64(nil), d0...)
				if !accumulate {
					clear(want)
				}
				for q, j := range idx {
					for c := range want {
						want[c] += float64(val[q] * src[int(j)*stride+c])
					}
				}
				res := onEveryPath(t, func() []float64 {
					d := append([]float64(nil), d0...)
					SpMMRow(idx, val, src, stride, d, accumulate)
					return d
				})
				for a, got := range res {
					for c := range got {
						if math.Float64bits(got[c]) != math.Float64bits(want[c]) {
							t.Fatalf("%s w=%d nnz=%d acc=%v: d[%d] = %v, the loop %v", a, w, nnz, accumulate, c, got[c], want[c])
						}
					}
				}
			}
		}
	}
}
