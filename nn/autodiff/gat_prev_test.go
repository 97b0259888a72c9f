package autodiff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// gatHeadsPrev is GATHeads as it was before its loops were turned inside
// out (per row and head a vec.SpMMRow call, per-head arrays), kept as the
// reference the restructured operation must equal bit for bit.
func (t *Tape) gatHeadsPrev(ag *AttnGraph, h *Node, aSrc, aDst []*Node, slope, drop float64, rng *rand.Rand, mean bool) *Node {
	g := ag.G
	heads := len(aSrc)
	n, hc := h.Value.Dims()
	if heads < 1 || len(aDst) != heads || hc%heads != 0 || n != g.Rows {
		panic(fmt.Sprintf("autodiff: GATHeads of a %d×%d input with %d source and %d destination vectors on a %d×%d graph",
			n, hc, len(aSrc), len(aDst), g.Rows, g.Cols))
	}
	c := hc / heads
	as, ad := make([][]float64, heads), make([][]float64, heads)
	for m := range heads {
		for _, a := range []*Node{aSrc[m], aDst[m]} {
			if r, cc := a.Value.Dims(); r != c || cc != 1 {
				panic(fmt.Sprintf("autodiff: GATHeads attention vector %d×%d, want %d×1", r, cc, c))
			}
		}
		as[m], ad[m] = column(aSrc[m].Value), column(aDst[m].Value)
	}
	nnz := g.NNZ()
	hv := h.Value.RawMatrix()
	ctx := context.Background()
	workers := max(t.Workers, 1)
	// Per-node and per-edge values are stored head by head: entry m·n + i
	// of a node array, m·nnz + k of an edge array.

	// d_i and s_i per head, each a sum over the head's columns in order
	// (the product h·a of MatMul, whose zero terms gonum skips).
	dst, src := t.floats(n*heads), t.floats(n*heads)
	parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := hv.Data[i*hv.Stride : i*hv.Stride+hc]
			for m := range heads {
				var sd, ss float64
				for q, x := range row[m*c : (m+1)*c] {
					if x != 0 {
						sd += x * ad[m][q]
						ss += x * as[m][q]
					}
				}
				dst[m*n+i], src[m*n+i] = sd, ss
			}
		}
	})

	// The dropout masks, head by head (Dropout's draws on each head's
	// nnz×1 coefficients).
	var mask []float64
	if drop > 0 {
		draws := max(nnz, 1)
		mask = t.floats(draws * heads)
		keep := 1 / (1 - drop)
		for k := range mask {
			if rng.Float64() >= drop {
				mask[k] = keep
			}
		}
		if nnz == 0 {
			mask = mask[:0]
		}
	}

	width := hc
	if mean {
		width = c
	}
	v := t.dense(n, width)
	vr := v.RawMatrix()
	// alpha holds the attention coefficients, da the dropped-out ones
	// (alpha itself without dropout).
	alpha := t.floats(nnz * heads)
	da := alpha
	if mask != nil {
		da = t.floats(nnz * heads)
	}
	inv := 1 / float64(heads)
	parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
		// Each head's sum for one row (mean: before the heads are added).
		o := make([]float64, hc)
		for i := lo; i < hi; i++ {
			k0, k1 := g.Indptr[i], g.Indptr[i+1]
			if k0 == k1 {
				continue
			}
			idx := g.Indices[k0:k1]
			out := vr.Data[i*vr.Stride : i*vr.Stride+width]
			acc := out
			if mean {
				acc = o
			}
			for m := range heads {
				// LeakyReLU(d_i + s_j), then the softmax over the row.
				di, sm := dst[m*n+i], src[m*n:(m+1)*n]
				al := alpha[m*nnz+k0 : m*nnz+k1]
				mx := math.Inf(-1)
				for p, j := range idx {
					e := di + sm[j]
					if !(e > 0) {
						e = slope * e
					}
					al[p] = e
					if e > mx { // math.Max but for NaNs, which make the loss NaN anyway
						mx = e
					}
				}
				var s float64
				for p, e := range al {
					a := vec.Exp(e - mx)
					al[p] = a
					s += a
				}
				for p := range al {
					al[p] /= s
				}
				w := al
				if mask != nil {
					w = da[m*nnz+k0 : m*nnz+k1]
					for p, mk := range mask[m*nnz+k0 : m*nnz+k1] {
						w[p] = al[p] * mk
					}
				}
				// Σ_k drop(α)_k h_j over the row, in edge order, into
				// the head's columns.
				vec.SpMMRow(idx, w, hv.Data[m*c:], hv.Stride, acc[m*c:(m+1)*c], false)
			}
			if mean {
				copy(out, acc[:c])
				for m := 1; m < heads; m++ {
					for q, x := range acc[m*c : (m+1)*c] {
						out[q] += x
					}
				}
				if heads > 1 {
					for q := range out {
						out[q] = inv * out[q]
					}
				}
			}
		}
	})

	var needsA bool
	for m := range heads {
		needsA = needsA || aSrc[m].needs || aDst[m].needs
	}
	inputs := append(append([]*Node{h}, aSrc...), aDst...)
	return t.record(v, func(out *Node) {
		// The gradient of head m's output: the output's gradient
		// (concatenated: its columns [m·c, (m+1)·c)) or its share of the
		// mean, as Mean's backward computes it (one n×c array).
		gr := out.Grad.RawMatrix()
		gdata, gstride, gcol := gr.Data, gr.Stride, c
		if mean {
			gmean := t.floats(n * c)
			scale := 1.0
			if heads > 1 {
				scale = inv
			}
			for i := range n {
				for q, x := range gr.Data[i*gr.Stride : i*gr.Stride+c] {
					gmean[i*c+q] = 0 + scale*x
				}
			}
			gdata, gstride, gcol = gmean, c, 0
		}
		grow := func(i, m int) []float64 { return gdata[i*gstride+m*gcol : i*gstride+m*gcol+c] }
		// Per destination row: the gradient of each edge's score (through
		// the aggregation, dropout, softmax and LeakyReLU) and of d_i.
		ge := t.floats(nnz * heads)
		gdst := t.floats(n * heads)
		parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				k0, k1 := g.Indptr[i], g.Indptr[i+1]
				idx := g.Indices[k0:k1]
				for m := range heads {
					gi := grow(i, m)
					al, gm := alpha[m*nnz+k0:m*nnz+k1], ge[m*nnz+k0:m*nnz+k1]
					var dot float64
					for p, j := range idx {
						var s float64
						for q, x := range hv.Data[int(j)*hv.Stride+m*c : int(j)*hv.Stride+(m+1)*c] {
							s += gi[q] * x
						}
						ga := 0 + s
						if mask != nil {
							ga = 0 + ga*mask[m*nnz+k0+p]
						}
						gm[p] = ga
						dot += al[p] * ga
					}
					di, sm := dst[m*n+i], src[m*n:(m+1)*n]
					var sum float64
					for p, j := range idx {
						gl := 0 + al[p]*(gm[p]-dot)
						if !(di+sm[j] > 0) {
							gl = 0 + gl*slope
						}
						gm[p] = gl
						sum += gl
					}
					gdst[m*n+i] = 0 + sum
				}
			}
		})
		// Per source j: the gradient of s_j, and h's gradient (the
		// aggregation's, then through s_j and d_j as MatMul's backward
		// adds them: a_src's product first).
		gsrc := t.floats(n * heads)
		var gh *mat.Dense
		if h.needs {
			gh = h.grad()
		}
		parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
			acc := make([]float64, c)
			var w []float64
			for j := lo; j < hi; j++ {
				p0, p1 := ag.srcPtr[j], ag.srcPtr[j+1]
				edges, dsts := ag.bySrc[p0:p1], ag.srcDst[p0:p1]
				w = slices.Grow(w[:0], len(edges))[:len(edges)]
				for m := range heads {
					var s float64
					for p, k := range edges {
						s += ge[m*nnz+k]
						w[p] = da[m*nnz+k]
					}
					gsrc[m*n+j] = 0 + s
					if gh == nil {
						continue
					}
					// Σ drop(α)_k g_i over the source's edges, in order.
					vec.SpMMRow(dsts, w, gdata[m*gcol:], gstride, acc, false)
					ghr := gh.RawRowView(j)[m*c : (m+1)*c]
					gs, gd := gsrc[m*n+j], gdst[m*n+j]
					for q := range acc {
						ghr[q] += (acc[q] + gs*as[m][q]) + gd*ad[m][q]
					}
				}
			}
		})
		if !needsA {
			return
		}
		// The attention vectors' gradients hᵀ·g_s and hᵀ·g_d, each a sum
		// over the nodes in order (as MatMul's backward), one vector per
		// task. Their gradient matrices come from the tape, which is not
		// safe for concurrent use: allocated here, before the workers start.
		for m := range heads {
			for _, a := range []*Node{aSrc[m], aDst[m]} {
				if a.needs {
					a.grad()
				}
			}
		}
		parallel.Balanced(ctx, 2*heads, 1, workers, func(lo, hi int) {
			for task := lo; task < hi; task++ {
				m, node, gv := task/2, aSrc[task/2], gsrc
				if task%2 == 1 {
					node, gv = aDst[m], gdst
				}
				if !node.needs {
					continue
				}
				gv = gv[m*n : (m+1)*n]
				acc := make([]float64, c)
				for l := range n {
					for q, x := range hv.Data[l*hv.Stride+m*c : l*hv.Stride+(m+1)*c] {
						if x != 0 {
							acc[q] += x * gv[l]
						}
					}
				}
				gn := node.Grad
				for q, s := range acc {
					gn.Set(q, 0, gn.At(q, 0)+s)
				}
			}
		})
	}, inputs...)
}

// TestGATHeadsEqualsPrevious compares GATHeads with gatHeadsPrev bit for
// bit — values, every gradient (h's with another consumer adding to it),
// the draws left — at the widths the GAT uses (8 heads of 8 columns, whose
// previous aggregation took the vector kernels' blocks of eight; 8 output
// heads of 3 classes, averaged), wider and narrower ones, with and without
// attention dropout, on a graph with an empty row and on one with no edge
// at all, for 1, 2 and 3 workers (the previous one on 1).
func TestGATHeadsEqualsPrevious(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	n := 600 // several row blocks
	hole, err := NewAttnGraph(holeGraph(rng, n, 5, 17))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := NewAttnGraph(&sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)})
	if err != nil {
		t.Fatal(err)
	}
	prev := func(tp *Tape, ag *AttnGraph, h *Node, as, ad []*Node, drop float64, drng *rand.Rand, mean bool) *Node {
		return tp.gatHeadsPrev(ag, h, as, ad, 0.2, drop, drng, mean)
	}
	for _, c := range []struct {
		ag *AttnGraph
		gatCase
	}{
		{hole, gatCase{"gat-layer1", 8, 8, 0.6, false}},
		{hole, gatCase{"gat-layer2", 8, 3, 0.6, true}},
		{hole, gatCase{"wide", 3, 19, 0.5, false}},
		{hole, gatCase{"wide-mean", 2, 17, 0, true}},
		{hole, gatCase{"one-head", 1, 8, 0, false}},
		{hole, gatCase{"one-head-mean", 1, 5, 0.3, true}},
		{hole, gatCase{"no-dropout", 8, 8, 0, false}},
		{empty, gatCase{"no-edges", 2, 8, 0.6, false}},
	} {
		checkGATHeadsBits(t, rng, c.ag, c.gatCase, 5, 4, prev, "the previous implementation's", 1, 2, 3)
	}
}
