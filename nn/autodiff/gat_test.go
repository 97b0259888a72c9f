package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// gatChain is the per-head chain GATHeads replaces: for each head ColSlice,
// MatMul(h, a_dst), MatMul(h, a_src), EdgeScores, LeakyReLU, EdgeSoftmax,
// Dropout and EdgeAggregate, then ConcatCols or Mean.
func gatChain(tp *Tape, g *sparse.CSR, h *Node, aSrc, aDst []*Node, slope, drop float64, rng *rand.Rand, mean bool) *Node {
	heads := len(aSrc)
	c := h.Cols() / heads
	outs := make([]*Node, heads)
	for m := range heads {
		hm := tp.ColSlice(h, m*c, (m+1)*c)
		e := tp.LeakyReLU(tp.EdgeScores(g, tp.MatMul(hm, aDst[m]), tp.MatMul(hm, aSrc[m])), slope)
		alpha := tp.EdgeSoftmax(g, e)
		if drop > 0 {
			alpha = tp.Dropout(alpha, drop, rng)
		}
		outs[m] = tp.EdgeAggregate(g, alpha, hm)
	}
	switch {
	case !mean:
		return tp.ConcatCols(outs...)
	case heads > 1:
		return tp.Mean(outs...)
	}
	return outs[0]
}

// holeGraph returns randGraph(n, deg) with row hole emptied (a node without
// incoming edges, whose output row is zero).
func holeGraph(rng *rand.Rand, n, deg, hole int) *sparse.CSR {
	g := randGraph(rng, n, deg)
	lo, hi := g.Indptr[hole], g.Indptr[hole+1]
	g.Indices = append(g.Indices[:lo:lo], g.Indices[hi:]...)
	g.Data = append(g.Data[:lo:lo], g.Data[hi:]...)
	for i := hole + 1; i <= n; i++ {
		g.Indptr[i] -= hi - lo
	}
	return g
}

func gatParams(rng *rand.Rand, n, heads, c int) []*mat.Dense {
	ps := []*mat.Dense{randDense(rng, n, heads*c)}
	for range 2 * heads {
		ps = append(ps, randDense(rng, c, 1))
	}
	return ps
}

func split(ps []*Node, heads int) (h *Node, aSrc, aDst []*Node) {
	return ps[0], ps[1 : 1+heads], ps[1+heads : 1+2*heads]
}

// TestGATHeadsGradients checks GATHeads' gradients (input and attention
// vectors) against finite differences, concatenated and averaged, with and
// without attention dropout.
func TestGATHeadsGradients(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		n, heads, c := 4+rng.IntN(4), 1+rng.IntN(3), 1+rng.IntN(3)
		ag, err := NewAttnGraph(holeGraph(rng, n, 2, rng.IntN(n)))
		if err != nil {
			t.Fatal(err)
		}
		dropSeed := rng.Uint64()
		for _, mean := range []bool{false, true} {
			width := heads * c
			if mean {
				width = c
			}
			r := randDense(rng, n, width)
			for _, drop := range []float64{0, 0.4} {
				checkGrad(t, "gat-heads", gatParams(rng, n, heads, c), func(tp *Tape, ps []*Node) *Node {
					h, as, ad := split(ps, heads)
					return project(tp, tp.GATHeads(ag, h, as, ad, 0.2, drop, rand.New(rand.NewPCG(dropSeed, 1)), mean), r)
				})
			}
		}
	}
}

// gatCase is one shape of the multi-head attention operation the
// bit-identity comparisons run.
type gatCase struct {
	name     string
	heads, c int
	drop     float64
	mean     bool
}

// gatHeadsImpl is an implementation of GATHeads' operation (slope 0.2) as
// the bit-identity comparisons call it.
type gatHeadsImpl func(tp *Tape, ag *AttnGraph, h *Node, aSrc, aDst []*Node, drop float64, rng *rand.Rand, mean bool) *Node

// checkGATHeadsBits runs GATHeads on each worker count and ref on one
// worker with the same parameters (every zeroEvery-th entry of h an exact
// zero, which gonum's product skips), the same mask seed and a loss that
// projects the output and h (so h's gradient has a second consumer), and
// fails unless values, every gradient and the draws left agree bit for bit.
func checkGATHeadsBits(t *testing.T, rng *rand.Rand, ag *AttnGraph, c gatCase, zeroEvery int, maskSeed uint64, ref gatHeadsImpl, refName string, workers ...int) {
	t.Helper()
	n := ag.G.Rows
	params := gatParams(rng, n, c.heads, c.c)
	for i, raw := 0, params[0].RawMatrix().Data; i < len(raw); i += zeroEvery {
		raw[i] = 0
	}
	width := c.heads * c.c
	if c.mean {
		width = c.c
	}
	r := randDense(rng, n, width)
	rh := randDense(rng, n, c.heads*c.c)
	fused := func(tp *Tape, ag *AttnGraph, h *Node, as, ad []*Node, drop float64, drng *rand.Rand, mean bool) *Node {
		return tp.GATHeads(ag, h, as, ad, 0.2, drop, drng, mean)
	}
	run := func(impl gatHeadsImpl, workers int) ([]*mat.Dense, *mat.Dense, uint64) {
		tp := New(workers)
		nodes := make([]*Node, len(params))
		for i, p := range params {
			nodes[i] = tp.Param(p)
		}
		h, as, ad := split(nodes, c.heads)
		drng := rand.New(rand.NewPCG(maskSeed, maskSeed))
		out := impl(tp, ag, h, as, ad, c.drop, drng, c.mean)
		if err := tp.Backward(tp.Add(project(tp, out, r), project(tp, h, rh))); err != nil {
			t.Fatal(err)
		}
		grads := make([]*mat.Dense, len(nodes))
		for i, nd := range nodes {
			grads[i] = nd.Grad
		}
		return grads, out.Value, drng.Uint64()
	}
	wantG, wantV, wantNext := run(ref, 1)
	for _, w := range workers {
		gotG, gotV, gotNext := run(fused, w)
		if !bitsEqual(gotV, wantV) {
			t.Errorf("%s, %d workers: values differ from %s", c.name, w, refName)
		}
		for i := range wantG {
			if !bitsEqual(gotG[i], wantG[i]) {
				t.Errorf("%s, %d workers: gradient of parameter %d differs from %s", c.name, w, i, refName)
			}
		}
		if gotNext != wantNext {
			t.Errorf("%s, %d workers: the draws after the masks differ (%d, %s %d)", c.name, w, gotNext, refName, wantNext)
		}
	}
}

// TestGATHeadsEqualsChain compares GATHeads with the per-head chain bit
// for bit: values, every gradient (with other consumers of h adding to
// its gradient too), and the random draws left, for 1 and 3 workers.
func TestGATHeadsEqualsChain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	ag, err := NewAttnGraph(holeGraph(rng, 700, 6, 5)) // several row blocks
	if err != nil {
		t.Fatal(err)
	}
	chain := func(tp *Tape, ag *AttnGraph, h *Node, as, ad []*Node, drop float64, drng *rand.Rand, mean bool) *Node {
		return gatChain(tp, ag.G, h, as, ad, 0.2, drop, drng, mean)
	}
	for _, c := range []gatCase{
		{"3×4", 3, 4, 0.6, false},
		{"2×3-mean", 2, 3, 0.6, true},
		{"1×5-mean", 1, 5, 0.5, true},
		{"4×2-no-dropout", 4, 2, 0, false},
		{"2×3-mean-no-dropout", 2, 3, 0, true},
		{"8×8", 8, 8, 0.6, false}, // eight heads: vec's lane-per-head kernels
		{"8×3-mean", 8, 3, 0.6, true},
	} {
		checkGATHeadsBits(t, rng, ag, c, 7, 3, chain, "the chain's", 1, 3)
	}
}

func bitsEqual(a, b *mat.Dense) bool {
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		return false
	}
	for i := range ar {
		for j := range ac {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				return false
			}
		}
	}
	return true
}

func TestNewAttnGraphNeedsSquare(t *testing.T) {
	g := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int{0, 1, 1}, Indices: []int32{2}, Data: []float64{1}}
	if _, err := NewAttnGraph(g); err == nil {
		t.Fatal("a 2×3 graph: no error")
	}
}

// TestSpMMDropEqualsMaskedProduct compares SpMMDrop with the product by
// the masked matrix (dropped entries stored as zeros) and its transpose,
// as SpMMDropout computed it before: values, gradient and draws, bit for
// bit, for 1 and 3 workers and widths that are not multiples of the
// column block.
func TestSpMMDropEqualsMaskedProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	a := randGraph(rng, 600, 5)
	a.Cols = 600
	for _, c := range []int{1, 13, 64} {
		x := randDense(rng, 600, c)
		r := randDense(rng, 600, c)
		run := func(old bool, workers int) (*mat.Dense, *mat.Dense, uint64) {
			tp := New(workers)
			xn := tp.Param(x)
			drng := rand.New(rand.NewPCG(1, 2))
			var out *Node
			if old {
				m := &sparse.CSR{Rows: a.Rows, Cols: a.Cols, Indptr: a.Indptr, Indices: a.Indices, Data: make([]float64, len(a.Data))}
				for k, v := range a.Data {
					if drng.Float64() >= 0.6 {
						m.Data[k] = v * (1 / (1 - 0.6))
					}
				}
				out = tp.SpMM(NewSparse(m), xn)
			} else {
				out = tp.SpMMDrop(NewSparse(a), xn, 0.6, drng)
			}
			if err := tp.Backward(project(tp, out, r)); err != nil {
				t.Fatal(err)
			}
			return out.Value, xn.Grad, drng.Uint64()
		}
		wantV, wantG, wantNext := run(true, 1)
		for _, workers := range []int{1, 3} {
			v, g, next := run(false, workers)
			if !bitsEqual(v, wantV) || !bitsEqual(g, wantG) || next != wantNext {
				t.Errorf("width %d, %d workers: SpMMDrop differs from the masked product (values %v, gradient %v, draws %v)",
					c, workers, bitsEqual(v, wantV), bitsEqual(g, wantG), next == wantNext)
			}
		}
	}
}

// TestRecycleSameBits runs three steps of a graph-attention network on one
// tape that recycles its memory between passes (with an evaluation pass in
// between, as training does) and on a new tape per step: every value and
// gradient must be the same bits, and the recycling tape must reuse its
// buffers. The buffers handed out without clearing (floatsFull) come back
// full of NaNs, so an entry an operation fails to write shows.
func TestRecycleSameBits(t *testing.T) {
	poisonFull = true
	defer func() { poisonFull = false }()
	rng := rand.New(rand.NewPCG(5, 5))
	n, f, heads, c := 300, 12, 3, 4
	ag, err := NewAttnGraph(randGraph(rng, n, 4))
	if err != nil {
		t.Fatal(err)
	}
	xs := NewSparse(sparse.FromDense(randDense(rng, n, f)))
	params := []*mat.Dense{randDense(rng, f, heads*c), randDense(rng, 1, heads*c)}
	for range 2 * heads {
		params = append(params, randDense(rng, c, 1))
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(heads * c)
	}
	rows := []int{0, 5, 17, 200}
	pass := func(tp *Tape, drop float64, seed uint64) ([]*Node, *Node) {
		nodes := make([]*Node, len(params))
		for i, p := range params {
			nodes[i] = tp.Param(p)
		}
		drng := rand.New(rand.NewPCG(seed, 1))
		h := tp.SpMMDrop(xs, nodes[0], drop, drng)
		out := tp.GATHeads(ag, h, nodes[2:2+heads], nodes[2+heads:], 0.2, drop, drng, false)
		hid := tp.Dropout(tp.ReLU(tp.ELU(tp.AddBias(out, nodes[1]))), drop, drng)
		loss, err := tp.CrossEntropy(tp.MatMul(hid, tp.Const(randDense(rand.New(rand.NewPCG(seed, 2)), heads*c, heads*c))), rows, labels)
		if err != nil {
			t.Fatal(err)
		}
		return nodes, loss
	}
	rec := New(2)
	for step := range uint64(3) {
		fresh := New(2)
		want, wantLoss := pass(fresh, 0.5, step)
		if err := fresh.Backward(wantLoss); err != nil {
			t.Fatal(err)
		}
		rec.Recycle()
		got, gotLoss := pass(rec, 0.5, step)
		if err := rec.Backward(gotLoss); err != nil {
			t.Fatal(err)
		}
		if gotLoss.Scalar() != wantLoss.Scalar() {
			t.Fatalf("step %d: loss %v, fresh tape %v", step, gotLoss.Scalar(), wantLoss.Scalar())
		}
		for i := range want {
			if !bitsEqual(got[i].Grad, want[i].Grad) {
				t.Errorf("step %d: gradient %d differs from a fresh tape's", step, i)
			}
		}
		rec.Recycle()
		pass(rec, 0, 99) // an evaluation pass, no backward
	}
	reused := 0
	for _, l := range rec.free {
		reused += len(l)
	}
	if len(rec.owned) == 0 || reused+len(rec.owned) < 10 {
		t.Fatalf("recycling tape holds %d free and %d owned buffers, want them reused", reused, len(rec.owned))
	}
}
