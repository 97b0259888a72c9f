package autodiff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/internal/parallel"
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
	// dstOf is the destination (row) of each edge.
	dstOf []int32
}

// NewAttnGraph returns g prepared for GATHeads. g must be square (the
// attention's sources and destinations are the same nodes).
func NewAttnGraph(g *sparse.CSR) (*AttnGraph, error) {
	if g.Rows != g.Cols {
		return nil, fmt.Errorf("autodiff: attention graph is %d×%d, want square", g.Rows, g.Cols)
	}
	nnz := g.NNZ()
	ag := &AttnGraph{G: g, srcPtr: make([]int, g.Cols+1), bySrc: make([]int, nnz), dstOf: make([]int32, nnz)}
	for i := 0; i < g.Rows; i++ {
		for k := g.Indptr[i]; k < g.Indptr[i+1]; k++ {
			ag.dstOf[k] = int32(i)
			ag.srcPtr[g.Indices[k]+1]++
		}
	}
	for j := 0; j < g.Cols; j++ {
		ag.srcPtr[j+1] += ag.srcPtr[j]
	}
	next := append([]int(nil), ag.srcPtr[:g.Cols]...)
	for k, j := range g.Indices {
		ag.bySrc[next[j]] = k
		next[j]++
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
// times faster, and rows run in parallel on the tape's workers.
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

	// d_i and s_i per head, each a sum over the head's columns in order
	// (the product h·a of MatMul, whose zero terms gonum skips).
	dst, src := make([]float64, n*heads), make([]float64, n*heads)
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
				dst[i*heads+m], src[i*heads+m] = sd, ss
			}
		}
	})

	// The dropout masks, head by head (Dropout's draws on each head's
	// nnz×1 coefficients), stored edge-major.
	var mask []float64
	if drop > 0 {
		mask = make([]float64, max(nnz, 1)*heads)
		keep := 1 / (1 - drop)
		for m := range heads {
			for k := range max(nnz, 1) {
				if rng.Float64() >= drop {
					mask[k*heads+m] = keep
				}
			}
		}
	}

	width := hc
	if mean {
		width = c
	}
	v := mat.NewDense(n, width, nil)
	vr := v.RawMatrix()
	alpha := make([]float64, nnz*heads)
	inv := 1 / float64(heads)
	parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
		// Each head's sum for one row (mean: before the heads are added).
		o := make([]float64, hc)
		for i := lo; i < hi; i++ {
			k0, k1 := g.Indptr[i], g.Indptr[i+1]
			if k0 == k1 {
				continue
			}
			al := alpha[k0*heads : k1*heads]
			for m := range heads {
				// LeakyReLU(d_i + s_j), then the softmax over the row.
				di := dst[i*heads+m]
				mx := math.Inf(-1)
				for k := k0; k < k1; k++ {
					e := di + src[int(g.Indices[k])*heads+m]
					if !(e > 0) {
						e = slope * e
					}
					al[(k-k0)*heads+m] = e
					mx = math.Max(mx, e)
				}
				var s float64
				for k := k0; k < k1; k++ {
					a := math.Exp(al[(k-k0)*heads+m] - mx)
					al[(k-k0)*heads+m] = a
					s += a
				}
				for k := k0; k < k1; k++ {
					al[(k-k0)*heads+m] /= s
				}
			}
			// Σ drop(α)_k h_j over the row for every head at once (each
			// entry still sums the row's edges in order).
			out := vr.Data[i*vr.Stride : i*vr.Stride+width]
			acc := out
			if mean {
				acc = o
				clear(acc)
			}
			for k := k0; k < k1; k++ {
				j := int(g.Indices[k])
				hj := hv.Data[j*hv.Stride : j*hv.Stride+hc]
				for m := range heads {
					a := al[(k-k0)*heads+m]
					if mask != nil {
						a *= mask[k*heads+m]
					}
					am, hm := acc[m*c:(m+1)*c], hj[m*c:(m+1)*c]
					for q, x := range hm {
						am[q] += a * x
					}
				}
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
		// grow returns the gradient of head m's output at row i: the
		// output's gradient (concatenated) or its share of the mean, as
		// Mean's backward computes it.
		gr := out.Grad.RawMatrix()
		var gmean []float64
		if mean {
			gmean = make([]float64, n*c)
			scale := 1.0
			if heads > 1 {
				scale = inv
			}
			for i := range n {
				for q, x := range gr.Data[i*gr.Stride : i*gr.Stride+c] {
					gmean[i*c+q] = 0 + scale*x
				}
			}
		}
		grow := func(i, m int) []float64 {
			if mean {
				return gmean[i*c : (i+1)*c]
			}
			return gr.Data[i*gr.Stride+m*c : i*gr.Stride+(m+1)*c]
		}
		// Per destination row: the gradient of each edge's score (through
		// the aggregation, dropout, softmax and LeakyReLU) and of d_i.
		ge := make([]float64, nnz*heads)
		gdst := make([]float64, n*heads)
		parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				k0, k1 := g.Indptr[i], g.Indptr[i+1]
				for m := range heads {
					gi := grow(i, m)
					var dot float64
					for k := k0; k < k1; k++ {
						j := int(g.Indices[k])
						var s float64
						for q, x := range hv.Data[j*hv.Stride+m*c : j*hv.Stride+(m+1)*c] {
							s += gi[q] * x
						}
						ga := 0 + s
						if mask != nil {
							ga = 0 + ga*mask[k*heads+m]
						}
						ge[k*heads+m] = ga
						dot += alpha[k*heads+m] * ga
					}
					di := dst[i*heads+m]
					var sum float64
					for k := k0; k < k1; k++ {
						gl := 0 + alpha[k*heads+m]*(ge[k*heads+m]-dot)
						if !(di+src[int(g.Indices[k])*heads+m] > 0) {
							gl = 0 + gl*slope
						}
						ge[k*heads+m] = gl
						sum += gl
					}
					gdst[i*heads+m] = 0 + sum
				}
			}
		})
		// Per source j: the gradient of s_j, and h's gradient (the
		// aggregation's, then through s_j and d_j as MatMul's backward
		// adds them: a_src's product first).
		gsrc := make([]float64, n*heads)
		var gh *mat.Dense
		if h.needs {
			gh = h.grad()
		}
		parallel.Balanced(ctx, n, gatBlockRows, workers, func(lo, hi int) {
			acc := make([]float64, c)
			for j := lo; j < hi; j++ {
				edges := ag.bySrc[ag.srcPtr[j]:ag.srcPtr[j+1]]
				for m := range heads {
					clear(acc)
					var s float64
					for _, k := range edges {
						if gh != nil {
							i := int(ag.dstOf[k])
							a := alpha[k*heads+m]
							if mask != nil {
								a *= mask[k*heads+m]
							}
							for q, x := range grow(i, m) {
								acc[q] += a * x
							}
						}
						s += ge[k*heads+m]
					}
					gsrc[j*heads+m] = 0 + s
					if gh == nil {
						continue
					}
					ghr := gh.RawRowView(j)[m*c : (m+1)*c]
					gs, gd := gsrc[j*heads+m], gdst[j*heads+m]
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
		// over the nodes in order (as MatMul's backward), one vector per task.
		parallel.Balanced(ctx, 2*heads, 1, workers, func(lo, hi int) {
			for task := lo; task < hi; task++ {
				m, node, gv := task/2, aSrc[task/2], gsrc
				if task%2 == 1 {
					node, gv = aDst[m], gdst
				}
				if !node.needs {
					continue
				}
				acc := make([]float64, c)
				for l := range n {
					for q, x := range hv.Data[l*hv.Stride+m*c : l*hv.Stride+(m+1)*c] {
						if x != 0 {
							acc[q] += x * gv[l*heads+m]
						}
					}
				}
				gn := node.grad()
				for q, s := range acc {
					gn.Set(q, 0, gn.At(q, 0)+s)
				}
			}
		})
	}, inputs...)
}
