//go:build goexperiment.simd && amd64

package hyla

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestHyLaSIMDMatchesScalar compares the AVX-512 kernels with the scalar
// code on points from the origin to the boundary, including blocks that
// take the scalar fallback (large λ).
func TestHyLaSIMDMatchesScalar(t *testing.T) {
	if !hylaVecOK {
		t.Skip("CPU without AVX-512")
	}
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
				t.Fatal("no AVX-512 tables")
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
				t.Error("ForwardLinear ran without the AVX-512 tables")
			}
			// After ForwardLinear (no φ stored) the backward passes give the same bits as after Forward.
			gzL2, gwL2 := mat.NewDense(m, tc.d0, nil), mat.NewDense(c, tc.D, nil)
			vec.BackwardLinear(gyT, wT, gzL2, gwL2)
			if !mat.Equal(gzL, gzL2) || !mat.Equal(gwL, gwL2) {
				t.Error("BackwardLinear after ForwardLinear differs from BackwardLinear after Forward")
			}
			t.Logf("relative difference: forward %.2g, backward %.2g, backward through a linear layer %.2g, ∂L/∂W %.2g, Y %.2g", fw, bw, lw, ww, yw)
			if fw > 1e-12 || bw > 1e-10 || lw > 1e-10 || ww > 1e-12 || yw > 1e-12 {
				t.Errorf("AVX-512 vs scalar: forward %.3g, backward %.3g, linear %.3g, ∂L/∂W %.3g, Y %.3g", fw, bw, lw, ww, yw)
			}
		})
	}
}

// TestRFFSIMDMatchesScalar compares the RFF forward kernel with the scalar
// code, with small arguments (polynomial path) and large ones (fallback).
func TestRFFSIMDMatchesScalar(t *testing.T) {
	if !hylaVecOK {
		t.Skip("CPU without AVX-512")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, scale := range []float64{0.01, 3} {
		s := SampleRFF(rng, 203, 16, scale)
		vec, err := NewRFF(s)
		if err != nil {
			t.Fatal(err)
		}
		if vec.omegaT == nil {
			t.Fatal("no AVX-512 tables")
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
			t.Errorf("scale %v: AVX-512 vs scalar forward %.3g, backward %.3g", scale, fw, bw)
		}
	}
}

// TestHyLaLinearWorkersDeterministic: ForwardLinear and BackwardLinear
// (whose ∂L/∂Wᵀ sums rows in blocks) give the same bits for 1…5 workers,
// on a row count that spans several blocks.
func TestHyLaLinearWorkersDeterministic(t *testing.T) {
	if !hylaVecOK {
		t.Skip("CPU without AVX-512")
	}
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
