package nn

import (
	"fmt"
	"math"
)

// DivergenceFactor is how many times its reference the last epoch's
// training loss may be before the run counts as diverged: the reference
// is the larger of the first epoch's loss and chance's (ln C for C
// classes), so a run that starts badly is not cut short, while a loss
// that ends a thousand times above where it started means the model left
// any useful region (a learning rate of 1e6 on Cora's HyLa ends at
// 137,265 against ln 7 = 1.95) and its accuracy is noise, however finite.
// Only the last epoch counts: some legitimate runs climb far on the way
// (HyLa's logistic regression on R8's TF-IDF rows passes 1e9 in its
// first epochs from 121, then learns).
const DivergenceFactor = 1000

// DivergedError reports a training run whose loss stopped being finite or
// grew past Factor times its reference.
type DivergedError struct {
	Epoch  int
	Loss   float64
	Ref    float64 // the reference loss; 0 when Loss is not finite
	Factor float64 // how many times Ref the loss may be (the watch's)
}

func (e *DivergedError) Error() string {
	if math.IsNaN(e.Loss) || math.IsInf(e.Loss, 0) {
		return fmt.Sprintf("training diverged at epoch %d: the training loss is %v", e.Epoch, e.Loss)
	}
	return fmt.Sprintf("training diverged at epoch %d, the last: the training loss %.6g is over %g times its reference %.4g "+
		"(the larger of the first epoch's and chance's)", e.Epoch, e.Loss, e.Factor, e.Ref)
}

// LossWatch tells a diverging training run from a learning one by its
// training loss: Check each epoch's, Done at the end (see
// DivergenceFactor).
type LossWatch struct {
	// Chance is the loss of a uniform guess (ChanceLoss); 0 if unknown.
	Chance float64
	// Factor is how many times its reference the last loss may be;
	// 0 means DivergenceFactor. A loss the model bounds (a link
	// predictor's on the ball) needs a smaller one.
	Factor    float64
	ref, last float64
	lastEpoch int
	seen      bool
}

// ChanceLoss is the cross-entropy of a uniform guess over classes
// classes: ln C (ln 2 for a binary task).
func ChanceLoss(classes int) float64 {
	return math.Log(float64(max(classes, 2)))
}

// Check returns a *DivergedError when loss, the training loss of epoch,
// is not finite, and remembers it; the first call sets the reference.
func (w *LossWatch) Check(epoch int, loss float64) error {
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return &DivergedError{Epoch: epoch, Loss: loss}
	}
	if !w.seen {
		w.seen, w.ref = true, max(math.Abs(loss), w.Chance)
	}
	w.last, w.lastEpoch = loss, epoch
	return nil
}

// Done returns a *DivergedError when the last loss Check saw is past
// Factor (DivergenceFactor) times the reference: the run ended diverged.
func (w *LossWatch) Done() error {
	f := w.Factor
	if f <= 0 {
		f = DivergenceFactor
	}
	if w.seen && w.ref > 0 && w.last > f*w.ref {
		return &DivergedError{Epoch: w.lastEpoch, Loss: w.last, Ref: w.ref, Factor: f}
	}
	return nil
}
