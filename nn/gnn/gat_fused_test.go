package gnn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// gatChain is GAT with the forward pass it had before the heads were fused
// (autodiff.GATHeads) and before SpMMDrop reused the input's transpose:
// per head a chain of ColSlice, MatMul, EdgeScores, LeakyReLU,
// EdgeSoftmax, Dropout and EdgeAggregate, then ConcatCols or Mean, and
// the input's dropout with a transpose of the masked matrix per step. It
// shares the GAT's parameters.
type gatChain struct{ *GAT }

func (m gatChain) attention(tp *autodiff.Tape, h, aSrc, aDst *autodiff.Node, drop float64, rng *rand.Rand) *autodiff.Node {
	g := m.g.G
	e := tp.LeakyReLU(tp.EdgeScores(g, tp.MatMul(h, aDst), tp.MatMul(h, aSrc)), 0.2)
	alpha := tp.EdgeSoftmax(g, e)
	if drop > 0 {
		alpha = tp.Dropout(alpha, drop, rng)
	}
	return tp.EdgeAggregate(g, alpha, h)
}

func (m gatChain) Forward(tp *autodiff.Tape, p []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node {
	drop := 0.0
	if train {
		drop = m.Dropout
	}
	k := 0
	next := func() *autodiff.Node { k++; return p[k-1] }
	x := m.x.A
	var xw *autodiff.Node
	if drop > 0 {
		masked := &sparse.CSR{Rows: x.Rows, Cols: x.Cols, Indptr: x.Indptr, Indices: x.Indices, Data: make([]float64, len(x.Data))}
		keep := 1 / (1 - drop)
		for k, v := range x.Data {
			if rng.Float64() >= drop {
				masked.Data[k] = v * keep
			}
		}
		xw = tp.SpMM(autodiff.NewSparse(masked), next())
	} else {
		xw = tp.SpMM(autodiff.NewSparse(x), next())
	}
	heads := make([]*autodiff.Node, m.Heads)
	for h := range heads {
		aSrc, aDst := next(), next()
		heads[h] = m.attention(tp, tp.ColSlice(xw, h*m.Hidden, (h+1)*m.Hidden), aSrc, aDst, drop, rng)
	}
	hidden := tp.ELU(tp.AddBias(tp.ConcatCols(heads...), next()))
	if drop > 0 {
		hidden = tp.Dropout(hidden, drop, rng)
	}
	hw := tp.MatMul(hidden, next())
	outs := make([]*autodiff.Node, m.OutHeads)
	for h := range outs {
		aSrc, aDst := next(), next()
		outs[h] = m.attention(tp, tp.ColSlice(hw, h*m.classes, (h+1)*m.classes), aSrc, aDst, drop, rng)
	}
	out := outs[0]
	if len(outs) > 1 {
		out = tp.Mean(outs...)
	}
	return tp.AddBias(out, next())
}

// sparsify zeroes about half of d's feature entries (so that the products
// meet zeros, which gonum's matrix product skips).
func sparsify(d *Data, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	x := d.X.ToDense()
	raw := x.RawMatrix().Data
	for i := range raw {
		if rng.Float64() < 0.5 {
			raw[i] = 0
		}
	}
	d.X = sparse.FromDense(x)
}

func sameBits(a, b *mat.Dense) bool {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	if ra.Rows != rb.Rows || ra.Cols != rb.Cols {
		return false
	}
	for i := 0; i < ra.Rows; i++ {
		for j := 0; j < ra.Cols; j++ {
			if math.Float64bits(ra.Data[i*ra.Stride+j]) != math.Float64bits(rb.Data[i*rb.Stride+j]) {
				return false
			}
		}
	}
	return true
}

// TestGATFusedEqualsChain trains the GAT (fused heads) and the per-head
// chain it replaced from the same seeds, with dropout, several heads and
// averaged output heads, on 1 and 3 workers: every parameter, at the best
// and the last epoch, and every curve value must be the same bits.
func TestGATFusedEqualsChain(t *testing.T) {
	d := communities(4, 3, 30)
	sparsify(d, 4)
	for _, c := range []struct {
		name                    string
		heads, hidden, outHeads int
		dropout                 float64
	}{
		{"pubmed-like", 3, 4, 3, 0.6},
		{"one-out-head", 2, 5, 1, 0.6},
		{"no-dropout", 2, 3, 2, 0},
	} {
		train := func(chain bool, workers int) *Result {
			rng := rand.New(rand.NewPCG(5, 6))
			g, err := NewGAT(d, c.heads, c.hidden, c.outHeads, c.dropout, 1e-3, rng)
			if err != nil {
				t.Fatal(err)
			}
			var m Model = g
			if chain {
				m = gatChain{g}
			}
			res, err := Train(context.Background(), m, d, Config{Epochs: 6, LR: 0.01, Stopping: "accuracy", Workers: workers}, rng)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		want := train(true, 1)
		for _, workers := range []int{1, 3} {
			got := train(false, workers)
			for name, w := range want.FinalParams {
				if !sameBits(got.FinalParams[name], w) {
					t.Errorf("%s, %d workers: final %s differs from the chain's", c.name, workers, name)
				}
				if !sameBits(got.BestParams[name], want.BestParams[name]) {
					t.Errorf("%s, %d workers: best %s differs from the chain's", c.name, workers, name)
				}
			}
			for e := range want.Curves {
				if got.Curves[e] != want.Curves[e] {
					t.Errorf("%s, %d workers: epoch %d: %+v, chain %+v", c.name, workers, e, got.Curves[e], want.Curves[e])
				}
			}
		}
	}
}
