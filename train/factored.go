package train

import (
	"context"
	"errors"
	"fmt"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Factored feature-level input.
//
// The transductive text models read X = the documents' rows of S^K, every
// kept column mapped to [0, 1] by the training rows' minimum and maximum
// (TextSGC's preprocessing). Those rows are nearly full (R8: 7674 × 15362
// at 92.6 % non-zero, 943 MB), but they are the product of two sparse
// factors: with P = A·B (A the documents' rows of S^{K−1}, B = S),
//
//	X[r, b] = (P[r, cols[b]] − lo[b]) / (hi[b] − lo[b]),
//
// a column-affine map of P. So for the classifier's products
//
//	X·Y  = A·(B·Ỹ) − 1·(loᵀ·D·Y),      Ỹ = D·Y scattered to the kept columns
//	Xᵀ·G = D·((Bᵀ·(Aᵀ·G))[cols] − lo·(1ᵀ·G))
//
// with D = diag(1/(hi − lo)); a column dropped because it was constant on
// the training rows (hi = lo) is a zero row of Ỹ and no column of Xᵀ·G,
// as in the dense path. Each product is a sparse × dense product over the
// corpus graph's non-zeros (sparse.MulDenseTo: row blocks on the workers,
// every entry one fixed sum on every kernel path), so the results do not
// depend on the number of workers or the CPU; they differ from the dense
// X's products by rounding only (summation order and the subtraction of
// the shift), which TestFactoredMatchesDense bounds.

// FactoredX is a feature-level input X given by sparse factors:
//
//	X[r, b] = ((A·B)[r, Cols[b]] − Lo[b]) / (Hi[b] − Lo[b])
//
// A is rows × n, B is n × n (nil: the identity), Cols are increasing
// column indices of A·B with Hi > Lo. Lo = 0, Hi = 1 on every column is X =
// A·B itself.
type FactoredX struct {
	A, B   *sparse.CSR
	Cols   []int
	Lo, Hi []float64
}

// Dims returns the shape of X.
func (f *FactoredX) Dims() (rows, cols int) { return f.A.Rows, len(f.Cols) }

// Validate checks the factors' shapes and the columns' ranges.
func (f *FactoredX) Validate() error {
	if f.A == nil {
		return errors.New("factored X: no factor A")
	}
	n := f.A.Cols
	if f.B != nil && (f.B.Rows != n || f.B.Cols != n) {
		return fmt.Errorf("factored X: B is %d×%d, want %d×%d (A is %d×%d)", f.B.Rows, f.B.Cols, n, n, f.A.Rows, n)
	}
	if len(f.Lo) != len(f.Cols) || len(f.Hi) != len(f.Cols) {
		return fmt.Errorf("factored X: %d columns with %d minima and %d maxima", len(f.Cols), len(f.Lo), len(f.Hi))
	}
	for b, j := range f.Cols {
		if j < 0 || j >= n || (b > 0 && j <= f.Cols[b-1]) {
			return fmt.Errorf("factored X: column %d (position %d) is not increasing in [0, %d)", j, b, n)
		}
		if !(f.Hi[b] > f.Lo[b]) || f.Hi[b]-f.Lo[b] > maxFloat {
			return fmt.Errorf("factored X: column %d has range [%v, %v], want a finite max > min", j, f.Lo[b], f.Hi[b])
		}
	}
	return nil
}

const maxFloat = 1.7976931348623157e308

// ProductRow sets buf (length A.Cols) to row r of A·B before scaling: for
// B = nil row r of A, else Σ_p A[r,p]·B[p,:] added entry by entry in A's
// and then B's stored order (Gustavson's order). The dense reference X and
// the minimum and maximum of a min-max scaling are computed from these rows.
func (f *FactoredX) ProductRow(r int, buf []float64) {
	clear(buf)
	a := f.A
	if f.B == nil {
		for p := a.Indptr[r]; p < a.Indptr[r+1]; p++ {
			buf[a.Indices[p]] = a.Data[p]
		}
		return
	}
	b := f.B
	for p := a.Indptr[r]; p < a.Indptr[r+1]; p++ {
		c := int(a.Indices[p])
		av := a.Data[p]
		idx := b.Indices[b.Indptr[c]:b.Indptr[c+1]]
		val := b.Data[b.Indptr[c]:b.Indptr[c+1]]
		for q, j := range idx {
			buf[j] += av * val[q]
		}
	}
}

// Dense returns X as a dense matrix, rows in parallel blocks (the
// reference of the factored products; the precompute stage's dense X was
// this matrix).
func (f *FactoredX) Dense(ctx context.Context, workers int) (*mat.Dense, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	r, c := f.Dims()
	out := mat.NewDense(max(r, 1), max(c, 1), nil)
	raw := out.RawMatrix()
	n := f.A.Cols
	err := parallel.Balanced(ctx, r, 64, max(workers, 1), func(lo, hi int) {
		buf := make([]float64, n)
		for i := lo; i < hi; i++ {
			f.ProductRow(i, buf)
			dst := raw.Data[i*raw.Stride : i*raw.Stride+c]
			for b, j := range f.Cols {
				dst[b] = (buf[j] - f.Lo[b]) / (f.Hi[b] - f.Lo[b])
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// MinMaxColumns returns the columns of A·B that are not constant on the
// rows train, with their minimum and maximum there: the min-max scaling
// of TextSGC's preprocessing, without forming A·B beyond one row per
// worker. Minima and maxima do not depend on the order of the rows, so
// the result does not depend on workers.
func MinMaxColumns(ctx context.Context, a, b *sparse.CSR, train []int, workers int) (*FactoredX, error) {
	f := &FactoredX{A: a, B: b}
	if len(train) == 0 {
		return nil, errors.New("min-max scaling needs training rows")
	}
	n := a.Cols
	for _, i := range train {
		if i < 0 || i >= a.Rows {
			return nil, fmt.Errorf("min-max scaling: training row %d outside the %d rows", i, a.Rows)
		}
	}
	workers = max(workers, 1)
	const block = 64
	lows, highs := make([][]float64, workers), make([][]float64, workers)
	err := parallel.Blocks(ctx, len(train), block, workers, func(w, lo, hi int) {
		buf := make([]float64, n)
		if lows[w] == nil {
			f.ProductRow(train[lo], buf)
			lows[w], highs[w] = append([]float64(nil), buf...), append([]float64(nil), buf...)
		}
		l, h := lows[w], highs[w]
		for _, i := range train[lo:hi] {
			f.ProductRow(i, buf)
			for j, v := range buf {
				l[j] = min(l[j], v)
				h[j] = max(h[j], v)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	l, h := lows[0], highs[0]
	for w := 1; w < workers; w++ {
		if lows[w] == nil {
			continue
		}
		for j := range l {
			l[j] = min(l[j], lows[w][j])
			h[j] = max(h[j], highs[w][j])
		}
	}
	for j := 0; j < n; j++ {
		if h[j] > l[j] {
			f.Cols = append(f.Cols, j)
			f.Lo = append(f.Lo, l[j])
			f.Hi = append(f.Hi, h[j])
		}
	}
	return f, nil
}

// factoredInput holds a trainer's factors and buffers for FactoredX.
type factoredInput struct {
	f            *FactoredX
	inv          []float64   // 1/(hi − lo) per kept column
	aTrain, aTrT *sparse.CSR // A's training rows, and their transpose
	aVal, aTest  *sparse.CSR
	bT           *sparse.CSR // Bᵀ (B itself when symmetric)
	ys, p, u, v  *mat.Dense  // n×C: Ỹ, B·Ỹ, Aᵀ_train·G, Bᵀ·Aᵀ_train·G
	shift, gsum  []float64   // C: loᵀ·D·Y, 1ᵀ·G
	// sorted records which of the fixed matrices have sorted rows, checked
	// once here instead of by every product (a pass over all of B's
	// entries, twice an epoch).
	sorted map[*sparse.CSR]bool
}

// mul sets out = m·x (sparse.MulDenseTo's bits) for one of fi's fixed
// matrices.
func (fi *factoredInput) mul(ctx context.Context, m *sparse.CSR, x, out *mat.Dense, workers int) error {
	return sparse.MulDenseRowsTo(ctx, m, x, out, nil, fi.sorted[m], workers)
}

func newFactoredInput(f *FactoredX, train, val, test []int, classes int) (*factoredInput, error) {
	all := make([]int, f.A.Cols)
	for j := range all {
		all[j] = j
	}
	fi := &factoredInput{f: f, inv: make([]float64, len(f.Cols)),
		shift: make([]float64, classes), gsum: make([]float64, classes)}
	for b := range f.Cols {
		fi.inv[b] = 1 / (f.Hi[b] - f.Lo[b])
	}
	var err error
	if fi.aTrain, err = f.A.Submatrix(train, all); err != nil {
		return nil, err
	}
	fi.aTrT = fi.aTrain.Transpose()
	if fi.aVal, err = f.A.Submatrix(val, all); err != nil {
		return nil, err
	}
	if fi.aTest, err = f.A.Submatrix(test, all); err != nil {
		return nil, err
	}
	if f.B != nil {
		if f.B.IsSymmetric() {
			fi.bT = f.B
		} else {
			fi.bT = f.B.Transpose()
		}
	}
	fi.sorted = map[*sparse.CSR]bool{}
	for _, m := range []*sparse.CSR{f.B, fi.bT, fi.aTrain, fi.aTrT, fi.aVal, fi.aTest} {
		if m != nil {
			fi.sorted[m] = m.CheckSorted() == nil
		}
	}
	n := f.A.Cols
	fi.ys, fi.p = mat.NewDense(n, classes, nil), mat.NewDense(n, classes, nil)
	fi.u, fi.v = mat.NewDense(n, classes, nil), mat.NewDense(n, classes, nil)
	return fi, nil
}

// propagate sets p = B·Ỹ and shift = loᵀ·D·Y for Yᵀ (C × kept).
func (fi *factoredInput) propagate(ctx context.Context, yT *mat.Dense, workers int) error {
	ym, ys := yT.RawMatrix(), fi.ys.RawMatrix()
	c := ym.Rows
	clear(fi.shift)
	for b, j := range fi.f.Cols {
		dst := ys.Data[j*ys.Stride : j*ys.Stride+c]
		lo := fi.f.Lo[b]
		for k := range dst {
			v := ym.Data[k*ym.Stride+b] * fi.inv[b]
			dst[k] = v
			fi.shift[k] += float64(lo * v)
		}
	}
	if fi.f.B == nil {
		fi.p.Copy(fi.ys)
		return ctx.Err()
	}
	return fi.mul(ctx, fi.f.B, fi.ys, fi.p, workers)
}

// rows sets out = a·p − 1·shiftᵀ: the logits X[rows]·Y for the rows a of A.
func (fi *factoredInput) rows(ctx context.Context, a *sparse.CSR, out *mat.Dense, workers int) error {
	if a.Rows == 0 {
		return ctx.Err()
	}
	if err := fi.mul(ctx, a, fi.p, out, workers); err != nil {
		return err
	}
	om := out.RawMatrix()
	for i := 0; i < om.Rows; i++ {
		row := om.Data[i*om.Stride : i*om.Stride+om.Cols]
		for k := range row {
			row[k] -= fi.shift[k]
		}
	}
	return nil
}

// gtx sets gyT (C × kept) = Gᵀ·X_train = (Xᵀ_train·G)ᵀ for G (n_train × C).
func (fi *factoredInput) gtx(ctx context.Context, g, gyT *mat.Dense, workers int) error {
	if err := fi.mul(ctx, fi.aTrT, g, fi.u, workers); err != nil {
		return err
	}
	v := fi.u
	if fi.bT != nil {
		if err := fi.mul(ctx, fi.bT, fi.u, fi.v, workers); err != nil {
			return err
		}
		v = fi.v
	}
	gm := g.RawMatrix()
	clear(fi.gsum)
	for i := 0; i < gm.Rows; i++ {
		for k, x := range gm.Data[i*gm.Stride : i*gm.Stride+gm.Cols] {
			fi.gsum[k] += x
		}
	}
	vm, om := v.RawMatrix(), gyT.RawMatrix()
	for b, j := range fi.f.Cols {
		src := vm.Data[j*vm.Stride : j*vm.Stride+vm.Cols]
		lo, inv := fi.f.Lo[b], fi.inv[b]
		for k, x := range src {
			om.Data[k*om.Stride+b] = inv * (x - float64(lo*fi.gsum[k]))
		}
	}
	return ctx.Err()
}
