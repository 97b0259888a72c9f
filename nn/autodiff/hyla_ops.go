package autodiff

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FeatureMap is a random-feature map Φ applied row by row, with its
// backward pass: hyla.HyLaMap and hyla.RFFMap satisfy it. Backward uses
// what the most recent Forward kept, so the map serves one forward pass at
// a time (see Features).
type FeatureMap interface {
	// Dim is the width of Z (d0), Features the width of Φ(Z) (D).
	Dim() int
	Features() int
	// Forward sets out (m×D) to Φ(Z) for Z (m×d0).
	Forward(z, out *mat.Dense)
	// Backward sets gradZ (m×d0) to ∂L/∂Z given gradOut = ∂L/∂Φ(Z), for
	// the Z of the most recent Forward.
	Backward(gradOut, gradZ *mat.Dense)
}

// MapLayer is a feature map used on tapes. It counts the forward passes so
// that a backward pass whose forward pass has been overwritten by a later
// one (the map keeps one pass's intermediates) fails loudly instead of
// returning the gradient of another Z.
type MapLayer struct {
	Map FeatureMap
	gen uint64
}

// NewMapLayer wraps a feature map for Features.
func NewMapLayer(m FeatureMap) *MapLayer { return &MapLayer{Map: m} }

// Features returns Φ(Z) (m×D) for the embedding z (m×d0): the HyLa (or RFF)
// features of every row of Z. Its backward pass adds the Euclidean gradient
// ∂L/∂Z; a caller updating Z on the Poincaré ball converts it to the
// Riemannian gradient (1−‖z‖²)²/4·∂L/∂z, as hyla.RSGDStep does. Backward
// must run before the layer's next Features call (training steps do: the
// evaluation pass that follows a step needs no gradient); otherwise it
// panics.
func (t *Tape) Features(l *MapLayer, z *Node) *Node {
	m, d0 := z.Value.Dims()
	if d0 != l.Map.Dim() {
		panic(fmt.Sprintf("autodiff: Features of a %d×%d embedding with a map of dimension %d", m, d0, l.Map.Dim()))
	}
	v := t.dense(m, l.Map.Features())
	l.Map.Forward(z.Value, v)
	l.gen++
	gen := l.gen
	return t.record(v, func(out *Node) {
		if l.gen != gen {
			panic("autodiff: Features backward after a later forward pass of the same map")
		}
		gz := t.dense(m, d0)
		l.Map.Backward(out.Grad, gz)
		z.grad().Add(z.Grad, gz)
	}, z)
}

// CenterColumns returns x with the mean of its rows subtracted from every
// row (each column centred over the rows). HyLa-GCN centres its first
// layer's input with it: HyLa's features start nearly equal for every
// node, and without it Adam's first steps move every node's hidden units
// together and the ReLUs die.
func (t *Tape) CenterColumns(x *Node) *Node {
	r, c := x.Value.Dims()
	mean := make([]float64, c)
	for i := 0; i < r; i++ {
		for j, v := range x.Value.RawRowView(i) {
			mean[j] += v
		}
	}
	inv := 1 / float64(max(r, 1))
	for j := range mean {
		mean[j] *= inv
	}
	v := t.dense(r, c)
	for i := 0; i < r; i++ {
		xr, vr := x.Value.RawRowView(i), v.RawRowView(i)
		for j := range vr {
			vr[j] = xr[j] - mean[j]
		}
	}
	return t.record(v, func(out *Node) {
		gm := make([]float64, c)
		for i := 0; i < r; i++ {
			for j, g := range out.Grad.RawRowView(i) {
				gm[j] += g
			}
		}
		for j := range gm {
			gm[j] *= inv
		}
		gx := x.grad()
		for i := 0; i < r; i++ {
			gr, gxr := out.Grad.RawRowView(i), gx.RawRowView(i)
			for j := range gxr {
				gxr[j] += gr[j] - gm[j]
			}
		}
	}, x)
}
