package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDropDrawIsFloat64Compare: dropDraw decides every draw as
// rng.Float64() >= p does, from the same stream, including at the
// thresholds themselves (draws whose low 53 bits are ⌈p·2^53⌉ and one
// less) and for p that are not multiples of 2^-53.
func TestDropDrawIsFloat64Compare(t *testing.T) {
	for _, p := range []float64{0, 1e-300, 0x1p-53, 0.1, 0.2, 0.5, 0.6, 1 - 0x1p-53, 1, 1.5, math.NaN(), -0.3} {
		a := rand.New(rand.NewPCG(7, uint64(math.Float64bits(p))))
		b := rand.New(rand.NewPCG(7, uint64(math.Float64bits(p))))
		d := newDropDraw(p)
		for i := range 20000 {
			if got, want := d.keep(a), b.Float64() >= p; got != want {
				t.Fatalf("p=%v draw %d: keep %v, Float64() >= p %v", p, i, got, want)
			}
		}
		// At the threshold: a source that returns chosen values.
		if p > 0 && p < 1 {
			m := uint64(math.Ceil(p * (1 << 53)))
			for _, x := range []uint64{m - 1, m, m + 1, m | 0x7ff<<53} {
				src := fixed{x}
				if got, want := d.keep(rand.New(&src)), rand.New(&fixed{x}).Float64() >= p; got != want {
					t.Errorf("p=%v x=%#x: keep %v, Float64() >= p %v", p, x, got, want)
				}
			}
		}
	}
}

// fixed is a rand.Source that always returns its value.
type fixed struct{ x uint64 }

func (f *fixed) Uint64() uint64 { return f.x }
