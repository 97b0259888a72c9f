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

// SpMMRow refuses an index whose row is not wholly in src, on every path
// (the AVX-512 kernel checks the indices as it loads them, the others
// before), without writing to d; the last row that holds the w values is
// accepted.
func TestSpMMRowIndexOutOfRange(t *testing.T) {
	for _, w := range []int{4, 8, 12, 16, 40, 52} {
		stride := w + 3
		src := make([]float64, 9*stride+w) // rows 0…9 hold w values
		for _, tc := range []struct {
			idx []int32
			ok  bool
		}{
			{[]int32{0, 9}, true},
			{[]int32{0, 10}, false},
			{[]int32{-1}, false},
			{[]int32{math.MaxInt32}, false},
			{[]int32{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, -7}, false},
			{[]int32{math.MinInt32, 0}, false},
		} {
			forEachPath(t, func(a Arch) {
				d := make([]float64, w)
				for c := range d {
					d[c] = 7
				}
				func() {
					defer func() {
						r := recover()
						msg, _ := r.(string)
						switch {
						case tc.ok && r != nil:
							t.Errorf("%s w=%d idx %v: panic %v", a, w, tc.idx, r)
						case !tc.ok && !strings.Contains(msg, "column index out of range"):
							t.Errorf("%s w=%d idx %v: recovered %v, want the out-of-range panic", a, w, tc.idx, r)
						case !tc.ok:
							for c, v := range d {
								if v != 7 {
									t.Errorf("%s w=%d idx %v: d[%d] = %v written before the panic", a, w, tc.idx, c, v)
									break
								}
							}
						}
					}()
					SpMMRow(tc.idx, make([]float64, len(tc.idx)), src, stride, d, true)
				}()
			})
		}
	}
}

// rowsInRange on every path for every list length 0–70 (the AVX2 check's
// groups of 32 and 8 and its masked last 1–7), with one bad index at each
// position in turn or none, and indices past the list that are all bad
// (so a check that reads past the list's end fails).
func TestRowsInRangeLongLists(t *testing.T) {
	const n, stride, w = 10*16 + 8, 16, 8 // rows 0…10 hold w values
	backing := make([]int32, maxGuardLen+16)
	for l := 0; l <= maxGuardLen; l++ {
		for bad := -1; bad < l; bad++ {
			for _, b := range []int32{11, -1, math.MinInt32, math.MaxInt32} {
				for k := range backing {
					backing[k] = -1
				}
				idx := backing[:l]
				for k := range idx {
					idx[k] = int32((k*7 + l) % 11)
				}
				if l > 0 && bad < 0 {
					idx[l-1] = 10 // the last row that fits
				}
				if bad >= 0 {
					idx[bad] = b
				}
				want := bad < 0
				forEachPath(t, func(a Arch) {
					if got := rowsInRange(idx, n, stride, w); got != want {
						t.Fatalf("%s: len %d, bad index %d at %d: rowsInRange = %v, want %v", a, l, b, bad, got, want)
					}
				})
				if bad < 0 {
					break
				}
			}
		}
	}
}
