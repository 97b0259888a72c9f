package autodiff

import (
	"fmt"
	"math"

	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Edge values are nnz×1 nodes holding one value per stored entry of a CSR
// graph g, in g's storage order: entry k of row i (the destination) and
// column j = g.Indices[k] (the source). Only g's structure is used.

// EdgeScores returns, for every edge (i, j) of g, dst[i] + src[j]: the
// attention logits of GAT before the LeakyReLU, with dst = H·a_dst and
// src = H·a_src (both n×1).
func (t *Tape) EdgeScores(g *sparse.CSR, dst, src *Node) *Node {
	if dst.Rows() != g.Rows || src.Rows() != g.Cols || dst.Cols() != 1 || src.Cols() != 1 {
		panic(fmt.Sprintf("autodiff: EdgeScores on a %d×%d graph with %d×%d and %d×%d", g.Rows, g.Cols, dst.Rows(), dst.Cols(), src.Rows(), src.Cols()))
	}
	v := t.dense(max(g.NNZ(), 1), 1)
	e, d, s := v.RawMatrix().Data, dst.Value.RawMatrix(), src.Value.RawMatrix()
	for i := 0; i < g.Rows; i++ {
		di := d.Data[i*d.Stride]
		for k := g.Indptr[i]; k < g.Indptr[i+1]; k++ {
			e[k] = di + s.Data[int(g.Indices[k])*s.Stride]
		}
	}
	return t.record(v, func(out *Node) {
		ge := out.Grad.RawMatrix().Data
		if dst.needs {
			gd := dst.grad().RawMatrix()
			for i := 0; i < g.Rows; i++ {
				var sum float64
				for k := g.Indptr[i]; k < g.Indptr[i+1]; k++ {
					sum += ge[k]
				}
				gd.Data[i*gd.Stride] += sum
			}
		}
		if src.needs {
			gs := src.grad().RawMatrix()
			for k, j := range g.Indices {
				gs.Data[int(j)*gs.Stride] += ge[k]
			}
		}
	}, dst, src)
}

// EdgeSoftmax returns the softmax of the edge values e over each row of g
// (each destination's incoming edges): α_k = exp(e_k)/Σ_{l in row} exp(e_l).
func (t *Tape) EdgeSoftmax(g *sparse.CSR, e *Node) *Node {
	if e.Cols() != 1 || e.Rows() != max(g.NNZ(), 1) {
		panic(fmt.Sprintf("autodiff: EdgeSoftmax of %d×%d values for %d edges", e.Rows(), e.Cols(), g.NNZ()))
	}
	v := t.dense(e.Rows(), 1)
	a, x := v.RawMatrix().Data, e.Value.RawMatrix().Data
	for i := 0; i < g.Rows; i++ {
		lo, hi := g.Indptr[i], g.Indptr[i+1]
		if lo == hi {
			continue
		}
		mx := math.Inf(-1)
		for k := lo; k < hi; k++ {
			mx = math.Max(mx, x[k])
		}
		var s float64
		for k := lo; k < hi; k++ {
			a[k] = vec.Exp(x[k] - mx) // GATHeads' exponential, math.Exp's bits on amd64 with FMA
			s += a[k]
		}
		for k := lo; k < hi; k++ {
			a[k] /= s
		}
	}
	return t.record(v, func(out *Node) {
		ga, gx := out.Grad.RawMatrix().Data, e.grad().RawMatrix().Data
		for i := 0; i < g.Rows; i++ {
			lo, hi := g.Indptr[i], g.Indptr[i+1]
			var dot float64
			for k := lo; k < hi; k++ {
				dot += a[k] * ga[k]
			}
			for k := lo; k < hi; k++ {
				gx[k] += a[k] * (ga[k] - dot)
			}
		}
	}, e)
}

// EdgeAggregate returns out_i = Σ_{edges k = (i, j)} α_k·h_j: the
// attention-weighted sum of the sources' rows of h (n×c).
func (t *Tape) EdgeAggregate(g *sparse.CSR, alpha, h *Node) *Node {
	if alpha.Cols() != 1 || alpha.Rows() != max(g.NNZ(), 1) || h.Rows() != g.Cols {
		panic(fmt.Sprintf("autodiff: EdgeAggregate of %d×%d weights and %d×%d rows on a %d×%d graph with %d edges",
			alpha.Rows(), alpha.Cols(), h.Rows(), h.Cols(), g.Rows, g.Cols, g.NNZ()))
	}
	c := h.Cols()
	v := t.dense(g.Rows, c)
	a := alpha.Value.RawMatrix().Data
	for i := 0; i < g.Rows; i++ {
		o := v.RawRowView(i)
		for k := g.Indptr[i]; k < g.Indptr[i+1]; k++ {
			hj := h.Value.RawRowView(int(g.Indices[k]))
			for q, x := range hj {
				o[q] += a[k] * x
			}
		}
	}
	return t.record(v, func(out *Node) {
		var ga []float64
		if alpha.needs {
			ga = alpha.grad().RawMatrix().Data
		}
		var gh *mat.Dense
		if h.needs {
			gh = h.grad()
		}
		for i := 0; i < g.Rows; i++ {
			gi := out.Grad.RawRowView(i)
			for k := g.Indptr[i]; k < g.Indptr[i+1]; k++ {
				j := int(g.Indices[k])
				if ga != nil {
					var s float64
					for q, x := range h.Value.RawRowView(j) {
						s += gi[q] * x
					}
					ga[k] += s
				}
				if gh != nil {
					ghj := gh.RawRowView(j)
					for q := range ghj {
						ghj[q] += a[k] * gi[q]
					}
				}
			}
		}
	}, alpha, h)
}
