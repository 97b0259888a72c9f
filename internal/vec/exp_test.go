package vec

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"golang.org/x/sys/cpu"
)

// expCases are Exp's special and edge arguments: the infinities, NaN,
// zeros, the overflow threshold and its neighbours, the ends of the
// vector kernels' range, the subnormal results and the underflow to 0, and
// an argument whose k is outside int32.
var expCases = []float64{
	math.Inf(1), math.Inf(-1), math.NaN(), -math.NaN(), 0, math.Copysign(0, -1),
	7.09782712893384e+02, math.Nextafter(7.09782712893384e+02, 1000), 709.7, 709.79,
	expLo, expHi, math.Nextafter(expLo, -1000), math.Nextafter(expHi, 1000),
	-708.4, -708.39641853226408, -709, -720, -744.44, -745.1332191019411, -745.14, -746, -800,
	-1e10, -1e300, -math.MaxFloat64, 1e-300, -1e-300, 5e-324, 1, -1, 0.5, -0.5,
	0.34657359027997264, 0.34657359027997265, -0.34657359027997264, 1e-8, 88.7, -103.9,
}

// Exp is math.Exp bit for bit where math.Exp is amd64's FMA path (the
// definition Exp copies); elsewhere it is within an ulp of it (the
// cross-machine bits are pinned by TestAttentionGolden).
func TestExpMatchesMath(t *testing.T) {
	exact := runtime.GOARCH == "amd64" && cpu.X86.HasAVX && cpu.X86.HasFMA
	r := rand.New(rand.NewPCG(3, 5))
	xs := append([]float64(nil), expCases...)
	for range 2_000_000 {
		xs = append(xs, -760+float64(1480*r.Float64()))
	}
	for range 200_000 {
		xs = append(xs, (2*r.Float64()-1)*math.Ldexp(1, r.IntN(60)-50))
	}
	for _, x := range xs {
		got, want := Exp(x), math.Exp(x)
		if math.IsNaN(want) {
			if !math.IsNaN(got) || math.Float64bits(got) != math.Float64bits(x) {
				t.Fatalf("Exp(%v) = %v (%#x), want the argument back", x, got, math.Float64bits(got))
			}
			continue
		}
		if exact {
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("Exp(%v) = %v (%#x), math.Exp %v (%#x)", x, got, math.Float64bits(got), want, math.Float64bits(want))
			}
			continue
		}
		if x > 709 || x < -708 {
			continue // amd64's overflow and subnormal steps, not exp's rounding
		}
		if d := math.Abs(got - want); d > 2*ulp(want) {
			t.Fatalf("Exp(%v) = %v, math.Exp %v: off by %g", x, got, want, d)
		}
	}
	if !exact {
		t.Logf("math.Exp here is not amd64's FMA path: checked to an ulp only")
	}
}

// ulp is the spacing of float64s at x.
func ulp(x float64) float64 {
	x = math.Abs(x)
	if math.IsInf(x, 0) {
		return 0
	}
	return math.Nextafter(x, math.Inf(1)) - x
}
