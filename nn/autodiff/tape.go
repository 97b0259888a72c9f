// Package autodiff is a small reverse-mode automatic differentiation tape
// over dense row-major float64 matrices (gonum's mat.Dense) and the repo's
// CSR matrices (package sparse), with exactly the operations the graph
// neural-network baselines of the paper need: matrix products, products
// with a fixed sparse matrix, bias, ReLU/ELU/LeakyReLU, dropout with a
// seeded mask, the per-destination edge softmax of graph attention,
// aggregation over edges, column concatenation and the mean of heads,
// masked log-softmax cross-entropy and L2 penalties, and (hyla_ops.go) a
// random-feature map of an embedding, HyLa's Φ(Z), for HyLa-GCN.
//
// Why a hand-written tape rather than a library: the two Go candidates
// served here are gomlx (github.com/gomlx/gomlx v0.26), whose backends
// compile graphs through XLA via gopjrt — a C/C++ PJRT plugin this
// repository cannot assume on CI or a user's laptop (its pure-Go backend is
// young and has no sparse product); and gorgonia (gorgonia.org/gorgonia
// v0.9.18, last tagged 2021), cgo-free but large (tensor, cu, many
// transitive modules), float64 sparse products unsupported, and with no
// guarantee of bit-identical results across thread counts. The models here
// need a dozen operations; writing their backward passes (each checked
// against central finite differences in the tests) keeps every sum in a
// fixed order, so the same seed gives bit-identical parameters whatever the
// number of workers, like the rest of hylaflow.
//
// Use: create a Tape, wrap parameters with Param and data with Const, build
// the loss with the operations, call Backward on the scalar loss, read each
// parameter's Grad. Reset clears the tape for the next step (parameters keep
// their values; gradients are zeroed). Recycle does the same and also takes
// back the memory of every value and gradient the operations allocated, so
// that the next step's operations reuse it instead of touching new memory
// (whose first use costs page faults, several CPU seconds per GiB on a
// virtual machine).
package autodiff

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Node is a value on the tape: a dense matrix and, after Backward, the
// gradient of the loss with respect to it (same shape; nil if the loss does
// not depend on it).
type Node struct {
	Value *mat.Dense
	Grad  *mat.Dense

	needs bool   // whether a gradient flows into this node
	back  func() // propagates Grad into the inputs' gradients
	tape  *Tape  // allocates the gradient
}

// Rows returns the number of rows of the node's value.
func (n *Node) Rows() int { r, _ := n.Value.Dims(); return r }

// Cols returns the number of columns of the node's value.
func (n *Node) Cols() int { _, c := n.Value.Dims(); return c }

// Scalar returns the value of a 1×1 node.
func (n *Node) Scalar() float64 { return n.Value.At(0, 0) }

// grad returns the node's gradient, allocating zeros on first use.
func (n *Node) grad() *mat.Dense {
	if n.Grad == nil {
		r, c := n.Value.Dims()
		if n.tape != nil {
			n.Grad = n.tape.dense(r, c)
		} else {
			n.Grad = mat.NewDense(r, c, nil)
		}
	}
	return n.Grad
}

// gradTarget returns where an operation's backward pass puts the
// gradient G it computes for n: n's gradient itself, not yet allocated
// and not cleared (fresh true), when nothing has been added to it yet, so
// that G is written in place; otherwise a scratch matrix, which the caller
// then adds into n's gradient with addGrad. Writing in place is Add's
// result exactly when G has no −0 entry (0 + x = x for every other x,
// NaNs included): the callers' products are sums from +0.
func (n *Node) gradTarget() (dst *mat.Dense, fresh bool) {
	r, c := n.Value.Dims()
	if n.Grad == nil && n.tape != nil {
		n.Grad = n.tape.denseFull(r, c)
		return n.Grad, true
	}
	if n.tape != nil {
		return n.tape.denseFull(r, c), false
	}
	return mat.NewDense(r, c, nil), false
}

// addGrad adds g, computed into gradTarget's matrix, into n's gradient
// unless it was written there.
func (n *Node) addGrad(g *mat.Dense, fresh bool) {
	if !fresh {
		n.grad().Add(n.Grad, g)
	}
}

// Tape records the operations of one forward pass.
type Tape struct {
	nodes []*Node
	// Workers bounds the goroutines of the sparse products (≥ 1). Results
	// do not depend on it.
	Workers int

	// Once Recycle has been called, owned lists the buffers handed out
	// since, and free the buffers Recycle took back, by length.
	recycling bool
	owned     [][]float64
	free      map[int][][]float64
	// The same for byte buffers (dropout masks) and int32 ones (the column
	// indices of dropped-out sparse inputs).
	ownedBytes [][]uint8
	freeBytes  map[int][][]uint8
	ownedInt32 [][]int32
	freeInt32  map[int][][]int32
}

// floats returns n zeroed float64s: a buffer Recycle took back when one of
// that length is free, else new memory. Not safe for concurrent use (nor
// is grad, which calls it): operations allocate before their workers start.
func (t *Tape) floats(n int) []float64 {
	if !t.recycling {
		return make([]float64, n)
	}
	return take(n, t.free, &t.owned)
}

// floatsFull is floats for a caller that writes every entry before reading
// any: a recycled buffer is handed out as it is, not cleared.
func (t *Tape) floatsFull(n int) []float64 {
	if !t.recycling {
		return make([]float64, n)
	}
	b, reused := takeFull(n, t.free, &t.owned)
	if reused && poisonFull {
		for k := range b {
			b[k] = math.NaN()
		}
	}
	return b
}

// poisonFull makes floatsFull fill the buffers it reuses with NaNs, so that
// a test sees any entry its caller failed to write.
var poisonFull bool

// denseFull is dense from floatsFull: every entry must be written.
func (t *Tape) denseFull(r, c int) *mat.Dense { return mat.NewDense(r, c, t.floatsFull(r*c)) }

// bytes returns n zeroed bytes, recycled as floats' buffers are.
func (t *Tape) bytes(n int) []uint8 {
	if !t.recycling {
		return make([]uint8, n)
	}
	return take(n, t.freeBytes, &t.ownedBytes)
}

// int32s returns n zeroed int32s, recycled as floats' buffers are.
func (t *Tape) int32s(n int) []int32 {
	if !t.recycling {
		return make([]int32, n)
	}
	return take(n, t.freeInt32, &t.ownedInt32)
}

// take returns a zeroed buffer of length n from free (else new memory) and
// adds it to owned.
func take[E any](n int, free map[int][][]E, owned *[][]E) []E {
	b, reused := takeFull(n, free, owned)
	if reused {
		clear(b)
	}
	return b
}

// takeFull is take without the clearing: a buffer from free as it was left
// (reused true) or new zeroed memory, added to owned.
func takeFull[E any](n int, free map[int][][]E, owned *[][]E) (b []E, reused bool) {
	if l := free[n]; len(l) > 0 {
		b, reused = l[len(l)-1], true
		free[n] = l[:len(l)-1]
	} else {
		b = make([]E, n)
	}
	*owned = append(*owned, b)
	return b, reused
}

// giveBack moves every buffer of owned to free, by length.
func giveBack[E any](owned [][]E, free map[int][][]E) [][]E {
	for _, b := range owned {
		free[len(b)] = append(free[len(b)], b)
	}
	return owned[:0]
}

// dense returns a zeroed r×c matrix from floats.
func (t *Tape) dense(r, c int) *mat.Dense { return mat.NewDense(r, c, t.floats(r*c)) }

// Recycle is Reset, and it takes back every value, gradient and scratch
// buffer the tape's operations allocated since the previous Recycle, for
// the operations recorded next to reuse: every node recorded before it
// (operations' values, and gradients, parameters' too) must not be used
// afterwards. Parameters' values are the caller's and stay. The first call
// turns the recycling on.
func (t *Tape) Recycle() {
	if t.free == nil {
		t.free, t.freeBytes, t.freeInt32 = map[int][][]float64{}, map[int][][]uint8{}, map[int][][]int32{}
	}
	t.owned = giveBack(t.owned, t.free)
	t.ownedBytes = giveBack(t.ownedBytes, t.freeBytes)
	t.ownedInt32 = giveBack(t.ownedInt32, t.freeInt32)
	t.recycling = true
	t.Reset()
}

// New returns an empty tape using the given number of workers (< 1 means 1).
func New(workers int) *Tape { return &Tape{Workers: max(workers, 1)} }

// Reset forgets the recorded operations, keeping the parameters' values.
func (t *Tape) Reset() { t.nodes = t.nodes[:0] }

// Param wraps a parameter matrix (used in place, not copied) so that
// Backward computes its gradient.
func (t *Tape) Param(m *mat.Dense) *Node {
	n := &Node{Value: m, needs: true, tape: t}
	t.nodes = append(t.nodes, n)
	return n
}

// Const wraps data that needs no gradient.
func (t *Tape) Const(m *mat.Dense) *Node { return &Node{Value: m} }

// record appends an operation's output.
func (t *Tape) record(v *mat.Dense, back func(out *Node), inputs ...*Node) *Node {
	out := &Node{Value: v, tape: t}
	for _, in := range inputs {
		if in.needs {
			out.needs = true
		}
	}
	if out.needs {
		out.back = func() { back(out) }
	}
	t.nodes = append(t.nodes, out)
	return out
}

// Backward computes the gradient of the scalar (1×1) loss with respect to
// every node it depends on, in reverse order of the operations.
func (t *Tape) Backward(loss *Node) error {
	if r, c := loss.Value.Dims(); r != 1 || c != 1 {
		return fmt.Errorf("autodiff: Backward of a %d×%d value, want a 1×1 loss", r, c)
	}
	for _, n := range t.nodes {
		n.Grad = nil
	}
	loss.grad().Set(0, 0, 1)
	for i := len(t.nodes) - 1; i >= 0; i-- {
		n := t.nodes[i]
		if n.back != nil && n.Grad != nil {
			n.back()
		}
	}
	return nil
}

func same(op string, a, b *Node) {
	ar, ac := a.Value.Dims()
	br, bc := b.Value.Dims()
	if ar != br || ac != bc {
		panic(fmt.Sprintf("autodiff: %s of %d×%d and %d×%d", op, ar, ac, br, bc))
	}
}
