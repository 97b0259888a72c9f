package manifold

import (
	"math"
	"testing"
)

// maxFinite, minFinite and clampFinite are math.Max, math.Min and their
// composition bit for bit, for every special argument against finite
// bounds (zeros of both signs, infinities, NaN, equal values).
func TestMinMaxFiniteAreMath(t *testing.T) {
	negZero := math.Copysign(0, -1)
	xs := []float64{0, negZero, 1, -1, 1e-15, -1e-15, 15, -15, 16, -16, 50, 1e-6, 1e300, -1e300,
		math.Inf(1), math.Inf(-1), math.NaN(), math.Float64frombits(0x7ff4000000000000), 5e-324, -5e-324}
	ys := []float64{0, negZero, 1, -1, 15, -15, 50, MinNorm, ArcoshMin, 1e-6, 5e-324, -5e-324}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for _, x := range xs {
		for _, y := range ys {
			if got, want := maxFinite(x, y), math.Max(x, y); !same(got, want) {
				t.Errorf("maxFinite(%v, %v) = %v (%#x), math.Max %v (%#x)", x, y, got, math.Float64bits(got), want, math.Float64bits(want))
			}
			if got, want := minFinite(x, y), math.Min(x, y); !same(got, want) {
				t.Errorf("minFinite(%v, %v) = %v (%#x), math.Min %v (%#x)", x, y, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
		for _, hi := range []float64{15, 1 - 1e-15, 1} {
			if got, want := clampFinite(x, -hi, hi), math.Max(-hi, math.Min(hi, x)); !same(got, want) {
				t.Errorf("clampFinite(%v, ±%v) = %v, want %v", x, hi, got, want)
			}
		}
	}
}
