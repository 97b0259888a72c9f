package autodiff

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// EmbedRows returns the len(index)×c matrix whose row i is row index[i] of
// the r×c matrix w, or zeros when index[i] < 0: the product X·w for X the
// 0/1 matrix with a single one per row at column index[i] (an identity
// when index is 0, 1, …, r−1), without storing X. It is the first layer of
// a featureless GCN (TextGCN: one-hot node inputs), where a node with no
// input of its own (index −1) contributes nothing.
//
// With p > 0 it is dropout on X's stored ones, as Kipf & Welling's
// sparse_dropout on one-hot inputs: each row with an input is kept with
// probability 1−p and scaled by 1/(1−p), the mask taking one rng.Float64
// per such row in row order — the draws, and so the result, of SpMMDropout
// on X stored as a CSR matrix. The gradient with respect to w adds each
// output row's gradient (times its mask) into row index[i].
func (t *Tape) EmbedRows(w *Node, index []int, p float64, rng *rand.Rand) *Node {
	v, scale := t.embedRows(w, index, p, rng)
	return t.record(v, func(out *Node) { embedRowsBack(w, index, scale, out.Grad) }, w)
}

// embedRows returns EmbedRows' value and each row's scale: 0 for a row
// left empty (dropped, or index −1), else 1/(1−p) (1 without dropout).
func (t *Tape) embedRows(w *Node, index []int, p float64, rng *rand.Rand) (*mat.Dense, []float64) {
	r, c := w.Value.Dims()
	if len(index) == 0 {
		panic("autodiff: EmbedRows of no rows")
	}
	for i, k := range index {
		if k >= r {
			panic(fmt.Sprintf("autodiff: EmbedRows: index[%d] = %d, but the matrix has %d rows", i, k, r))
		}
	}
	scale := make([]float64, len(index))
	keep := 1.0
	if p > 0 {
		keep = 1 / (1 - p)
	}
	for i, k := range index {
		if k < 0 {
			continue
		}
		if p <= 0 || rng.Float64() >= p {
			scale[i] = keep
		}
	}
	v := t.dense(len(index), c)
	for i, k := range index {
		if scale[i] == 0 {
			continue
		}
		src, dst := w.Value.RawRowView(k), v.RawRowView(i)
		if scale[i] == 1 {
			copy(dst, src)
			continue
		}
		for j, x := range src {
			dst[j] = x * scale[i]
		}
	}
	return v, scale
}

// embedRowsBack adds EmbedRows' gradient into w's: row i of g, times its
// scale, into row index[i], for the rows not left empty (no others of g
// are read).
func embedRowsBack(w *Node, index []int, scale []float64, g *mat.Dense) {
	gw := w.grad()
	for i, k := range index {
		if scale[i] == 0 {
			continue
		}
		dst := gw.RawRowView(k)
		for j, x := range g.RawRowView(i) {
			dst[j] += x * scale[i]
		}
	}
}

// SpMMEmbedRows returns s.A·EmbedRows(w, index, p, rng) — the same draws,
// values and gradients as SpMM of EmbedRows — without the work of the rows
// EmbedRows leaves empty (dropped, or index −1: half of them at TextGCN's
// dropout 0.5). Their products are exact zeros, which add nothing to a sum
// of finite terms (every sum starts at +0 and so never is −0), so the
// forward pass multiplies by A without its entries in those columns; and
// EmbedRows' gradient reads only the kept rows of Aᵀ·g, so the backward
// pass computes only those (sparse.MulDenseRowsTo). s.A must be finite
// (an infinite entry times a zero would be NaN in the full product).
func (t *Tape) SpMMEmbedRows(s *Sparse, w *Node, index []int, p float64, rng *rand.Rand) *Node {
	a := s.A
	if a.Cols != len(index) {
		panic(fmt.Sprintf("autodiff: SpMMEmbedRows of a %d×%d matrix and %d rows", a.Rows, a.Cols, len(index)))
	}
	e, scale := t.embedRows(w, index, p, rng)
	kept := make([]bool, len(scale))
	all := true
	for i, sc := range scale {
		kept[i] = sc != 0
		all = all && kept[i]
	}
	m := a
	if !all {
		// The entries in kept columns, in their stored order; written at
		// the next free place, which advances only for a kept column.
		m = &sparse.CSR{Rows: a.Rows, Cols: a.Cols, Indptr: make([]int, a.Rows+1)}
		idx, val := t.int32s(len(a.Data)), t.floats(len(a.Data))
		n := 0
		for i := 0; i < a.Rows; i++ {
			for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
				j := a.Indices[q]
				idx[n], val[n] = j, a.Data[q]
				n += b2i(kept[j])
			}
			m.Indptr[i+1] = n
		}
		m.Indices, m.Data = idx[:n], val[:n]
	}
	v := t.mulSparse(m, e, s.sortedA) // a subset of A's entries, in order
	return t.record(v, func(out *Node) {
		r, c := e.Dims()
		g := t.denseFull(r, c) // only the kept rows are written, and read
		if err := sparse.MulDenseRowsTo(context.Background(), s.AT, out.Grad, g, kept, s.sortedAT, t.Workers); err != nil {
			panic(err) // shapes were checked
		}
		embedRowsBack(w, index, scale, g)
	}, w)
}
