package train

import (
	"context"
	"math"

	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Sparse feature-level input.
//
// The inductive text features (TF-IDF rows of the documents, about 0.5 %
// non-zero) reach the trainer as a dense X. When X_train is sparse enough
// (sparseInputRatio), the trainer keeps
// X_train in row-compressed and column-compressed form and X's rows in
// row-compressed form, and runs the three products of a feature-level epoch
// — the training logits X_train·Y, the gradient Gᵀ·X_train and the
// validation/test logits X[rows]·Y — over the non-zeros only.
//
// Each sparse kernel performs, for every output entry, exactly the
// operations of its dense counterpart (the AVX512-named kernels) minus the terms whose X entry
// is zero, in the same order:
//
//   - vec.RowDots: eight lane accumulators (lane j mod 8) summed by fused
//     multiply-adds over j < 8⌊d/8⌋ in increasing j, reduced by lanes8,
//     then the tail j ≥ 8⌊d/8⌋ added as s += x·y;
//   - gtxRangeAVX512: per chunk of gtxRowChunk rows a sum of fused
//     multiply-adds from zero in row order, added to the output chunk after
//     chunk.
//
// A skipped term is fma(0, y, acc) or acc + 0·y, which equals acc exactly
// for finite y (the accumulators start at +0 and a round-to-nearest sum is
// −0 only when both addends are −0, so none is ever −0), so the results are
// bit-identical to the dense kernels': the cache keys, and every cached
// result, stay valid.

// gtxRowChunk is the number of rows whose contributions gtxRangeAVX512
// sums in registers before adding them to the output; their rows of X
// (128 × 602 doubles at Reddit's shape) stay in L2 while it runs along them.
const gtxRowChunk = 128

// sparseInputRatio: X_train is taken sparse when its non-zeros are at most
// 1/sparseInputRatio of its entries. The dense kernels do eight lanes per
// instruction and share loads across four classes; the sparse ones one
// entry per fused multiply-add.
const sparseInputRatio = 16

// csr is a row-compressed matrix: row i's non-zeros are idx/val[ptr[i]:ptr[i+1]],
// columns increasing.
type csr struct {
	rows, cols int
	ptr        []int
	idx        []int32
	val        []float64
}

// denseNNZ counts the non-zeros of m.
func denseNNZ(m *mat.Dense) int {
	raw := m.RawMatrix()
	n := 0
	for i := 0; i < raw.Rows; i++ {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				n++
			}
		}
	}
	return n
}

// csrFromDense compresses the rows of m.
func csrFromDense(m *mat.Dense) *csr {
	raw := m.RawMatrix()
	s := &csr{rows: raw.Rows, cols: raw.Cols, ptr: make([]int, raw.Rows+1)}
	nnz := denseNNZ(m)
	s.idx, s.val = make([]int32, 0, nnz), make([]float64, 0, nnz)
	for i := 0; i < raw.Rows; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				s.idx = append(s.idx, int32(j))
				s.val = append(s.val, v)
			}
		}
		s.ptr[i+1] = len(s.idx)
	}
	return s
}

// transpose returns the column-compressed form of s as a csr of sᵀ: row j
// of the result lists column j's non-zeros, rows increasing.
func (s *csr) transpose() *csr {
	t := &csr{rows: s.cols, cols: s.rows, ptr: make([]int, s.cols+1)}
	for _, j := range s.idx {
		t.ptr[j+1]++
	}
	for j := 0; j < s.cols; j++ {
		t.ptr[j+1] += t.ptr[j]
	}
	t.idx, t.val = make([]int32, len(s.idx)), make([]float64, len(s.val))
	next := append([]int(nil), t.ptr[:s.cols]...)
	for i := 0; i < s.rows; i++ {
		for p := s.ptr[i]; p < s.ptr[i+1]; p++ {
			j := s.idx[p]
			q := next[j]
			t.idx[q], t.val[q] = int32(i), s.val[p]
			next[j]++
		}
	}
	return t
}

// sparseInput is the compressed feature-level input of a trainer.
type sparseInput struct {
	train  *csr // X_train, rows
	trainT *csr // X_train, columns (for Gᵀ·X_train)
	all    *csr // X, rows (validation and test)
	parts  []float64
}

// denseInputOnly turns the sparse path off (tests compare the two paths).
var denseInputOnly = false

// newSparseInput compresses X_train and X if X_train is sparse enough;
// otherwise it returns nil.
func newSparseInput(xTrain, x *mat.Dense, classes, workers int) *sparseInput {
	if denseInputOnly {
		return nil
	}
	if !denseSparseEnough(xTrain) {
		return nil
	}
	return sparseInputOf(csrFromDense(xTrain), csrFromDense(x), classes, workers)
}

// denseSparseEnough reports whether the dense X_train m is sparse enough
// for the sparse path (sparseInputRatio).
func denseSparseEnough(m *mat.Dense) bool {
	r, c := m.Dims()
	return r > 0 && c > 0 && denseNNZ(m)*sparseInputRatio <= r*c
}

// sparseInputOf is the sparse input of the compressed X_train and X.
func sparseInputOf(train, all *csr, classes, workers int) *sparseInput {
	return &sparseInput{train: train, trainT: train.transpose(), all: all,
		parts: make([]float64, classes*max(workers, 1))}
}

// newSparseInputRows is newSparseInput for X given as its rows' non-zeros
// (Data.XRows, shared, not copied): X_train is xTrain when given, else
// X's rows train gathered. It returns nil when X_train is not sparse
// enough; the caller then expands X.
func newSparseInputRows(x *sparse.CSR, xTrain *mat.Dense, train []int, classes, workers int) *sparseInput {
	if denseInputOnly {
		return nil
	}
	all := &csr{rows: x.Rows, cols: x.Cols, ptr: x.Indptr, idx: x.Indices, val: x.Data}
	var tr *csr
	if xTrain != nil {
		if !denseSparseEnough(xTrain) {
			return nil
		}
		tr = csrFromDense(xTrain)
	} else {
		tr = all.selectRows(train)
		if tr.rows == 0 || tr.cols == 0 || len(tr.idx)*sparseInputRatio > tr.rows*tr.cols {
			return nil
		}
	}
	return sparseInputOf(tr, all, classes, workers)
}

// selectRows returns the rows rows of m, in that order, as a new csr.
func (m *csr) selectRows(rows []int) *csr {
	s := &csr{rows: len(rows), cols: m.cols, ptr: make([]int, len(rows)+1)}
	nnz := 0
	for _, i := range rows {
		nnz += m.ptr[i+1] - m.ptr[i]
	}
	s.idx, s.val = make([]int32, 0, nnz), make([]float64, 0, nnz)
	for r, i := range rows {
		s.idx = append(s.idx, m.idx[m.ptr[i]:m.ptr[i+1]]...)
		s.val = append(s.val, m.val[m.ptr[i]:m.ptr[i+1]]...)
		s.ptr[r+1] = len(s.idx)
	}
	return s
}

// sparseRowDots sets out[c] = Σ_j x[j]·y[c·stride+j] for the non-zeros
// (idx, val) of a row of length d, with the operations of vec.RowDots.
func sparseRowDots(idx []int32, val []float64, d int, y []float64, stride int, out []float64) {
	nb8 := int32(d / 8 * 8)
	p8 := 0
	for p8 < len(idx) && idx[p8] < nb8 {
		p8++
	}
	for c := range out {
		yc := y[c*stride : c*stride+d]
		var acc [8]float64
		for p, j := range idx[:p8] {
			acc[j&7] = math.FMA(val[p], yc[j], acc[j&7])
		}
		s := vec.Lanes8(&acc)
		for p := p8; p < len(idx); p++ {
			s += float64(val[p] * yc[idx[p]])
		}
		out[c] = s
	}
}

// rowsProductRange sets out[r] = X[rows[r]]·Y (rows[r] = r when rows is
// nil) for r in [lo, hi), given Yᵀ.
func (m *csr) rowsProductRange(rows []int, yT, out *mat.Dense, lo, hi int) {
	ym, om := yT.RawMatrix(), out.RawMatrix()
	for r := lo; r < hi; r++ {
		i := r
		if rows != nil {
			i = rows[r]
		}
		a, b := m.ptr[i], m.ptr[i+1]
		sparseRowDots(m.idx[a:b], m.val[a:b], m.cols, ym.Data, ym.Stride, om.Data[r*om.Stride:r*om.Stride+om.Cols])
	}
}

// gtxRange sets columns [j0, j1) of out (C×d) to Gᵀ·X for the column-
// compressed X (m = Xᵀ in csr form) and G (n×C), with the operations of
// gtxRangeAVX512. part is scratch of length C.
func (m *csr) gtxRange(g, out *mat.Dense, part []float64, j0, j1 int) {
	gm, om := g.RawMatrix(), out.RawMatrix()
	c := om.Rows
	part = part[:c]
	for j := j0; j < j1; j++ {
		for k := 0; k < c; k++ {
			om.Data[k*om.Stride+j] = 0
		}
		chunk := -1
		for p := m.ptr[j]; p < m.ptr[j+1]; p++ {
			i := int(m.idx[p])
			if ch := i / gtxRowChunk; ch != chunk {
				if chunk >= 0 {
					gtxFlush(om.Data[j:], om.Stride, part)
				}
				clear(part)
				chunk = ch
			}
			v := m.val[p]
			for k, gk := range gm.Data[i*gm.Stride : i*gm.Stride+c] {
				part[k] = math.FMA(gk, v, part[k])
			}
		}
		if chunk >= 0 {
			gtxFlush(om.Data[j:], om.Stride, part)
		}
	}
}

// gtxFlush adds a chunk's sums to one column of the output.
func gtxFlush(col []float64, stride int, part []float64) {
	for k, v := range part {
		col[k*stride] += v
	}
}

// sparseRowsProduct is rowsProduct over the compressed X.
func (t *trainer) sparseRowsProduct(ctx context.Context, m *csr, rows []int, yT, out *mat.Dense, n int) error {
	if t.serial(n) {
		m.rowsProductRange(rows, yT, out, 0, n)
		return ctx.Err()
	}
	return t.parallel(ctx, n, func(lo, hi int) { m.rowsProductRange(rows, yT, out, lo, hi) })
}

// sparseGtx is gtx over the compressed X_train: column blocks on the
// workers, each column summed by one of them.
func (t *trainer) sparseGtx(ctx context.Context) error {
	s := t.sparse
	d := s.trainT.rows
	c := t.classes
	if t.serial(d) {
		s.trainT.gtxRange(t.g, t.gyT, s.parts[:c], 0, d)
		return ctx.Err()
	}
	return t.parallelBlocks(ctx, d, parallelBlock, func(w, lo, hi int) {
		s.trainT.gtxRange(t.g, t.gyT, s.parts[c*w:c*(w+1)], lo, hi)
	})
}
