//go:build goexperiment.simd && amd64

package hyla

import (
	"math"
	"math/rand/v2"
	"simd/archsimd"
	"testing"
)

// TestVecSincosExactMatchesMath checks vecSincosExact against math.Sincos
// bit for bit on arguments of every size it accepts: small, around the
// octant boundaries kπ/4 (where the reduction is most delicate), huge (up
// to 2^29), subnormal, and both signs; and that vecSincosRegular turns away
// exactly the lanes it must.
func TestVecSincosExactMatchesMath(t *testing.T) {
	if !hylaVecOK || !sincosExactOK {
		t.Skip("no AVX-512, or a build whose scalar code may fuse multiply-adds")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	gen := []struct {
		name string
		f    func() float64
	}{
		{"uniform ±4", func() float64 { return 8*rng.Float64() - 4 }},
		{"uniform ±100", func() float64 { return 200*rng.Float64() - 100 }},
		{"log-uniform 1e-12…2^29", func() float64 { return math.Exp(rng.Float64()*(29*math.Ln2+12*math.Ln10) - 12*math.Ln10) }},
		{"near kπ/4", func() float64 {
			k := float64(rng.IntN(1 << 20))
			return k*math.Pi/4 + (rng.Float64()-0.5)*1e-9
		}},
		{"subnormal", func() float64 { return math.Float64frombits(1 + rng.Uint64N(1<<52-1)) }},
		{"just below 2^29", func() float64 { return math.Nextafter(sincosMax, 0) - float64(rng.IntN(1000)) }},
	}
	var x [8]float64
	for _, g := range gen {
		bad := 0
		for n := 0; n < 1<<16; n++ {
			for l := range x {
				x[l] = g.f()
				if rng.IntN(2) == 0 {
					x[l] = -x[l]
				}
			}
			v := archsimd.LoadFloat64x8(&x)
			if !vecSincosRegular(v) {
				t.Fatalf("%s: %v turned away", g.name, x)
			}
			sv, cv := vecSincosExact(v)
			var s, c [8]float64
			sv.Store(&s)
			cv.Store(&c)
			for l := range x {
				ws, wc := math.Sincos(x[l])
				if math.Float64bits(s[l]) != math.Float64bits(ws) || math.Float64bits(c[l]) != math.Float64bits(wc) {
					if bad++; bad <= 5 {
						t.Errorf("%s: Sincos(%v) = %v, %v; math: %v, %v", g.name, x[l], s[l], c[l], ws, wc)
					}
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d lanes differ", g.name, bad, 8<<16)
		}
	}
	for _, special := range []float64{0, math.Copysign(0, -1), sincosMax, -sincosMax, 1e300, math.Inf(1), math.Inf(-1), math.NaN()} {
		x = [8]float64{1, 2, 3, 4, 5, 6, 7, 8}
		x[3] = special
		if vecSincosRegular(archsimd.LoadFloat64x8(&x)) {
			t.Errorf("a lane %v was accepted", special)
		}
	}
}

// TestRFFExactBlockMatchesScalar: the vector fallback of the RFF map gives
// forwardScalar's bits, for wide frequencies (every block falls back) and
// d0 from 1 to 50.
func TestRFFExactBlockMatchesScalar(t *testing.T) {
	if !hylaVecOK || !sincosExactOK {
		t.Skip("no AVX-512, or a build whose scalar code may fuse multiply-adds")
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for _, d0 := range []int{1, 2, 7, 16, 50} {
		const D = 64
		s := SampleRFF(rng, D, d0, 5)
		r, err := NewRFF(s)
		if err != nil {
			t.Fatal(err)
		}
		oS, eS := make([]float64, D), make([]float64, D)
		oV, eV := make([]float64, D), make([]float64, D)
		for row := 0; row < 50; row++ {
			zi := make([]float64, d0)
			for k := range zi {
				zi[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(4)-2))
			}
			r.forwardScalar(zi, oS, eS, 0, D)
			for j := 0; j < D; j += 8 {
				if !rffExactBlock(zi, r.omegaT, D, j, s.B, r.scale, oV, eV) {
					t.Fatalf("d0 %d: block %d turned away", d0, j)
				}
			}
			for j := range D {
				if math.Float64bits(oV[j]) != math.Float64bits(oS[j]) || math.Float64bits(eV[j]) != math.Float64bits(eS[j]) {
					t.Fatalf("d0 %d, row %d, sample %d: (%v, %v), scalar (%v, %v)", d0, row, j, oV[j], eV[j], oS[j], eS[j])
				}
			}
		}
	}
}
