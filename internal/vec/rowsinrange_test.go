package vec

import (
	"math"
	"strings"
	"testing"
)

// rowsInRange agrees with its definition (j ≥ 0 and j·stride + w ≤ n for
// every j) on the edges: the last row that fits, one past it, negative
// indices, the largest int32, a src shorter than one row, stride 0.
func TestRowsInRange(t *testing.T) {
	naive := func(idx []int32, n, stride, w int) bool {
		for _, j := range idx {
			if j < 0 || int(j)*stride+w > n {
				return false
			}
		}
		return true
	}
	for _, tc := range []struct {
		name         string
		idx          []int32
		n, stride, w int
	}{
		{"empty", nil, 0, 8, 8},
		{"last row fits", []int32{0, 3, 9}, 80, 8, 8},
		{"one past the last row", []int32{0, 10}, 80, 8, 8},
		{"narrow window in a wide row", []int32{12}, 100, 8, 4},
		{"window past the end", []int32{12}, 100, 8, 5},
		{"negative", []int32{2, -1}, 80, 8, 8},
		{"most negative", []int32{math.MinInt32}, 80, 8, 8},
		{"largest int32", []int32{math.MaxInt32}, 80, 8, 8},
		{"src shorter than a row", []int32{0}, 7, 8, 8},
		{"stride 0", []int32{0, 5, 1000}, 8, 0, 8},
		{"stride 0, short src", []int32{0}, 7, 0, 8},
		{"stride 1", []int32{0, 92}, 100, 1, 8},
		{"stride 1, past", []int32{93}, 100, 1, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, want := rowsInRange(tc.idx, tc.n, tc.stride, tc.w), naive(tc.idx, tc.n, tc.stride, tc.w); got != want {
				t.Errorf("rowsInRange = %v, the definition says %v", got, want)
			}
		})
	}
}

// SpMMRow refuses an index whose row is not wholly in src before any
// kernel reads it, on every path.
func TestSpMMRowIndexOutOfRange(t *testing.T) {
	src := make([]float64, 10*8)
	d := make([]float64, 8)
	for _, idx := range [][]int32{{0, 10}, {-1}, {math.MaxInt32}} {
		func() {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, "column index out of range") {
					t.Errorf("idx %v: recovered %v, want the out-of-range panic", idx, r)
				}
			}()
			SpMMRow(idx, make([]float64, len(idx)), src, 8, d, false)
		}()
	}
}
