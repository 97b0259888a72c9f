package gnn

import (
	"fmt"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
)

// TextGCN is Yao et al.'s two-layer GCN on a corpus graph of documents and
// words (text_gcn's models.GCN with featureless one-hot inputs),
//
//	logits = Â · drop(ReLU(Â · drop(X) · W1)) · W2,
//
// where X holds one one-hot row per node: the first layer is Â·W1 with W1
// one row per input, computed as a row lookup (autodiff.EmbedRows) instead
// of a product with an n×n identity; dropout on X is their sparse_dropout
// on its stored ones (a whole row of W1 dropped for a node), and the
// product Â·drop(X)·W1 skips the dropped rows' exact zeros
// (autodiff.SpMMEmbedRows: the same bits as the whole product). No biases,
// Glorot initialisation, no weight decay by default (text_gcn's
// weight_decay flag is 0).
//
// A node whose row of X is empty has no input of its own: in the
// inductive corpus graph a test document, unseen in training, is embedded
// only through its edges to the vocabulary.
type TextGCN struct {
	W1, W2  *Param
	Dropout float64
	a       *autodiff.Sparse
	index   []int
}

// OneHotIndex returns, for a matrix whose every row is empty or a single
// stored 1, the column of each row's 1 (−1 for an empty row).
func OneHotIndex(x *sparse.CSR) ([]int, error) {
	index := make([]int, x.Rows)
	for i := range index {
		switch lo, hi := x.Indptr[i], x.Indptr[i+1]; {
		case hi == lo:
			index[i] = -1
		case hi == lo+1 && x.Data[lo] == 1:
			index[i] = int(x.Indices[lo])
		default:
			return nil, fmt.Errorf("gnn: TextGCN input row %d is not one-hot (%d stored entries), want an identity-like input", i, hi-lo)
		}
	}
	return index, nil
}

// NewTextGCN returns a TextGCN for d, whose X must have one-hot or empty
// rows (OneHotIndex), with the given hidden width, dropout and first-layer
// weight decay, initialised from rng (W1, then W2).
func NewTextGCN(d *Data, hidden int, dropout, weightDecay float64, rng *rand.Rand) (*TextGCN, error) {
	if hidden < 1 {
		return nil, fmt.Errorf("gnn: TextGCN hidden width %d, want ≥ 1", hidden)
	}
	if !(dropout >= 0 && dropout < 1) {
		return nil, fmt.Errorf("gnn: dropout %v, want 0 ≤ p < 1", dropout)
	}
	if d.X == nil || d.A == nil || d.X.Rows != d.A.Rows {
		return nil, fmt.Errorf("gnn: TextGCN needs an adjacency and one input row per node")
	}
	index, err := OneHotIndex(d.X)
	if err != nil {
		return nil, err
	}
	if d.X.Cols < 1 {
		return nil, fmt.Errorf("gnn: TextGCN input has no columns")
	}
	return &TextGCN{
		W1:      newParam("W1", glorot(rng, d.X.Cols, hidden), weightDecay),
		W2:      newParam("W2", glorot(rng, hidden, d.Classes), 0),
		Dropout: dropout, a: autodiff.NewSparse(d.A), index: index,
	}, nil
}

// Params returns W1 and W2.
func (m *TextGCN) Params() []*Param { return []*Param{m.W1, m.W2} }

// Forward returns the logits.
func (m *TextGCN) Forward(tp *autodiff.Tape, p []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node {
	drop := 0.0
	if train {
		drop = m.Dropout
	}
	h := tp.ReLU(tp.SpMMEmbedRows(m.a, p[0], m.index, drop, rng))
	if train {
		h = tp.Dropout(h, drop, rng)
	}
	return tp.SpMM(m.a, tp.MatMul(h, p[1]))
}
