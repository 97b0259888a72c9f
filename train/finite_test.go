package train

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCheckFiniteRowsNamesFirstEntry: the check of Z on the workers names
// the first non-finite entry in row-major order, as the serial check
// does, whichever block finds one first.
func TestCheckFiniteRowsNamesFirstEntry(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  [][2]int // row, column
		want string
	}{
		{"finite", nil, ""},
		{"one", [][2]int{{57, 3}}, "embedding Z entry 288 is NaN: non-finite value"},
		{"two blocks", [][2]int{{90, 0}, {12, 4}}, "embedding Z entry 64 is NaN: non-finite value"},
		{"first entry", [][2]int{{0, 0}, {99, 4}}, "embedding Z entry 0 is NaN: non-finite value"},
	} {
		for _, workers := range []int{1, 2, 3} {
			z := mat.NewDense(100, 5, nil)
			for _, b := range tc.bad {
				z.Set(b[0], b[1], math.NaN())
			}
			err := (&trainer{workers: workers}).checkFiniteRows(context.Background(), "embedding Z", z)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s, %d workers: %v", tc.name, workers, err)
			case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, ErrNonFinite)):
				t.Errorf("%s, %d workers: %v, want %q", tc.name, workers, err, tc.want)
			}
		}
	}
}
