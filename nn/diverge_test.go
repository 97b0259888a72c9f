package nn

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestLossWatch: a non-finite loss fails at once; a finite one fails only
// when the last epoch's is over DivergenceFactor times the reference,
// the larger of the first epoch's loss and chance's.
func TestLossWatch(t *testing.T) {
	ln7 := math.Log(7)
	for _, tc := range []struct {
		name   string
		chance float64
		losses []float64
		check  int // epoch Check fails at, −1: none
		done   string
	}{
		{"learning", ln7, []float64{1.9, 1.5, 0.8}, -1, ""},
		{"climbs then learns", ln7, []float64{121, 9e9, 5e3, 80}, -1, ""},
		{"ends diverged", ln7, []float64{1.9, 40, 137265}, -1, "training diverged at epoch 2, the last: the training loss 137265 is over 1000 times its reference 1.946"},
		{"a bad start is the reference", ln7, []float64{500, 400, 450_000}, -1, ""},
		{"just past", 0, []float64{2, 2001}, -1, "its reference 2 "},
		{"NaN", ln7, []float64{1.9, math.NaN()}, 1, ""},
		{"Inf", ln7, []float64{math.Inf(1)}, 0, ""},
	} {
		w := LossWatch{Chance: tc.chance}
		failed := -1
		for e, l := range tc.losses {
			if err := w.Check(e, l); err != nil {
				var d *DivergedError
				if !errors.As(err, &d) || d.Epoch != e || !strings.Contains(err.Error(), "diverged at epoch") {
					t.Errorf("%s: Check error %v", tc.name, err)
				}
				failed = e
				break
			}
		}
		if failed != tc.check {
			t.Errorf("%s: Check failed at epoch %d, want %d", tc.name, failed, tc.check)
		}
		if failed >= 0 {
			continue
		}
		err := w.Done()
		if (err == nil) != (tc.done == "") || err != nil && !strings.Contains(err.Error(), tc.done) {
			t.Errorf("%s: Done = %v, want %q", tc.name, err, tc.done)
		}
	}
	if ChanceLoss(1) != math.Ln2 || ChanceLoss(7) != math.Log(7) {
		t.Error("ChanceLoss")
	}
}

// A watch with its own Factor (a bounded loss) fails past that factor and
// says which.
func TestLossWatchFactor(t *testing.T) {
	for _, tc := range []struct {
		losses []float64
		done   string
	}{
		{[]float64{1.3, 2.9, 2.74}, "the training loss 2.74 is over 1.5 times its reference 1.386"},
		{[]float64{1.3, 0.8, 0.42}, ""},
		{[]float64{22.7, 2.25, 2.25}, ""}, // the reference is the first epoch's
	} {
		w := LossWatch{Chance: 2 * math.Ln2, Factor: 1.5}
		for e, l := range tc.losses {
			if err := w.Check(e, l); err != nil {
				t.Fatal(err)
			}
		}
		err := w.Done()
		if (err == nil) != (tc.done == "") || err != nil && !strings.Contains(err.Error(), tc.done) {
			t.Errorf("%v: Done = %v, want %q", tc.losses, err, tc.done)
		}
	}
}
