//go:build goexperiment.simd && amd64

package hyla

import (
	"math"
	"math/rand/v2"
	"simd/archsimd"
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

// The Go reference of hylaMathAAVX512 and hylaMathBAVX512 (the assembly spells out these
// operations one by one): the constants and the log and power of the
// kernels, then the pass itself.

const (
	vecLn2Hi = 6.93147180369123816490e-01
	vecLn2Lo = 1.90821492927058770002e-10
	vecLg1   = 6.666666666666735130e-01
	vecLg2   = 3.999999999940941908e-01
	vecLg3   = 2.857142874366239149e-01
	vecLg4   = 2.222219843214978396e-01
	vecLg5   = 1.818357216161805012e-01
	vecLg6   = 1.531383769920937332e-01
	vecLg7   = 1.479819860511658591e-01
)

// vecLog returns log x for eight positive normal x.
func vecLog(x archsimd.Float64x8) archsimd.Float64x8 {
	one := archsimd.BroadcastFloat64x8(1)
	bits := x.AsUint64x8()
	e := bits.ShiftAllRight(52).AsInt64x8().Sub(archsimd.BroadcastInt64x8(1023)).ConvertToFloat64()
	m := bits.And(archsimd.BroadcastUint64x8(1<<52 - 1)).Or(archsimd.BroadcastUint64x8(1023 << 52)).AsFloat64x8()
	big := m.Greater(archsimd.BroadcastFloat64x8(math.Sqrt2))
	half := archsimd.BroadcastFloat64x8(0.5)
	m = m.Mul(half).Merge(m, big)
	e = e.Add(one).Merge(e, big)
	f := m.Sub(one)
	s := f.Div(f.Add(archsimd.BroadcastFloat64x8(2)))
	s2 := s.Mul(s)
	s4 := s2.Mul(s2)
	b := archsimd.BroadcastFloat64x8
	t1 := s2.Mul(b(vecLg1).Add(s4.Mul(b(vecLg3).Add(s4.Mul(b(vecLg5).Add(s4.Mul(b(vecLg7))))))))
	t2 := s4.Mul(b(vecLg2).Add(s4.Mul(b(vecLg4).Add(s4.Mul(b(vecLg6))))))
	r := t1.Add(t2)
	hfsq := half.Mul(f).Mul(f)
	// k*Ln2Hi - ((hfsq - (s*(hfsq+R) + k*Ln2Lo)) - f)
	inner := hfsq.Sub(s.Mul(hfsq.Add(r)).Add(e.Mul(b(vecLn2Lo)))).Sub(f)
	return e.Mul(b(vecLn2Hi)).Sub(inner)
}

// vecPowHalf returns p^(k/2) for k ≥ 0.
func vecPowHalf(p archsimd.Float64x8, k int) archsimd.Float64x8 {
	r := archsimd.BroadcastFloat64x8(1)
	if k&1 == 1 {
		r = p.Sqrt()
	}
	base := p
	for e := k >> 1; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = r.Mul(base)
		}
		base = base.Mul(base)
	}
	return r
}

// hylaMathGo is hylaVecRow's second pass in Go (archsimd), with the
// scalar fallback per block.
func hylaMathGo(h *HyLaMap, q, phi, e1, e2, zi []float64, a float64) {
	v := h.vec
	dp := v.dp
	zero := archsimd.BroadcastFloat64x8(0)
	rho := float64(h.twoRho) / 2
	aV := archsimd.BroadcastFloat64x8(a)
	one := archsimd.BroadcastFloat64x8(1)
	rhoV := archsimd.BroadcastFloat64x8(rho)
	lim := archsimd.BroadcastFloat64x8(0.5)
	lo := archsimd.BroadcastFloat64x8(0x1p-1000)
	hi := archsimd.BroadcastFloat64x8(0x1p1000)
	lam, sinB, cosB := v.lam[:dp], v.sinB[:dp], v.cosB[:dp]
	phi, e1, e2 = phi[:dp], e1[:dp], e2[:dp]
	for j := 0; j < dp; j += 8 {
		qv := archsimd.LoadFloat64x8((*[8]float64)(q[j : j+8]))
		invq := one.Div(qv)
		p := aV.Mul(invq)
		lg := vecLog(p)
		lamv := archsimd.LoadFloat64x8((*[8]float64)(lam[j : j+8]))
		delta := lamv.Mul(lg)
		if p.Less(lo).Or(p.Greater(hi)).Or(p.IsNaN()).Or(delta.Max(zero.Sub(delta)).Greater(lim)).ToBits() != 0 {
			hylaVecScalarBlock(h, phi, e1, e2, zi, a, j)
			continue
		}
		mag := vecPowHalf(p, h.twoRho)
		sd, cd := vecSinCosSmall(delta)
		sb := archsimd.LoadFloat64x8((*[8]float64)(sinB[j : j+8]))
		cb := archsimd.LoadFloat64x8((*[8]float64)(cosB[j : j+8]))
		sn := sb.Mul(cd).Add(cb.Mul(sd))
		cs := cb.Mul(cd).Sub(sb.Mul(sd))
		mag.Mul(cs).Store((*[8]float64)(phi[j : j+8]))
		dv := mag.Mul(rhoV.Mul(cs).Sub(lamv.Mul(sn)))
		dv.Store((*[8]float64)(e1[j : j+8]))
		dv.Mul(invq).Store((*[8]float64)(e2[j : j+8]))
	}
}

// TestHyLaMathAssemblyMatchesGo: the assembly of the second pass gives the
// same bits as its Go reference, on rows from the origin to the boundary
// and with λ large enough for the scalar fallback in some blocks; d0 odd
// and even (a square root or none in P^{(d0−1)/2}).
func TestHyLaMathAssemblyMatchesGo(t *testing.T) {
	if !hylaVecOK {
		t.Skip("CPU without AVX-512")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		d0, D int
		scale float64
	}{{16, 203, 0.01}, {16, 200, 1}, {15, 64, 0.1}, {2, 40, 3}, {50, 96, 0.5}} {
		s := SampleHyLa(rng, tc.D, tc.d0, tc.scale)
		h, err := NewHyLa(s, ConventionCode)
		if err != nil {
			t.Fatal(err)
		}
		dp := h.vec.dp
		z := randomBallPoints(rng, 64, tc.d0, 0.999)
		fallbacks := 0
		for i := 0; i < 64; i++ {
			zi := z.RawRowView(i)
			a := oneMinusSq(zi)
			q := make([]float64, dp)
			hylaDistAVX512(&zi[0], tc.d0, &h.vec.omegaT[0], dp*8, &q[0], dp/8)
			var out [2][3][]float64
			for k := range out {
				for r := range out[k] {
					out[k][r] = make([]float64, dp)
				}
			}
			hylaVecRow(h, make([]float64, dp), out[0][0], out[0][1], out[0][2], zi, a)
			hylaMathGo(h, q, out[1][0], out[1][1], out[1][2], zi, a)
			for r, name := range []string{"φ", "∂φ/∂h", "∂φ/∂h/q"} {
				for j := range out[0][r] {
					if math.Float64bits(out[0][r][j]) != math.Float64bits(out[1][r][j]) {
						t.Fatalf("d0=%d D=%d row %d: %s[%d] = %v (assembly), %v (Go)", tc.d0, tc.D, i, name, j, out[0][r][j], out[1][r][j])
					}
				}
			}
			for j := 0; j < tc.D; j++ {
				if d := h.lam[j] * math.Log(a/q[j]); math.Abs(d) > 0.5 {
					fallbacks++
				}
			}
		}
		t.Logf("d0=%d D=%d scale %g: %d entries through the scalar fallback", tc.d0, tc.D, tc.scale, fallbacks)
	}
}

// TestRFFLinearMatchesScalar: the RFF map's fused kernels against the
// scalar map and explicit products (Y = Wᵀ·φᵀ, ∂L/∂W = gyT·φ, ∂L/∂Z through
// ∂L/∂φ = gyTᵀ·W), for small arguments and for large ones (scalar
// fallback), and the same bits for 1…4 workers.
func TestRFFLinearMatchesScalar(t *testing.T) {
	if !hylaVecOK {
		t.Skip("CPU without AVX-512")
	}
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
			t.Fatal("ForwardLinear ran without the AVX-512 tables")
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
