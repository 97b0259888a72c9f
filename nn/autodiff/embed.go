package autodiff

import (
	"fmt"
	"math/rand/v2"
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
	return t.record(v, func(out *Node) {
		gw := w.grad()
		for i, k := range index {
			if scale[i] == 0 {
				continue
			}
			dst := gw.RawRowView(k)
			for j, g := range out.Grad.RawRowView(i) {
				dst[j] += g * scale[i]
			}
		}
	}, w)
}
