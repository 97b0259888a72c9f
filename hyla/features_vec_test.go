package hyla

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// TestHyLaSIMDMatchesScalar compares the vector kernels with the scalar
// code on points from the origin to the boundary, including blocks that
// take the scalar fallback (large λ).
func TestHyLaSIMDMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name  string
		scale float64
		d0, D int
		r     float64
	}{{"small-λ", 0.01, 16, 203, 0.5}, {"near-boundary", 0.1, 16, 64, 0.999}, {"large-λ-fallback", 5, 8, 40, 0.9}, {"d0=50", 0.5, 50, 96, 0.9}} {
		t.Run(tc.name, func(t *testing.T) {
			s := SampleHyLa(rng, tc.D, tc.d0, tc.scale)
			vec, err := NewHyLa(s, ConventionCode)
			if err != nil {
				t.Fatal(err)
			}
			if vec.vec == nil {
				t.Fatal("no vector tables")
			}
			sc, _ := NewHyLa(s, ConventionCode)
			sc.vec = nil
			m := 37
			z := randomBallPoints(rng, m, tc.d0, tc.r)
			outV, outS := mat.NewDense(m, tc.D, nil), mat.NewDense(m, tc.D, nil)
			vec.Forward(z, outV)
			sc.Forward(z, outS)
			g := mat.NewDense(m, tc.D, nil)
			for i, raw := 0, g.RawMatrix().Data; i < len(raw); i++ {
				raw[i] = rng.NormFloat64()
			}
			gzV, gzS := mat.NewDense(m, tc.d0, nil), mat.NewDense(m, tc.d0, nil)
			vec.Backward(g, gzV)
			sc.Backward(g, gzS)
			worst := func(a, b *mat.Dense) float64 {
				var w float64
				ar, br := a.RawMatrix().Data, b.RawMatrix().Data
				var scale float64
				for _, v := range br {
					scale = math.Max(scale, math.Abs(v))
				}
				for i := range ar {
					w = math.Max(w, math.Abs(ar[i]-br[i])/math.Max(math.Abs(br[i]), 1e-3*scale))
				}
				return w
			}
			fw, bw := worst(outV, outS), worst(gzV, gzS)
			// BackwardLinear against gradOut = gyTᵀ·wT formed explicitly.
			const c = 5
			gyT, wT := mat.NewDense(c, m, nil), mat.NewDense(c, tc.D, nil)
			for _, x := range []*mat.Dense{gyT, wT} {
				for i, raw := 0, x.RawMatrix().Data; i < len(raw); i++ {
					raw[i] = rng.NormFloat64()
				}
			}
			var gOut mat.Dense
			gOut.Mul(gyT.T(), wT)
			gzL, gzB := mat.NewDense(m, tc.d0, nil), mat.NewDense(m, tc.d0, nil)
			gwL := mat.NewDense(c, tc.D, nil)
			if !vec.BackwardLinear(gyT, wT, gzL, gwL) {
				t.Fatal("BackwardLinear not available")
			}
			sc.Backward(&gOut, gzB)
			lw := worst(gzL, gzB)
			if sc.BackwardLinear(gyT, wT, gzB, nil) {
				t.Error("BackwardLinear ran without the AVX-512 tables")
			}
			// ∂L/∂Wᵀ = gyT·φ and Yᵀ = Wᵀ·φᵀ against products of the scalar φ.
			var gwRef, yRef mat.Dense
			gwRef.Mul(gyT, outS)
			yRef.Mul(wT, outS.T())
			ww := worst(gwL, &gwRef)
			yV := mat.NewDense(c, m, nil)
			if !vec.ForwardLinear(z, wT, yV) {
				t.Fatal("ForwardLinear not available")
			}
			yw := worst(yV, &yRef)
			if sc.ForwardLinear(z, wT, yV) {
				t.Error("ForwardLinear ran without the vector tables")
			}
			// After ForwardLinear (which keeps U = W·(∂φ/∂h)ᵀ instead of
			// ∂φ/∂h): the same ∂L/∂W bits, ∂L/∂Z summed in another order.
			gzL2, gwL2 := mat.NewDense(m, tc.d0, nil), mat.NewDense(c, tc.D, nil)
			vec.BackwardLinear(gyT, wT, gzL2, gwL2)
			if !mat.Equal(gwL, gwL2) {
				t.Error("∂L/∂W after ForwardLinear differs from ∂L/∂W after Forward")
			}
			uw := worst(gzL2, gzB)
			t.Logf("relative difference: forward %.2g, backward %.2g, backward through a linear layer %.2g (after ForwardLinear %.2g), ∂L/∂W %.2g, Y %.2g", fw, bw, lw, uw, ww, yw)
			if fw > 1e-12 || bw > 1e-10 || lw > 1e-10 || uw > 1e-10 || ww > 1e-12 || yw > 1e-12 {
				t.Errorf("AVX-512 vs scalar: forward %.3g, backward %.3g, linear %.3g (after ForwardLinear %.3g), ∂L/∂W %.3g, Y %.3g", fw, bw, lw, uw, ww, yw)
			}
			// Other weights than ForwardLinear's are refused.
			w2 := mat.DenseCopyOf(wT)
			w2.Set(0, 0, w2.At(0, 0)+1)
			func() {
				defer func() {
					if recover() == nil {
						t.Error("BackwardLinear accepted other weights than ForwardLinear's")
					}
				}()
				vec.BackwardLinear(gyT, w2, gzL2, nil)
			}()
		})
	}
}

// TestRFFSIMDMatchesScalar compares the RFF forward kernel with the scalar
// code, with small arguments (polynomial path) and large ones (fallback).
func TestRFFSIMDMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, scale := range []float64{0.01, 3} {
		s := SampleRFF(rng, 203, 16, scale)
		vec, err := NewRFF(s)
		if err != nil {
			t.Fatal(err)
		}
		if vec.omegaT == nil {
			t.Fatal("no vector tables")
		}
		sc, _ := NewRFF(s)
		sc.omegaT = nil
		m := 29
		z := mat.NewDense(m, 16, nil)
		for i, raw := 0, z.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = 2 * rng.NormFloat64()
		}
		outV, outS := mat.NewDense(m, 203, nil), mat.NewDense(m, 203, nil)
		vec.Forward(z, outV)
		sc.Forward(z, outS)
		g := mat.NewDense(m, 203, nil)
		for i, raw := 0, g.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = rng.NormFloat64()
		}
		gzV, gzS := mat.NewDense(m, 16, nil), mat.NewDense(m, 16, nil)
		vec.Backward(g, gzV)
		sc.Backward(g, gzS)
		var fw, bw float64
		for i, v := range outV.RawMatrix().Data {
			fw = math.Max(fw, math.Abs(v-outS.RawMatrix().Data[i]))
		}
		for i, v := range gzV.RawMatrix().Data {
			bw = math.Max(bw, math.Abs(v-gzS.RawMatrix().Data[i])/math.Max(1, math.Abs(gzS.RawMatrix().Data[i])))
		}
		t.Logf("scale %v: forward %.2g, backward %.2g", scale, fw, bw)
		if fw > 1e-14 || bw > 1e-12 {
			t.Errorf("scale %v: vector vs scalar forward %.3g, backward %.3g", scale, fw, bw)
		}
	}
}

// TestHyLaLinearWorkersDeterministic: ForwardLinear and BackwardLinear
// (whose ∂L/∂Wᵀ sums rows in blocks) give the same bits for 1…5 workers,
// on a row count that spans several blocks.
func TestHyLaLinearWorkersDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	const m, D, c, d0 = 1000, 203, 7, 16
	s := SampleHyLa(rng, D, d0, 0.5)
	z := randomBallPoints(rng, m, d0, 0.99)
	wT, gyT := randomDense(rng, c, D), randomDense(rng, c, m)
	if nb := (m + hylaRowBlock(m) - 1) / hylaRowBlock(m); nb < 5 {
		t.Fatalf("only %d row blocks", nb)
	}
	var refY, refGZ, refGW *mat.Dense
	for w := 1; w <= 5; w++ {
		fm, _ := NewHyLa(s, ConventionCode)
		fm.SetWorkers(w)
		y, gz, gw := mat.NewDense(c, m, nil), mat.NewDense(m, d0, nil), mat.NewDense(c, D, nil)
		if !fm.ForwardLinear(z, wT, y) || !fm.BackwardLinear(gyT, wT, gz, gw) {
			t.Fatal("fused kernels not available")
		}
		if refY == nil {
			refY, refGZ, refGW = y, gz, gw
			continue
		}
		if !mat.Equal(y, refY) || !mat.Equal(gz, refGZ) || !mat.Equal(gw, refGW) {
			t.Errorf("%d workers give different bits than 1 worker", w)
		}
	}
}

// TestRFFLinearMatchesScalar: the RFF map's fused kernels against the
// scalar map and explicit products (Y = Wᵀ·φᵀ, ∂L/∂W = gyT·φ, ∂L/∂Z through
// ∂L/∂φ = gyTᵀ·W), for small arguments and for large ones (scalar
// fallback), and the same bits for 1…4 workers.
func TestRFFLinearMatchesScalar(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, scale := range []float64{0.01, 3} {
		const m, D, d0, c = 300, 203, 16, 6
		s := SampleRFF(rng, D, d0, scale)
		z := mat.NewDense(m, d0, nil)
		for i, raw := 0, z.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = 0.2 * rng.NormFloat64()
		}
		wT, gyT := randomDense(rng, c, D), randomDense(rng, c, m)
		sc, _ := NewRFF(s)
		sc.omegaT, sc.lin = nil, nil
		phi := mat.NewDense(m, D, nil)
		sc.Forward(z, phi)
		var yRef, gwRef, gOut mat.Dense
		yRef.Mul(wT, phi.T())
		gwRef.Mul(gyT, phi)
		gOut.Mul(gyT.T(), wT)
		gzRef := mat.NewDense(m, d0, nil)
		sc.Backward(&gOut, gzRef)
		if sc.ForwardLinear(z, wT, mat.NewDense(c, m, nil)) {
			t.Fatal("ForwardLinear ran without the vector tables")
		}
		var refY, refGZ, refGW *mat.Dense
		for w := 1; w <= 4; w++ {
			fm, _ := NewRFF(s)
			fm.SetWorkers(w)
			y, gz, gw := mat.NewDense(c, m, nil), mat.NewDense(m, d0, nil), mat.NewDense(c, D, nil)
			if !fm.ForwardLinear(z, wT, y) || !fm.BackwardLinear(gyT, wT, gz, gw) {
				t.Fatal("fused kernels not available")
			}
			if refY == nil {
				refY, refGZ, refGW = y, gz, gw
				for _, p := range []struct {
					name     string
					got, ref *mat.Dense
				}{{"Y", y, &yRef}, {"∂L/∂W", gw, &gwRef}, {"∂L/∂Z", gz, gzRef}} {
					var worst, scaleRef float64
					for _, v := range p.ref.RawMatrix().Data {
						scaleRef = math.Max(scaleRef, math.Abs(v))
					}
					for i, v := range p.got.RawMatrix().Data {
						worst = math.Max(worst, math.Abs(v-p.ref.RawMatrix().Data[i])/scaleRef)
					}
					t.Logf("scale %v: %s differs from the scalar map by %.2g (relative to its largest entry)", scale, p.name, worst)
					if worst > 1e-12 {
						t.Errorf("scale %v: %s differs from the scalar map by %.3g", scale, p.name, worst)
					}
				}
				// After a plain Forward the fused backward declines.
				fm.Forward(z, mat.NewDense(m, D, nil))
				if fm.BackwardLinear(gyT, wT, gz, gw) {
					t.Error("BackwardLinear ran after a plain Forward")
				}
				continue
			}
			if !mat.Equal(y, refY) || !mat.Equal(gz, refGZ) || !mat.Equal(gw, refGW) {
				t.Errorf("scale %v: %d workers give different bits than 1 worker", scale, w)
			}
		}
	}
}

// TestMapsSameBitsOnEveryPath runs both maps' forward and backward passes,
// plain and fused with a linear layer, on every kernel path this CPU has
// (internal/vec) and requires the same bits as the portable path, with
// inputs that send some blocks through the scalar fallback (large λ, wide
// RFF frequencies) and D not a multiple of eight.
func TestMapsSameBitsOnEveryPath(t *testing.T) {
	type result []*mat.Dense
	run := func(fm interface {
		Forward(z, out *mat.Dense)
		Backward(gradOut, gradZ *mat.Dense)
		ForwardLinear(z, wT, yT *mat.Dense) bool
		BackwardLinear(gyT, wT, gradZ, gradWT *mat.Dense) bool
	}, z, wT, gyT, g *mat.Dense) result {
		m, d0 := z.Dims()
		c, D := wT.Dims()
		phi, gz := mat.NewDense(m, D, nil), mat.NewDense(m, d0, nil)
		fm.Forward(z, phi)
		fm.Backward(g, gz)
		y, gz2, gw := mat.NewDense(c, m, nil), mat.NewDense(m, d0, nil), mat.NewDense(c, D, nil)
		if !fm.ForwardLinear(z, wT, y) || !fm.BackwardLinear(gyT, wT, gz2, gw) {
			t.Fatal("fused kernels not available")
		}
		return result{phi, gz, y, gz2, gw}
	}
	rng := rand.New(rand.NewPCG(21, 22))
	for _, tc := range []struct {
		name  string
		rff   bool
		scale float64
		d0, D int
	}{
		{"hyla small-λ", false, 0.01, 16, 203},
		{"hyla large-λ", false, 3, 16, 100},
		{"hyla d0=3", false, 0.5, 3, 17},
		{"hyla d0=50", false, 0.5, 50, 96},
		{"rff narrow", true, 0.01, 16, 203},
		{"rff wide", true, 2, 16, 100},
		{"rff d0=5", true, 0.3, 5, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const m, c = 150, 5
			var s *Samples
			var z *mat.Dense
			if tc.rff {
				s = SampleRFF(rng, tc.D, tc.d0, tc.scale)
				z = randomDense(rng, m, tc.d0)
			} else {
				s = SampleHyLa(rng, tc.D, tc.d0, tc.scale)
				z = randomBallPoints(rng, m, tc.d0, 0.99)
			}
			wT, gyT, g := randomDense(rng, c, tc.D), randomDense(rng, c, m), randomDense(rng, m, tc.D)
			var ref result
			for _, a := range vec.Available() {
				restore, err := vec.Use(a)
				if err != nil {
					t.Fatal(err)
				}
				var got result
				if tc.rff {
					fm, _ := NewRFF(s)
					got = run(fm, z, wT, gyT, g)
				} else {
					fm, _ := NewHyLa(s, ConventionCode)
					got = run(fm, z, wT, gyT, g)
				}
				restore()
				if ref == nil {
					ref = got
					continue
				}
				for k, name := range []string{"Forward", "Backward", "ForwardLinear", "BackwardLinear ∂Z", "BackwardLinear ∂W"} {
					gr, rr := got[k].RawMatrix().Data, ref[k].RawMatrix().Data
					for i := range gr {
						if math.Float64bits(gr[i]) != math.Float64bits(rr[i]) {
							t.Fatalf("%s: %s[%d] = %v on %s, %v on generic", tc.name, name, i, gr[i], a, rr[i])
						}
					}
				}
			}
		})
	}
}

// TestHyLaBlockedKernelsMatchRows checks the grouped kernels of the HyLa
// map against the row-by-row computation they replaced, bit for bit: the
// distances panel by panel of omegaP (hylaVecDists) against vec.Dist over
// Ωᵀ for one row, and the gradients through Ωᵀ strip by strip
// (hylaVecGz) against gzRows, and the products with the layer's weights
// (hylaVecRowDots, hylaVecAxpyRows) against vec.RowDots and hylaVecAxpy,
// for group sizes, D, d0 and class counts that leave every kind of
// remainder (a last panel of 32 samples, d0 over 64, d0 mod 4, C mod 4).
func TestHyLaBlockedKernelsMatchRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ rows, D, d0 int }{
		{1, 8, 1}, {3, 40, 2}, {8, 500, 50}, {5, 96, 7}, {8, 130, 65}, {2, 64, 4}, {7, 203, 16},
	} {
		s := SampleHyLa(rng, tc.D, tc.d0, 0.5)
		h, err := NewHyLa(s, ConventionCode)
		if err != nil {
			t.Fatal(err)
		}
		v := h.vec
		dp := v.dp
		if v.dq%v.pw != 0 || v.dq < dp || (tc.d0 > 64) != (v.pw == 32) {
			t.Fatalf("D %d d0 %d: panels of %d over %d samples (dp %d)", tc.D, tc.d0, v.pw, v.dq, dp)
		}
		z := randomBallPoints(rng, tc.rows, tc.d0, 0.9).RawMatrix().Data
		qb := make([]float64, tc.rows*v.dq)
		hylaVecDists(v, z, tc.d0, tc.rows, qb)
		q := make([]float64, dp)
		for r := 0; r < tc.rows; r++ {
			vec.Dist(z[r*tc.d0:(r+1)*tc.d0], v.omegaT, dp, q)
			for j := 0; j < dp; j++ {
				if got := qb[r*v.dq+j]; math.Float64bits(got) != math.Float64bits(q[j]) {
					t.Fatalf("D %d d0 %d row %d: distance %d is %v, want %v (row by row)", tc.D, tc.d0, r, j, got, q[j])
				}
			}
		}
		cb := make([]float64, tc.rows*dp)
		for i := range cb {
			cb[i] = rng.NormFloat64()
		}
		const stride = 70 // rows of gz apart, as in a wider matrix
		gz := make([]float64, (tc.rows-1)*stride+tc.d0)
		hylaVecGz(cb, v.omegaT, dp, tc.d0, tc.rows, gz, stride)
		want := make([]float64, tc.d0)
		for r := 0; r < tc.rows; r++ {
			gzRows(cb[r*dp:(r+1)*dp], v.omegaT, dp, want)
			for k, w := range want {
				if got := gz[r*stride+k]; math.Float64bits(got) != math.Float64bits(w) {
					t.Fatalf("D %d d0 %d row %d: gz[%d] is %v, want %v (gzRows)", tc.D, tc.d0, r, k, got, w)
				}
			}
		}
		// The products with the layer's weights: hylaVecRowDots against
		// vec.RowDots and hylaVecAxpyRows against hylaVecAxpy, row by row.
		for _, nc := range []int{1, 3, 4, 8, 52} {
			w := make([]float64, nc*dp)
			gy := make([]float64, tc.rows*nc)
			for _, x := range [][]float64{w, gy} {
				for i := range x {
					x[i] = rng.NormFloat64()
				}
			}
			out := make([]float64, tc.rows*(nc+2))
			hylaVecRowDots(cb, tc.rows, dp, w, nc, out, nc+2)
			wantY := make([]float64, nc)
			partR, partW := make([]float64, nc*dp), make([]float64, nc*dp)
			for i := range partR {
				partR[i] = rng.NormFloat64()
			}
			copy(partW, partR)
			hylaVecAxpyRows(partR, dp, gy, nc, cb, tc.rows)
			for r := 0; r < tc.rows; r++ {
				vec.RowDots(cb[r*dp:(r+1)*dp], w, dp, wantY)
				for k, y := range wantY {
					if got := out[r*(nc+2)+k]; math.Float64bits(got) != math.Float64bits(y) {
						t.Fatalf("D %d d0 %d C %d row %d: y[%d] is %v, want %v (RowDots)", tc.D, tc.d0, nc, r, k, got, y)
					}
				}
				hylaVecAxpy(partW, dp, gy[r*nc:(r+1)*nc], cb[r*dp:(r+1)*dp])
			}
			for i, x := range partW {
				if math.Float64bits(partR[i]) != math.Float64bits(x) {
					t.Fatalf("D %d d0 %d C %d: part[%d] is %v, want %v (row by row)", tc.D, tc.d0, nc, i, partR[i], x)
				}
			}
		}
	}
}

// TestLinearWideSameBits: with many classes the maps' fused products with
// the layer's weights go four classes at a time over groups of rows
// (hylaWideClasses); the results must have the bits of the row-by-row
// products, for both maps, class counts with and without a remainder past
// the groups of four, on every kernel path.
func TestLinearWideSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const m, D, d0 = 61, 400, 16
	type linear interface {
		ForwardLinear(z, wT, yT *mat.Dense) bool
		BackwardLinear(gyT, wT, gradZ, gradWT *mat.Dense) bool
		SetWorkers(int)
	}
	for _, c := range []int{3, 8, 13, 16} {
		for _, rff := range []bool{false, true} {
			var s *Samples
			var z *mat.Dense
			if rff {
				s, z = SampleRFF(rng, D, d0, 0.3), randomDense(rng, m, d0)
			} else {
				s, z = SampleHyLa(rng, D, d0, 0.5), randomBallPoints(rng, m, d0, 0.99)
			}
			wT, gyT := randomDense(rng, c, D), randomDense(rng, c, m)
			run := func(wide int) []*mat.Dense {
				defer func(old int) { hylaWideClasses = old }(hylaWideClasses)
				hylaWideClasses = wide
				var fm linear
				if rff {
					fm, _ = NewRFF(s)
				} else {
					fm, _ = NewHyLa(s, ConventionCode)
				}
				fm.SetWorkers(2)
				y, gz, gw := mat.NewDense(c, m, nil), mat.NewDense(m, d0, nil), mat.NewDense(c, D, nil)
				if !fm.ForwardLinear(z, wT, y) || !fm.BackwardLinear(gyT, wT, gz, gw) {
					t.Fatal("fused kernels not available")
				}
				return []*mat.Dense{y, gz, gw}
			}
			for _, a := range vec.Available() {
				restore, err := vec.Use(a)
				if err != nil {
					t.Fatal(err)
				}
				rows, grouped := run(1<<30), run(0)
				restore()
				for k, name := range []string{"Y", "∂L/∂Z", "∂L/∂W"} {
					for i, v := range rows[k].RawMatrix().Data {
						if w := grouped[k].RawMatrix().Data[i]; math.Float64bits(v) != math.Float64bits(w) {
							t.Fatalf("rff=%v c=%d %s: %s entry %d: row by row %v, grouped %v", rff, c, a, name, i, v, w)
						}
					}
				}
			}
		}
	}
}
