package autodiff

import "gonum.org/v1/gonum/mat"

// Custom records an operation computed outside this package, so that other
// packages can add fused operations (package nn/manifold's row-wise
// hyperbolic maps) without one tape node per arithmetic step. value is the
// operation's output, computed by the caller from the inputs' values;
// backward, called once during Backward if the output received a gradient
// (out.Grad), adds the gradient of the loss into every input that needs one
// (Node.Needs) through Node.GradAcc. The output needs a gradient when any
// input does; otherwise backward is never called.
//
// For bit-identical results whatever Tape.Workers is, backward must sum
// every entry in an order that does not depend on the number of workers
// (see internal/parallel).
func (t *Tape) Custom(value *mat.Dense, backward func(out *Node), inputs ...*Node) *Node {
	return t.record(value, backward, inputs...)
}

// GradAcc returns n's gradient, allocating zeros on first use: the
// accumulator a Custom operation's backward adds into.
func (n *Node) GradAcc() *mat.Dense { return n.grad() }

// Dense returns a zeroed r×c matrix for a Custom operation's value or its
// per-row state, from the tape's memory: after Recycle the next pass reuses
// it, as it reuses the built-in operations' (so it must not be kept past
// that Recycle). Like every tape allocation it must be called on the
// goroutine that records, never from a worker.
func (t *Tape) Dense(r, c int) *mat.Dense { return t.dense(r, c) }

// Floats returns n zeroed float64s from the tape's memory, as Dense.
func (t *Tape) Floats(n int) []float64 { return t.floats(n) }

// DenseFull is Dense for a caller that writes every entry before anything
// reads one: recycled memory is handed out as it was left, not cleared.
func (t *Tape) DenseFull(r, c int) *mat.Dense { return t.denseFull(r, c) }

// FloatsFull is Floats for a caller that writes every entry first.
func (t *Tape) FloatsFull(n int) []float64 { return t.floatsFull(n) }
