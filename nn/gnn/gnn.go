// Package gnn trains the graph neural networks the paper compares HyLa
// against in Table 1: GCN (Kipf & Welling 2017) and GAT (Veličković et al.
// 2018), full batch, on a fixed graph with a train/validation/test split,
// with the gradients of package autodiff and PyTorch's Adam (package nn).
//
// Training follows the paper's protocol for baselines: at most Epochs
// epochs, early stopping on validation, and the test accuracy of the
// early-stopped model. Two stopping rules are offered: "accuracy" (HGCN's
// code, whose GCN and GAT numbers the paper's Table 1 quotes: keep the epoch
// of the best validation accuracy, stop after Patience epochs without a
// better one) and "loss" (Kipf & Welling's code: stop when the validation
// loss exceeds the mean of the previous Patience epochs' losses, report the
// model at the stop).
//
// Everything is float64 and deterministic: the same seeds give the same
// bits whatever the number of workers.
package gnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Data is one node-classification problem.
type Data struct {
	// A is the normalised adjacency with self loops, D^-1/2 (A+I) D^-1/2
	// (GCN's propagation; GAT uses its structure only).
	A *sparse.CSR
	// X holds the node features (n×f), sparse.
	X *sparse.CSR
	// Labels holds each node's class (−1 unlabelled); Classes their number.
	Labels  []int
	Classes int
	// Train, Val and Test are node indices.
	Train, Val, Test []int
}

func (d *Data) check() error {
	n := d.A.Rows
	if d.A.Cols != n {
		return fmt.Errorf("gnn: adjacency is %d×%d, want square", d.A.Rows, d.A.Cols)
	}
	if d.X.Rows != n {
		return fmt.Errorf("gnn: %d feature rows for %d nodes", d.X.Rows, n)
	}
	if len(d.Labels) != n {
		return fmt.Errorf("gnn: %d labels for %d nodes", len(d.Labels), n)
	}
	if d.Classes < 2 {
		return fmt.Errorf("gnn: %d classes, want at least 2", d.Classes)
	}
	for _, s := range []struct {
		name string
		idx  []int
	}{{"train", d.Train}, {"val", d.Val}, {"test", d.Test}} {
		if len(s.idx) == 0 {
			return fmt.Errorf("gnn: empty %s set", s.name)
		}
		for _, i := range s.idx {
			if i < 0 || i >= n {
				return fmt.Errorf("gnn: %s index %d outside the %d nodes", s.name, i, n)
			}
			if y := d.Labels[i]; y < 0 || y >= d.Classes {
				return fmt.Errorf("gnn: %s node %d has label %d, want 0..%d", s.name, i, y, d.Classes-1)
			}
		}
	}
	return nil
}

// Param is one trainable matrix with its own Adam state and weight decay,
// or its own update rule (step, e.g. Riemannian SGD on the Poincaré ball
// for HyLa-GCN's embedding), which Train calls with the gradient instead of
// Adam.
type Param struct {
	Name  string
	Value *mat.Dense
	adam  *nn.Adam
	step  func(grad *mat.Dense)
}

// Model is a network: its parameters and its forward pass on a tape
// (train: with dropout drawn from rng).
type Model interface {
	Params() []*Param
	Forward(tp *autodiff.Tape, nodes []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node
}

// glorot returns an r×c matrix uniform in ±√(6/(r+c)) (Glorot & Bengio,
// the initialisation of both reference implementations), drawn row by row.
func glorot(rng *rand.Rand, r, c int) *mat.Dense {
	bound := math.Sqrt(6 / float64(r+c))
	m := mat.NewDense(r, c, nil)
	for i, raw := 0, m.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = bound * (2*rng.Float64() - 1)
	}
	return m
}

// Config is a training run.
type Config struct {
	Epochs   int     // maximum number of epochs (≥ 1)
	LR       float64 // Adam learning rate
	Stopping string  // "accuracy" or "loss" (see the package doc)
	Patience int     // epochs without improvement (accuracy) or the loss window (loss); 0 = never stop early
	Workers  int
	// Progress, if set, is called after every epoch.
	Progress func(EpochStats)
}

// EpochStats is one epoch's record.
type EpochStats struct {
	Epoch   int     `json:"epoch"`
	Loss    float64 `json:"loss"`
	ValLoss float64 `json:"val_loss"`
	Train   float64 `json:"train"`
	Val     float64 `json:"val"`
	Test    float64 `json:"test"`
}

// Result is the outcome of a run: accuracies (fractions) of the
// early-stopped model and of the last epoch trained.
type Result struct {
	Test, Val, Train        float64 // the early-stopped model
	StopEpoch               int     // its epoch (0-based)
	TestLast, ValLast       float64 // the last epoch trained
	Epochs                  int     // epochs trained
	StoppedEarly            bool
	Curves                  []EpochStats
	BestParams, FinalParams map[string]*mat.Dense
}

// Train fits m on d with Adam and early stopping; dropout masks come from
// rng. It returns an error for inconsistent data or a non-finite loss.
func Train(ctx context.Context, m Model, d *Data, cfg Config, rng *rand.Rand) (*Result, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("gnn: epochs = %d, want ≥ 1", cfg.Epochs)
	}
	if cfg.Stopping != "accuracy" && cfg.Stopping != "loss" {
		return nil, fmt.Errorf("gnn: stopping rule %q, want accuracy or loss", cfg.Stopping)
	}
	ps := m.Params()
	for _, p := range ps {
		switch {
		case p.step != nil:
		case p.adam == nil:
			return nil, fmt.Errorf("gnn: parameter %s has no optimiser", p.Name)
		default:
			p.adam.LR = cfg.LR
		}
	}
	tp := autodiff.New(cfg.Workers)
	snapshot := func() map[string]*mat.Dense {
		out := make(map[string]*mat.Dense, len(ps))
		for _, p := range ps {
			out[p.Name] = mat.DenseCopyOf(p.Value)
		}
		return out
	}
	res := &Result{StopEpoch: -1}
	bestVal := math.Inf(-1)
	watch := nn.LossWatch{Chance: nn.ChanceLoss(d.Classes)}
	var valLosses []float64
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// One training step. Recycle: each pass reuses the memory of the
		// one before (no node outlives its pass).
		tp.Recycle()
		nodes := make([]*autodiff.Node, len(ps))
		for i, p := range ps {
			nodes[i] = tp.Param(p.Value)
		}
		loss, err := tp.CrossEntropy(m.Forward(tp, nodes, true, rng), d.Train, d.Labels)
		if err != nil {
			return nil, err
		}
		if err := watch.Check(epoch, loss.Scalar()); err != nil {
			return nil, fmt.Errorf("gnn: %w", err)
		}
		if err := tp.Backward(loss); err != nil {
			return nil, err
		}
		for i, p := range ps {
			g := nodes[i].Grad
			if g == nil {
				g = mat.NewDense(p.Value.RawMatrix().Rows, p.Value.RawMatrix().Cols, nil)
			}
			if p.step != nil {
				p.step(g)
				continue
			}
			p.adam.Step(p.Value.RawMatrix().Data, g.RawMatrix().Data)
		}
		// Evaluation without dropout.
		trainLoss := loss.Scalar()
		tp.Recycle()
		for i, p := range ps {
			nodes[i] = tp.Param(p.Value)
		}
		logits := m.Forward(tp, nodes, false, nil)
		vl, err := tp.CrossEntropy(logits, d.Val, d.Labels)
		if err != nil {
			return nil, err
		}
		st := EpochStats{Epoch: epoch, Loss: trainLoss, ValLoss: vl.Scalar(),
			Train: accuracy(logits.Value, d.Train, d.Labels), Val: accuracy(logits.Value, d.Val, d.Labels),
			Test: accuracy(logits.Value, d.Test, d.Labels)}
		res.Curves = append(res.Curves, st)
		res.Epochs = epoch + 1
		res.TestLast, res.ValLast = st.Test, st.Val
		if cfg.Progress != nil {
			cfg.Progress(st)
		}
		if cfg.Stopping == "accuracy" {
			if st.Val > bestVal {
				bestVal = st.Val
				res.Test, res.Val, res.Train, res.StopEpoch = st.Test, st.Val, st.Train, epoch
				res.BestParams = snapshot()
			}
			if cfg.Patience > 0 && epoch-res.StopEpoch >= cfg.Patience {
				res.StoppedEarly = epoch+1 < cfg.Epochs
				break
			}
			continue
		}
		// Kipf & Welling: stop when the validation loss is above the mean
		// of the previous Patience epochs' validation losses.
		res.Test, res.Val, res.Train, res.StopEpoch = st.Test, st.Val, st.Train, epoch
		valLosses = append(valLosses, st.ValLoss)
		if w := cfg.Patience; w > 0 && len(valLosses) > w {
			var mean float64
			for _, v := range valLosses[len(valLosses)-1-w : len(valLosses)-1] {
				mean += v
			}
			if mean /= float64(w); st.ValLoss > mean {
				res.StoppedEarly = epoch+1 < cfg.Epochs
				break
			}
		}
	}
	if err := watch.Done(); err != nil {
		return nil, fmt.Errorf("gnn: %w", err)
	}
	res.FinalParams = snapshot()
	if res.BestParams == nil {
		res.BestParams = res.FinalParams
	}
	return res, nil
}

// accuracy returns the fraction of rows whose largest logit (first on
// ties) is the label.
func accuracy(logits *mat.Dense, rows, labels []int) float64 {
	correct := 0
	for _, i := range rows {
		row := logits.RawRowView(i)
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		if best == labels[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(rows))
}

func newParam(name string, v *mat.Dense, weightDecay float64) *Param {
	r, c := v.Dims()
	a := nn.NewAdam(0, r*c)
	a.WeightDecay = weightDecay
	return &Param{Name: name, Value: v, adam: a}
}

// ---------------------------------------------------------------- GCN

// GCN is Kipf & Welling's two-layer graph convolutional network,
//
//	logits = Â · drop(ReLU(Â · drop(X) · W1)) · W2,
//
// without biases (the reference code's default), Glorot-initialised, with
// weight decay on W1 only (as the reference code's L2 loss on the first
// layer, here added to the gradient as PyTorch's Adam does: the same
// gradient as wd·½‖W1‖²).
type GCN struct {
	W1, W2  *Param
	Dropout float64
	a       *autodiff.Sparse
	x       *autodiff.Sparse
}

// NewGCN returns a GCN for d with the given hidden width, dropout and
// first-layer weight decay, initialised from rng (W1, then W2).
func NewGCN(d *Data, hidden int, dropout, weightDecay float64, rng *rand.Rand) (*GCN, error) {
	if hidden < 1 {
		return nil, fmt.Errorf("gnn: GCN hidden width %d, want ≥ 1", hidden)
	}
	if !(dropout >= 0 && dropout < 1) {
		return nil, fmt.Errorf("gnn: dropout %v, want 0 ≤ p < 1", dropout)
	}
	return &GCN{
		W1:      newParam("W1", glorot(rng, d.X.Cols, hidden), weightDecay),
		W2:      newParam("W2", glorot(rng, hidden, d.Classes), 0),
		Dropout: dropout, a: autodiff.NewSparse(d.A), x: autodiff.NewSparse(d.X),
	}, nil
}

// Params returns W1 and W2.
func (m *GCN) Params() []*Param { return []*Param{m.W1, m.W2} }

// Forward returns the logits.
func (m *GCN) Forward(tp *autodiff.Tape, p []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node {
	drop := 0.0
	if train {
		drop = m.Dropout
	}
	h := tp.ReLU(tp.SpMM(m.a, tp.SpMMDrop(m.x, p[0], drop, rng)))
	if train {
		h = tp.Dropout(h, drop, rng)
	}
	return tp.SpMM(m.a, tp.MatMul(h, p[1]))
}

// ---------------------------------------------------------------- GAT

// GAT is Veličković et al.'s two-layer graph attention network as in
// PyTorch Geometric's reference example: dropout on the input, Heads
// attention heads of Hidden units concatenated and ELU, dropout, then
// OutHeads heads of one unit per class averaged; every attention
// coefficient α_ij = softmax_j(LeakyReLU_0.2(a_dstᵀWh_i + a_srcᵀWh_j)) over
// i's neighbours and itself, with dropout on α in training.
type GAT struct {
	Heads, Hidden, OutHeads int
	Dropout                 float64
	params                  []*Param
	g                       *autodiff.AttnGraph
	x                       *autodiff.Sparse
	classes                 int
}

// NewGAT returns a GAT for d; every parameter gets the weight decay.
// Parameters are drawn from rng in the order W1, the first layer's
// attention vectors head by head (a_src, a_dst), W2, the second layer's.
// Biases start at zero.
func NewGAT(d *Data, heads, hidden, outHeads int, dropout, weightDecay float64, rng *rand.Rand) (*GAT, error) {
	if heads < 1 || hidden < 1 || outHeads < 1 {
		return nil, fmt.Errorf("gnn: GAT with %d heads of %d units and %d output heads, want ≥ 1 each", heads, hidden, outHeads)
	}
	if !(dropout >= 0 && dropout < 1) {
		return nil, fmt.Errorf("gnn: dropout %v, want 0 ≤ p < 1", dropout)
	}
	g, err := autodiff.NewAttnGraph(d.A)
	if err != nil {
		return nil, fmt.Errorf("gnn: GAT: %w", err)
	}
	m := &GAT{Heads: heads, Hidden: hidden, OutHeads: outHeads, Dropout: dropout, g: g, x: autodiff.NewSparse(d.X), classes: d.Classes}
	add := func(name string, v *mat.Dense) { m.params = append(m.params, newParam(name, v, weightDecay)) }
	add("W1", glorot(rng, d.X.Cols, heads*hidden))
	for h := 0; h < heads; h++ {
		add(fmt.Sprintf("a1_src_%d", h), glorot(rng, hidden, 1))
		add(fmt.Sprintf("a1_dst_%d", h), glorot(rng, hidden, 1))
	}
	add("b1", mat.NewDense(1, heads*hidden, nil))
	add("W2", glorot(rng, heads*hidden, outHeads*d.Classes))
	for h := 0; h < outHeads; h++ {
		add(fmt.Sprintf("a2_src_%d", h), glorot(rng, d.Classes, 1))
		add(fmt.Sprintf("a2_dst_%d", h), glorot(rng, d.Classes, 1))
	}
	add("b2", mat.NewDense(1, d.Classes, nil))
	return m, nil
}

// Params returns the parameters in the order NewGAT drew them.
func (m *GAT) Params() []*Param { return m.params }

// Forward returns the logits. Each layer's heads are one GATHeads
// operation (the same values, gradients and dropout draws as the chain of
// per-head operations; see autodiff.GATHeads).
func (m *GAT) Forward(tp *autodiff.Tape, p []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node {
	drop := 0.0
	if train {
		drop = m.Dropout
	}
	k := 0
	next := func() *autodiff.Node { k++; return p[k-1] }
	xw := tp.SpMMDrop(m.x, next(), drop, rng)
	aSrc, aDst := make([]*autodiff.Node, m.Heads), make([]*autodiff.Node, m.Heads)
	for h := range m.Heads {
		aSrc[h], aDst[h] = next(), next()
	}
	heads := tp.GATHeads(m.g, xw, aSrc, aDst, 0.2, drop, rng, false)
	hidden := tp.ELU(tp.AddBias(heads, next()))
	if drop > 0 {
		hidden = tp.Dropout(hidden, drop, rng)
	}
	hw := tp.MatMul(hidden, next())
	aSrc, aDst = make([]*autodiff.Node, m.OutHeads), make([]*autodiff.Node, m.OutHeads)
	for h := range m.OutHeads {
		aSrc[h], aDst[h] = next(), next()
	}
	out := tp.GATHeads(m.g, hw, aSrc, aDst, 0.2, drop, rng, true)
	return tp.AddBias(out, next())
}
