package sparse

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// FromDenseBits keeps every entry that is not +0 and DenseBits gives the
// matrix back bit for bit; ToDense, which adds to +0, turns −0 into +0.
func TestDenseBitsRoundTrip(t *testing.T) {
	negZero := math.Copysign(0, -1)
	d := mat.NewDense(3, 4, []float64{
		0, negZero, 1.5, 0,
		0, 0, 0, 0,
		math.NaN(), math.Inf(-1), 0, -2,
	})
	m := FromDenseBits(d)
	if m.NNZ() != 5 || m.CheckSorted() != nil || m.Validate() != nil {
		t.Fatalf("%d entries (sorted: %v), want 5: −0, 1.5, NaN, −Inf, −2", m.NNZ(), m.CheckSorted())
	}
	back := m.DenseBits()
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			if math.Float64bits(back.At(i, j)) != math.Float64bits(d.At(i, j)) {
				t.Fatalf("(%d,%d) = %v, want %v", i, j, back.At(i, j), d.At(i, j))
			}
		}
	}
	if math.Signbit(m.ToDense().At(0, 1)) {
		t.Fatal("ToDense kept −0: DenseBits is not needed")
	}
	if e := FromDenseBits(&mat.Dense{}); e.Rows != 0 || e.NNZ() != 0 || !e.DenseBits().IsEmpty() {
		t.Fatal("empty matrix")
	}
}
