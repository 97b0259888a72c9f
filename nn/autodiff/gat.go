package autodiff

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// gatBlockRows is the number of rows (or sources) a worker of GATHeads
// takes at a time. Every output entry is computed by one goroutine in a
// fixed order, so the results do not depend on the number of workers.
const gatBlockRows = 256

// AttnGraph is a graph prepared for GATHeads: the CSR matrix G, whose row i
// lists node i's incoming edges k with source j = G.Indices[k] (only the
// structure is used), and the same edges grouped by source for the
// backward pass. Build it once per graph and reuse it across steps.
type AttnGraph struct {
	G *sparse.CSR
	// srcPtr, bySrc: the edges of source j are bySrc[srcPtr[j]:srcPtr[j+1]],
	// in increasing edge order (so increasing destination).
	srcPtr []int
	bySrc  []int
	// srcDst is the destination (row) of each edge in bySrc's order.
	srcDst []int32
}

// NewAttnGraph returns g prepared for GATHeads. g must be square (the
// attention's sources and destinations are the same nodes).
func NewAttnGraph(g *sparse.CSR) (*AttnGraph, error) {
	if g.Rows != g.Cols {
		return nil, fmt.Errorf("autodiff: attention graph is %d×%d, want square", g.Rows, g.Cols)
	}
	nnz := g.NNZ()
	ag := &AttnGraph{G: g, srcPtr: make([]int, g.Cols+1), bySrc: make([]int, nnz), srcDst: make([]int32, nnz)}
	for _, j := range g.Indices {
		ag.srcPtr[j+1]++
	}
	for j := 0; j < g.Cols; j++ {
		ag.srcPtr[j+1] += ag.srcPtr[j]
	}
	next := append([]int(nil), ag.srcPtr[:g.Cols]...)
	for i := 0; i < g.Rows; i++ {
		for k := g.Indptr[i]; k < g.Indptr[i+1]; k++ {
			j := g.Indices[k]
			ag.bySrc[next[j]], ag.srcDst[next[j]] = k, int32(i)
			next[j]++
		}
	}
	return ag, nil
}

// column returns the c values of a c×1 matrix.
func column(m *mat.Dense) []float64 {
	r, _ := m.Dims()
	out := make([]float64, r)
	for q := range out {
		out[q] = m.At(q, 0)
	}
	return out
}

// GATHeads is graph attention (Veličković et al.) with all heads of a layer
// in one operation. h is n×(heads·c): head m's features are the columns
// [m·c, (m+1)·c) of h, and aSrc[m], aDst[m] (c×1) its attention vectors.
// For every head, with d_i = h_iᵀ·a_dst and s_j = h_jᵀ·a_src (rows of the
// head's columns) and every edge k = (i, j) of the graph,
//
//	α_k = softmax over i's edges of LeakyReLU_slope(d_i + s_j),
//	out_i = Σ_k drop(α)_k · h_j,
//
// where drop is dropout on the attention coefficients with probability
// drop (none when drop ≤ 0). The heads' outputs are concatenated (n×(heads·c),
// mean = false) or averaged (n×c, mean = true).
//
// The values and gradients are bit for bit those of the chain of separate
// operations — per head ColSlice, MatMul(h, a_dst), MatMul(h, a_src),
// EdgeScores, LeakyReLU, EdgeSoftmax, Dropout and EdgeAggregate, then
// ConcatCols or Mean — and the dropout masks take the same draws: for each
// head in order, one rng.Float64 per edge in storage order (at least one).
// Without the chain's ~8 full-size intermediate nodes per head it is several
// times faster, and rows run in parallel on the tape's workers. Each row (and,
// backward, each source) runs over its edges once with all heads' columns
// side by side, in internal/vec's attention kernels (AttnSoftmaxRow,
// AttnAggregate, AttnGradRow, AttnGatherEdges, AttnInputGradRow), which on
// AVX-512 take eight heads as the eight lanes of a register (on AVX2, of
// two); the softmax's
// exponential is vec.Exp, math.Exp's bits on amd64 with FMA on every
// machine.
func (t *Tape) GATHeads(ag *AttnGraph, h *Node, aSrc, aDst []*Node, slope, drop float64, rng *rand.Rand, mean bool) *Node {
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
	// Per-node and per-edge values hold all heads side by side: entry
	// i·heads + m of a node array, k·heads + m of an edge array, so that a
	// row's loops run over its edges once with the heads inside (every
	// value is still the same sum, in the same order, as per head).

	// d_i and s_i per head, each a sum over the head's columns in order
	// (the product h·a of MatMul, whose zero terms gonum skips).
	dst, src := t.floatsFull(n*heads), t.floatsFull(n*heads) // every entry written
	parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := hv.Data[i*hv.Stride : i*hv.Stride+hc]
			for m := range heads {
				var sd, ss float64
				am, bm := ad[m], as[m]
				for q, x := range row[m*c : (m+1)*c] {
					if x != 0 {
						sd += float64(x * am[q])
						ss += float64(x * bm[q])
					}
				}
				dst[i*heads+m], src[i*heads+m] = sd, ss
			}
		}
	})

	// The dropout masks: Dropout's draws on each head's nnz×1
	// coefficients, head by head, stored as one byte per edge and head (1:
	// kept), edge-major like the coefficients. A coefficient is multiplied
	// by factor[byte] (0 or 1/(1−drop), Dropout's mask values).
	var mask []uint8
	var factor [2]float64
	if drop > 0 {
		factor[1] = 1 / (1 - drop)
		mask = t.bytes(nnz * heads)
		d := newDropDraw(drop)
		for m := range heads {
			if nnz == 0 {
				rng.Float64() // Dropout draws at least once
				continue
			}
			for k := range nnz {
				mask[k*heads+m] = byte(b2i(d.keep(rng)))
			}
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
	// Every edge belongs to a row, so both are written entirely.
	alpha := t.floatsFull(nnz * heads)
	da := alpha
	if mask != nil {
		da = t.floatsFull(nnz * heads)
	}
	inv := 1 / float64(heads)
	parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
		// The heads' sums for one row, before the heads are added (mean).
		o := make([]float64, hc)
		var wt []float64 // AttnAggregate's scratch
		for i := lo; i < hi; i++ {
			k0, k1 := g.Indptr[i], g.Indptr[i+1]
			if k0 == k1 {
				continue
			}
			idx := g.Indices[k0:k1]
			// LeakyReLU(d_i + s_j), the softmax over the row per head, and
			// the dropped-out coefficients.
			al := alpha[k0*heads : k1*heads]
			w := al
			var mrow []uint8
			if mask != nil {
				w, mrow = da[k0*heads:k1*heads], mask[k0*heads:k1*heads]
			}
			vec.AttnSoftmaxRow(idx, dst[i*heads:(i+1)*heads], src, slope, al, mrow, factor[1], w)
			// Σ_k drop(α)_k h_j over the row, in edge order, each product
			// rounded before it is added (as vec.SpMMRow), into each head's
			// columns: one pass over the sources' full rows.
			out := vr.Data[i*vr.Stride : i*vr.Stride+width]
			acc := out // zero: a new row of the tape
			if mean {
				acc = o
				clear(acc)
			}
			wt = vec.AttnAggregate(idx, w, heads, c, hv.Data, hv.Stride, c, acc, wt)
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
		// Per destination row: the gradient of each edge's score (through
		// the aggregation, dropout, softmax and LeakyReLU) and of d_i.
		ge := t.floatsFull(nnz * heads) // every edge and row written
		gdst := t.floatsFull(n * heads)
		// The kernels that take the heads as lanes read h transposed.
		var hT []float64
		if vec.AttnTransposed(heads) {
			hT = t.floatsFull(n * hc) // every row written
			parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
				vec.AttnTranspose(hv.Data, hv.Stride, heads, c, hT, lo, hi)
			})
		}
		parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				k0, k1 := g.Indptr[i], g.Indptr[i+1]
				var mrow []uint8
				if mask != nil {
					mrow = mask[k0*heads : k1*heads]
				}
				vec.AttnGradRow(g.Indices[k0:k1], gdata[i*gstride:], gcol, hv.Data, hv.Stride, c, hT,
					alpha[k0*heads:k1*heads], mrow, factor[1], dst[i*heads:(i+1)*heads], src, slope,
					ge[k0*heads:k1*heads], gdst[i*heads:(i+1)*heads])
			}
		})
		// Per source j: the gradient of s_j, and h's gradient (the
		// aggregation's, then through s_j and d_j as MatMul's backward
		// adds them: a_src's product first).
		gsrc := t.floatsFull(n * heads) // every source written
		var gh *mat.Dense
		if h.needs {
			gh = h.grad()
		}
		// The heads' attention vectors, head-major, for AttnInputGradRow.
		asFlat, adFlat := slices.Concat(as...), slices.Concat(ad...)
		parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
			acc := make([]float64, hc)
			var w, wt []float64 // the source's edges' coefficients, edge-major; AttnAggregate's scratch
			for j := lo; j < hi; j++ {
				p0, p1 := ag.srcPtr[j], ag.srcPtr[j+1]
				edges, dsts := ag.bySrc[p0:p1], ag.srcDst[p0:p1]
				gs := gsrc[j*heads : (j+1)*heads]
				if gh == nil {
					vec.AttnGatherEdges(edges, heads, ge, nil, gs, nil)
					continue
				}
				// Σ drop(α)_k g_i over the source's edges, in order, each
				// product rounded before it is added (as vec.SpMMRow).
				clear(acc)
				w = slices.Grow(w[:0], len(edges)*heads)[:len(edges)*heads]
				vec.AttnGatherEdges(edges, heads, ge, da, gs, w)
				wt = vec.AttnAggregate(dsts, w, heads, c, gdata, gstride, gcol, acc, wt)
				vec.AttnInputGradRow(acc, gs, gdst[j*heads:(j+1)*heads], asFlat, adFlat, c, gh.RawRowView(j))
			}
		})
		if !needsA {
			return
		}
		// The attention vectors' gradients hᵀ·g_s and hᵀ·g_d, each a sum
		// over the nodes in order (as MatMul's backward), one head per
		// task. Their gradient matrices come from the tape, which is not
		// safe for concurrent use: allocated here, before the workers start.
		for m := range heads {
			for _, a := range []*Node{aSrc[m], aDst[m]} {
				if a.needs {
					a.grad()
				}
			}
		}
		parallel.Balanced(ctx, heads, 1, workers, func(lo, hi int) {
			accS, accD := make([]float64, c), make([]float64, c)
			for m := lo; m < hi; m++ {
				ns, nd := aSrc[m].needs, aDst[m].needs
				clear(accS)
				clear(accD)
				for l := range n {
					gsl, gdl := gsrc[l*heads+m], gdst[l*heads+m]
					for q, x := range hv.Data[l*hv.Stride+m*c : l*hv.Stride+(m+1)*c] {
						if x != 0 {
							accS[q] += float64(x * gsl)
							accD[q] += float64(x * gdl)
						}
					}
				}
				for _, u := range []struct {
					node *Node
					acc  []float64
					need bool
				}{{aSrc[m], accS, ns}, {aDst[m], accD, nd}} {
					if !u.need {
						continue
					}
					gn := u.node.Grad
					for q, s := range u.acc {
						gn.Set(q, 0, gn.At(q, 0)+s)
					}
				}
			}
		})
	}, inputs...)
}

// b2i is 1 for true and 0 for false (compiled without a branch).
func b2i(b bool) int {
	x := 0
	if b {
		x = 1
	}
	return x
}
