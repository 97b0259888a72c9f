package stages

import (
	"math"
	"testing"
)

// The chart's y axis keeps a margin around the data and spans at least two
// percentage points, so equal values do not get an axis whose ticks all
// read the same number.
func TestChartYRange(t *testing.T) {
	for _, tc := range []struct{ lo, hi, wantLo, wantHi float64 }{
		{50, 100, 47, 103},
		{100, 100, 99, 101},
		{100 - 1e-13, 100, 99, 101},
		{70, 71, 69.5, 71.5},
		{0, 0, -1, 1},
	} {
		lo, hi := chartYRange(tc.lo, tc.hi)
		if math.Abs(lo-tc.wantLo) > 1e-9 || math.Abs(hi-tc.wantHi) > 1e-9 {
			t.Errorf("chartYRange(%v, %v) = %v, %v; want %v, %v", tc.lo, tc.hi, lo, hi, tc.wantLo, tc.wantHi)
		}
	}
}
