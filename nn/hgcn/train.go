package hgcn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// Split is a node-classification problem's labels and index sets.
type Split struct {
	Labels           []int // class of each node (−1 unlabelled)
	Classes          int
	Train, Val, Test []int
}

func (s *Split) check(n int) error {
	if len(s.Labels) != n {
		return fmt.Errorf("hgcn: %d labels for %d nodes", len(s.Labels), n)
	}
	for _, set := range []struct {
		name string
		idx  []int
	}{{"train", s.Train}, {"val", s.Val}, {"test", s.Test}} {
		if len(set.idx) == 0 {
			return fmt.Errorf("hgcn: empty %s set", set.name)
		}
		for _, i := range set.idx {
			if i < 0 || i >= n {
				return fmt.Errorf("hgcn: %s index %d outside the %d nodes", set.name, i, n)
			}
			if y := s.Labels[i]; y < 0 || y >= s.Classes {
				return fmt.Errorf("hgcn: %s node %d has label %d, want 0..%d", set.name, i, y, s.Classes-1)
			}
		}
	}
	return nil
}

// TrainConfig is a training run.
type TrainConfig struct {
	Epochs      int     // maximum number of epochs (≥ 1)
	LR          float64 // Adam learning rate
	WeightDecay float64 // PyTorch Adam's weight decay, on every parameter
	// Select is the validation metric that picks the reported epoch:
	// "accuracy", or "f1" (HGCN's has_improved: binary F1 of class 1 with
	// two classes, micro-F1 — accuracy — otherwise).
	Select string
	// Patience stops training after that many evaluations without a
	// better validation metric, but not before MinEpochs (HGCN: 100, 100);
	// 0 never stops early.
	Patience, MinEpochs int
	Workers             int
	Progress            func(EpochStats)
}

// EpochStats is one epoch's record.
type EpochStats struct {
	Epoch int     `json:"epoch"`
	Loss  float64 `json:"loss"`
	Train float64 `json:"train"`
	Val   float64 `json:"val"`
	Test  float64 `json:"test"`
	C     float64 `json:"c"`
}

// Result is a node-classification run: the metrics of the selected
// (early-stopped) epoch and of the last one.
type Result struct {
	Test, Val, Train     float64 // accuracies of the selected epoch
	TestF1, ValF1        float64 // F1 as HGCN computes it, selected epoch
	StopEpoch            int
	TestLast, ValLast    float64
	Epochs               int
	StoppedEarly         bool
	Curves               []EpochStats
	BestParams           map[string]*mat.Dense
	Embeddings           *mat.Dense // the selected epoch's embeddings
	Curvature, CurveLast float64
}

// DivergedError reports a run whose loss, gradient or parameter stopped
// being finite.
type DivergedError struct {
	Epoch int
	What  string // "loss" or "the gradient of P" or "P after the update"
	Value float64
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("training diverged at epoch %d: %s is %v (lower the learning rate?)", e.Epoch, e.What, e.Value)
}

// lossDiverged turns the loss watch's *nn.DivergedError into a
// *DivergedError about the training loss.
func lossDiverged(err error) error {
	var d *nn.DivergedError
	if !errors.As(err, &d) {
		return err
	}
	what := "the training loss"
	if d.Ref > 0 {
		what += fmt.Sprintf(" at the last epoch (over %g times its reference %.4g, the larger of the first epoch's and chance's)", d.Factor, d.Ref)
	}
	return &DivergedError{Epoch: d.Epoch, What: what, Value: d.Loss}
}

// firstNonFinite returns the first NaN or Inf of m, if any.
func firstNonFinite(m *mat.Dense) (float64, bool) {
	for _, v := range m.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return v, true
		}
	}
	return 0, false
}

// step applies Adam to every parameter from the tape's gradients, after
// checking that the gradients are finite, and checks the updated values.
func step(ps []*Param, nodes []*autodiff.Node, lr, wd float64, epoch int) error {
	for i, p := range ps {
		if g := nodes[i].Grad; g != nil {
			if v, bad := firstNonFinite(g); bad {
				return &DivergedError{Epoch: epoch, What: "the gradient of " + p.Name, Value: v}
			}
		}
	}
	for i, p := range ps {
		g := nodes[i].Grad
		if g == nil {
			r, c := p.Value.Dims()
			g = mat.NewDense(r, c, nil)
		}
		p.adam.LR, p.adam.WeightDecay = lr, wd
		p.adam.Step(p.Value.RawMatrix().Data, g.RawMatrix().Data)
		if v, bad := firstNonFinite(p.Value); bad {
			return &DivergedError{Epoch: epoch, What: p.Name + " after the update", Value: v}
		}
		if v := p.Value.At(0, 0); p.positive && !(v > 0) {
			return &DivergedError{Epoch: epoch, What: p.Name + " (a curvature, must stay > 0) after the update", Value: v}
		}
	}
	return nil
}

// recyclePasses lets Train reuse each pass's memory for the next
// (autodiff.Tape.Recycle); tests turn it off to compare.
var recyclePasses = true

// Train fits m to the node labels with Adam, keeping the epoch with the
// best validation metric; dropout masks come from rng.
func Train(ctx context.Context, m Model, s *Split, n int, cfg TrainConfig, rng *rand.Rand) (*Result, error) {
	if err := s.check(n); err != nil {
		return nil, err
	}
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("hgcn: epochs = %d, want ≥ 1", cfg.Epochs)
	}
	if cfg.Select != "accuracy" && cfg.Select != "f1" {
		return nil, fmt.Errorf("hgcn: selection metric %q, want accuracy or f1", cfg.Select)
	}
	ps := m.Params()
	tp := autodiff.New(cfg.Workers)
	nodes := make([]*autodiff.Node, len(ps))
	// Each pass reuses the memory of the one before (Recycle): no node
	// outlives its pass, and on this kind of VM memory touched for the
	// first time costs a page fault per 4 KiB.
	bind := func() {
		if recyclePasses {
			tp.Recycle()
		} else {
			tp.Reset()
		}
		for i, p := range ps {
			nodes[i] = tp.Param(p.Value)
		}
	}
	res := &Result{StopEpoch: -1}
	best := math.Inf(-1)
	counter := 0
	curv := func() float64 {
		if net, ok := m.(*Net); ok {
			return net.Curvature()
		}
		return 0
	}
	watch := nn.LossWatch{Chance: nn.ChanceLoss(s.Classes)}
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bind()
		h := m.Encode(tp, nodes, true, rng)
		loss, err := tp.CrossEntropy(m.Logits(tp, nodes, h, true, rng), s.Train, s.Labels)
		if err != nil {
			return nil, err
		}
		trainLoss := loss.Scalar() // the loss node does not outlive the pass
		if err := watch.Check(epoch, trainLoss); err != nil {
			return nil, lossDiverged(err)
		}
		if err := tp.Backward(loss); err != nil {
			return nil, err
		}
		if err := step(ps, nodes, cfg.LR, cfg.WeightDecay, epoch); err != nil {
			return nil, err
		}
		bind()
		h = m.Encode(tp, nodes, false, nil)
		logits := m.Logits(tp, nodes, h, false, nil).Value
		if v, bad := firstNonFinite(logits); bad {
			return nil, &DivergedError{Epoch: epoch, What: "the evaluation logits", Value: v}
		}
		pred := argmax(logits)
		st := EpochStats{Epoch: epoch, Loss: trainLoss, Train: accuracy(pred, s.Train, s.Labels),
			Val: accuracy(pred, s.Val, s.Labels), Test: accuracy(pred, s.Test, s.Labels), C: curv()}
		res.Curves = append(res.Curves, st)
		res.Epochs = epoch + 1
		res.TestLast, res.ValLast, res.CurveLast = st.Test, st.Val, st.C
		if cfg.Progress != nil {
			cfg.Progress(st)
		}
		valF1 := f1(pred, s.Val, s.Labels, s.Classes)
		metric := st.Val
		if cfg.Select == "f1" {
			metric = valF1
		}
		if metric > best {
			best = metric
			res.Test, res.Val, res.Train, res.StopEpoch = st.Test, st.Val, st.Train, epoch
			res.ValF1, res.TestF1 = valF1, f1(pred, s.Test, s.Labels, s.Classes)
			res.Curvature = st.C
			res.BestParams = make(map[string]*mat.Dense, len(ps))
			for _, p := range ps {
				res.BestParams[p.Name] = mat.DenseCopyOf(p.Value)
			}
			res.Embeddings = mat.DenseCopyOf(h.Value)
			counter = 0
		} else {
			counter++
			if cfg.Patience > 0 && counter >= cfg.Patience && epoch > cfg.MinEpochs {
				res.StoppedEarly = epoch+1 < cfg.Epochs
				break
			}
		}
	}
	if err := watch.Done(); err != nil {
		return nil, lossDiverged(err)
	}
	return res, nil
}

func argmax(logits *mat.Dense) []int {
	r, _ := logits.Dims()
	out := make([]int, r)
	for i := 0; i < r; i++ {
		row := logits.RawRowView(i)
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		out[i] = best
	}
	return out
}

func accuracy(pred, rows, labels []int) float64 {
	correct := 0
	for _, i := range rows {
		if pred[i] == labels[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(rows))
}

// f1 is HGCN's acc_f1 F1: with two classes the binary F1 of class 1
// (sklearn's average="binary"), otherwise micro-F1 (= accuracy).
func f1(pred, rows, labels []int, classes int) float64 {
	if classes != 2 {
		return accuracy(pred, rows, labels)
	}
	var tp, fp, fn float64
	for _, i := range rows {
		switch {
		case pred[i] == 1 && labels[i] == 1:
			tp++
		case pred[i] == 1:
			fp++
		case labels[i] == 1:
			fn++
		}
	}
	if tp == 0 {
		return 0
	}
	return 2 * tp / (2*tp + fp + fn)
}
