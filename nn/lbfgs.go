package nn

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// LBFGS is limited-memory BFGS with the update, step and stopping rules of
// torch.optim.LBFGS without a line search (line_search_fn=None), the
// optimiser Wu et al.'s TextSGC trains with. Each Step is one call of
// PyTorch's optimizer.step(closure): up to MaxIter iterations of
//
//	d ← −H·g           (two-loop recursion over the stored (s, y) pairs;
//	                    the first iteration ever: d = −g)
//	x ← x + t·d        (t = LR; the first iteration ever: t = min(1, 1/‖g‖₁)·LR)
//
// with the objective re-evaluated after every step but the last of a Step
// (as PyTorch, so the next Step starts by evaluating it). It stops early
// when ‖g‖∞ ≤ TolGrad, gᵀd > −TolChange, ‖t·d‖∞ ≤ TolChange,
// |Δloss| < TolChange, or after MaxEval evaluations. The state (history,
// direction, step) carries over from one Step to the next, as PyTorch's.
//
// gonum's optimize.LBFGS always runs a line search and has no per-call
// iteration budget, so it cannot reproduce these iterates; hence this
// type.
type LBFGS struct {
	LR                 float64
	MaxIter, MaxEval   int
	History            int
	TolGrad, TolChange float64

	n              int
	iters          int // iterations over all Steps (PyTorch's state['n_iter'])
	evals          int // objective evaluations over all Steps
	d, prevG, g, q []float64
	t, hDiag       float64
	dirs, stps     [][]float64 // y and s of the stored pairs, oldest first
	spareY, spareS []float64   // storage for the next pair
	ro, al         []float64
	prevLoss       float64
}

// NewLBFGS returns L-BFGS with PyTorch's defaults (max_iter 20, max_eval
// 25, history 100, tolerance_grad 1e−7, tolerance_change 1e−9) at learning
// rate lr for a parameter vector of n entries.
func NewLBFGS(lr float64, n int) *LBFGS {
	return &LBFGS{LR: lr, MaxIter: 20, MaxEval: 25, History: 100, TolGrad: 1e-7, TolChange: 1e-9, n: n}
}

// StateBytes returns the most memory, in bytes, the state of o holds after
// steps calls of Step: at most min(History, steps·MaxIter) pairs (y, s)
// of n float64s, a spare pair, and the gradient, the previous gradient,
// the direction and the two-loop vector. Memory estimates use it: for
// TextSGC's classifier on R52 (n ≈ 0.94 M, 3 steps) it is 0.95 GB.
func (o *LBFGS) StateBytes(steps int) int64 {
	pairs := min(int64(o.History), int64(max(steps, 0))*int64(o.MaxIter))
	return (2*pairs + 6) * int64(o.n) * 8
}

// Evals returns the number of objective evaluations so far.
func (o *LBFGS) Evals() int { return o.evals }

// Iterations returns the number of iterations so far.
func (o *LBFGS) Iterations() int { return o.iters }

// Objective evaluates the loss at x and writes its gradient into g.
type Objective func(x, g []float64) (float64, error)

// Step runs one PyTorch optimizer.step: it updates x in place and returns
// the loss at x as it was on entry. An error of f stops it and is returned
// as is (x then holds the point f failed at).
func (o *LBFGS) Step(x []float64, f Objective) (float64, error) {
	if len(x) != o.n {
		panic(fmt.Sprintf("nn: LBFGS.Step: parameter %d for a state of %d", len(x), o.n))
	}
	if o.g == nil {
		o.g, o.prevG, o.q = make([]float64, o.n), make([]float64, o.n), make([]float64, o.n)
		o.d = make([]float64, o.n)
		o.al = make([]float64, o.History)
	}
	loss, err := f(x, o.g)
	if err != nil {
		return 0, err
	}
	origLoss := loss
	o.evals++
	evals := 1
	if floats.Norm(o.g, math.Inf(1)) <= o.TolGrad {
		return origLoss, nil
	}
	for it := 1; it <= o.MaxIter; it++ {
		o.iters++
		if o.iters == 1 {
			for i, gi := range o.g {
				o.d[i] = -gi
			}
			o.dirs, o.stps, o.ro = o.dirs[:0], o.stps[:0], o.ro[:0]
			o.hDiag = 1
		} else {
			o.direction()
		}
		copy(o.prevG, o.g)
		o.prevLoss = loss
		if o.iters == 1 {
			o.t = math.Min(1, 1/floats.Norm(o.g, 1)) * o.LR
		} else {
			o.t = o.LR
		}
		if dot(o.g, o.d) > -o.TolChange {
			break
		}
		for i, di := range o.d {
			x[i] += o.t * di
		}
		converged := false
		if it != o.MaxIter {
			if loss, err = f(x, o.g); err != nil {
				return 0, err
			}
			o.evals++
			evals++
			converged = floats.Norm(o.g, math.Inf(1)) <= o.TolGrad
		}
		if it == o.MaxIter || evals >= o.MaxEval || converged {
			break
		}
		if o.t*floats.Norm(o.d, math.Inf(1)) <= o.TolChange || math.Abs(loss-o.prevLoss) < o.TolChange {
			break
		}
	}
	return origLoss, nil
}

// direction stores the pair (s, y) of the last step if its curvature is
// positive and sets d = −H·g by the two-loop recursion.
func (o *LBFGS) direction() {
	// y = g − g_prev, s = t·d, in spare storage until the pair is kept.
	if o.spareY == nil {
		o.spareY, o.spareS = make([]float64, o.n), make([]float64, o.n)
	}
	y, s := o.spareY, o.spareS
	for i := range y {
		y[i] = o.g[i] - o.prevG[i]
		s[i] = o.d[i] * o.t
	}
	if ys := dot(y, s); ys > 1e-10 {
		o.spareY, o.spareS = nil, nil
		if len(o.dirs) == o.History { // drop the oldest pair; its storage is the next spare
			o.spareY, o.spareS = o.dirs[0], o.stps[0]
			copy(o.dirs, o.dirs[1:])
			copy(o.stps, o.stps[1:])
			copy(o.ro, o.ro[1:])
			o.dirs, o.stps, o.ro = o.dirs[:len(o.dirs)-1], o.stps[:len(o.stps)-1], o.ro[:len(o.ro)-1]
		}
		o.dirs, o.stps, o.ro = append(o.dirs, y), append(o.stps, s), append(o.ro, 1/ys)
		o.hDiag = ys / dot(y, y)
	}
	q := o.q
	for i, gi := range o.g {
		q[i] = -gi
	}
	for i := len(o.dirs) - 1; i >= 0; i-- {
		o.al[i] = dot(o.stps[i], q) * o.ro[i]
		floats.AddScaled(q, -o.al[i], o.dirs[i])
	}
	r := o.d
	for i, qi := range q {
		r[i] = qi * o.hDiag
	}
	for i := range o.dirs {
		be := dot(o.dirs[i], r) * o.ro[i]
		floats.AddScaled(r, o.al[i]-be, o.stps[i])
	}
}

// dot is ⟨a, b⟩ summed left to right. Not floats.Dot, whose unrolled sums
// round differently: the iterates, and so the train stage's cached
// artifacts, would change in their last bits.
func dot(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
