package sparse

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// blockRows is the number of rows a worker takes at a time. Every output row
// is computed by exactly one goroutine with a fixed summation order, so the
// results are bit-identical for any number of workers.
const blockRows = 256

// parallelRows calls f(lo, hi) for the blockRows-row blocks of [0, n) on
// up to workers goroutines (< 1: GOMAXPROCS), which take them in order, and
// stops early when ctx is canceled.
func parallelRows(ctx context.Context, n, workers int, f func(lo, hi int)) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	return parallel.Balanced(ctx, n, blockRows, workers, f)
}

// MulDense returns m·x for a dense x, computed in parallel by row blocks on
// up to workers goroutines (workers < 1 means GOMAXPROCS). The result does not
// depend on workers.
func MulDense(ctx context.Context, m *CSR, x *mat.Dense, workers int) (*mat.Dense, error) {
	xr, xc := x.Dims()
	if m.Cols != xr {
		return nil, fmt.Errorf("sparse: MulDense: shapes %dx%d and %dx%d do not match", m.Rows, m.Cols, xr, xc)
	}
	if m.Rows == 0 || xc == 0 {
		return &mat.Dense{}, nil
	}
	out := mat.NewDense(m.Rows, xc, nil)
	if err := mulDenseInto(ctx, m, x, out, workers, nil, false); err != nil {
		return nil, err
	}
	return out, nil
}

// MulDenseTo writes m·x into out (m.Rows×c for an r×c x with r = m.Cols,
// c ≥ 1; its old contents are overwritten), the same bits as MulDense, for a
// caller that reuses out's memory.
func MulDenseTo(ctx context.Context, m *CSR, x, out *mat.Dense, workers int) error {
	if err := checkMulTo("MulDenseTo", m, x, out, nil); err != nil {
		return err
	}
	return mulDenseInto(ctx, m, x, out, workers, nil, false)
}

// MulDenseRowsTo writes the rows i of m·x with rows[i] true (every row when
// rows is nil; else len(rows) = m.Rows) into out (m.Rows×c for an r×c x
// with r = m.Cols, c ≥ 1), the same bits as MulDenseTo gives them, and
// leaves out's other rows as they are: for a caller that reads only some
// rows of the product. sorted says the caller knows m's rows are sorted —
// CheckSorted returned nil for it, and it has not changed since —, so the
// product does not check again (a pass over all of m's indices); on an m
// whose rows are not sorted, sorted = true gives a wrong result.
func MulDenseRowsTo(ctx context.Context, m *CSR, x, out *mat.Dense, rows []bool, sorted bool, workers int) error {
	if err := checkMulTo("MulDenseRowsTo", m, x, out, rows); err != nil {
		return err
	}
	return mulDenseInto(ctx, m, x, out, workers, rows, sorted)
}

// checkMulTo checks the shapes of fn's product m·x into out and, when rows
// is not nil, that it has a flag per row of m.
func checkMulTo(fn string, m *CSR, x, out *mat.Dense, rows []bool) error {
	xr, xc := x.Dims()
	if m.Cols != xr {
		return fmt.Errorf("sparse: %s: shapes %dx%d and %dx%d do not match", fn, m.Rows, m.Cols, xr, xc)
	}
	if or, oc := out.Dims(); or != m.Rows || oc != xc {
		return fmt.Errorf("sparse: %s: output is %dx%d, want %dx%d", fn, or, oc, m.Rows, xc)
	}
	if rows != nil && len(rows) != m.Rows {
		return fmt.Errorf("sparse: %s: %d row flags for %d rows", fn, len(rows), m.Rows)
	}
	return nil
}

// mulSegmentBytes is the size of the slice of x one segment of MulDense's
// segmented product gathers from (see spmmSegmented): x's rows are read in
// random order, and once x is larger than the last-level cache a product
// gathering from all of it waits on memory for most entries. On the 2-core
// VM of docs/performance.md a 200-column product by a 3.5-million-entry
// matrix of 15 000 rows (TextGCN on R8) took 1.7–2.8× less CPU in 4 MiB
// segments than unsegmented, and less than in 1.6 or 8 MiB ones (figures
// and the benchmark that measures them: docs/performance.md).
// (A variable so that tests can make segments small.)
var mulSegmentBytes = 4 << 20

// mulDenseInto writes m·x into out (m.Rows×xc; its old contents are
// overwritten): by segments of x's rows when x is larger than
// mulSegmentBytes and m's rows are sorted, else in one pass. Both add every
// row's terms in its stored order, so they give the same bits; only sorted
// rows make a segment's gathers come from a part of x.
//
// rows, when not nil, selects the rows to compute; the others of out are
// left as they are. sorted says the caller knows m's rows are sorted.
func mulDenseInto(ctx context.Context, m *CSR, x, out *mat.Dense, workers int, rows []bool, sorted bool) error {
	xraw := x.RawMatrix()
	oraw := out.RawMatrix()
	if seg := max(1, mulSegmentBytes/(8*xraw.Cols)); m.Cols > seg && (sorted || m.CheckSorted() == nil) {
		return spmmSegmented(ctx, m, xraw.Data, xraw.Stride, oraw.Data, oraw.Stride, xraw.Cols, workers, seg, make([]int, m.Rows), rows)
	}
	return parallelRows(ctx, m.Rows, workers, func(lo, hi int) {
		spmmRange(m, xraw.Data, xraw.Stride, oraw.Data, oraw.Stride, xraw.Cols, lo, hi, rows)
	})
}

// spmmRange sets, for the rows i in [lo, hi),
//
//	dst[i·ds : i·ds+w] = Σ_p m.Data[p]·src[j·ss : j·ss+w],  j = m.Indices[p],
//
// summing over row i's entries in their stored order, each term rounded
// before it is added (no fused multiply-add; vec.SpMMRow, whose AVX-512,
// AVX2 and portable paths give the same bits). Every entry is therefore the
// same floating-point sum whichever kernel, column blocking or worker count
// computes it. dst must not overlap src. rows, when not nil, selects the
// rows to compute.
func spmmRange(m *CSR, src []float64, ss int, dst []float64, ds, w, lo, hi int, rows []bool) {
	for i := lo; i < hi; i++ {
		if rows != nil && !rows[i] {
			continue
		}
		p0, p1 := m.Indptr[i], m.Indptr[i+1]
		vec.SpMMRow(m.Indices[p0:p1], m.Data[p0:p1], src, ss, dst[i*ds:i*ds+w], false)
	}
}

// spmmSeg is one segment of a segmented product (see spmmSegmented): for
// rows i in [lo, hi) it adds the terms of row i's entries from position
// cur[i] up to its first column ≥ s1 to dst's row (to zero when first), in
// stored order with each product rounded before it is added, and advances
// cur[i]. Over all segments every entry is the same sum as spmmRange's.
// rows, when not nil, selects the rows to compute.
func spmmSeg(m *CSR, src []float64, ss int, dst []float64, ds, w, lo, hi int, s1 int32, first bool, cur []int, rows []bool) {
	for i := lo; i < hi; i++ {
		if rows != nil && !rows[i] {
			continue
		}
		p0, end := cur[i], m.Indptr[i+1]
		p := p0
		for p < end && m.Indices[p] < s1 {
			p++
		}
		if p > p0 || first {
			vec.SpMMRow(m.Indices[p0:p], m.Data[p0:p], src, ss, dst[i*ds:i*ds+w], !first)
		}
		cur[i] = p
	}
}

// spmmSegmentBytes is the size of the slice of the source block one segment
// of a segmented product reads: small enough to stay in the last-level cache
// while every row gathers from it.
// (A variable so that tests can make segments small.)
var spmmSegmentBytes = 16 << 20

// spmmSegmented computes dst = m·src like spmmRange over all rows, but in
// segments of seg source rows: every output row first takes its entries in
// columns [0, seg), then [seg, 2·seg), and so on, so the rows gathered in one
// segment come from a cache-sized part of src instead of all of it. m's rows
// must be sorted by column; then the terms are added in the same order as
// spmmRange adds them and the results are bit-identical. cur (length
// m.Rows) is scratch. rows, when not nil, selects the rows to compute.
func spmmSegmented(ctx context.Context, m *CSR, src []float64, ss int, dst []float64, ds, w, workers, seg int, cur []int, rows []bool) error {
	copy(cur, m.Indptr[:m.Rows])
	for s0 := 0; s0 < m.Cols; s0 += seg {
		s1 := int32(min(s0+seg, m.Cols))
		first := s0 == 0
		err := parallelRows(ctx, m.Rows, workers, func(lo, hi int) {
			spmmSeg(m, src, ss, dst, ds, w, lo, hi, s1, first, cur, rows)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// powerBlockCols is the width of the column blocks PowerDense works in.
// A block of the iterates (n × 32 values) is small enough that the rows
// gathered for each non-zero mostly come from cache, and only two such
// blocks are needed beside the result, instead of two full n×c iterates.
const powerBlockCols = 32

// PowerDense returns m^k·x (k ≥ 0) for a square m, applying m k times.
// k = 0 returns a copy of x. The columns of x are independent, so for
// k ≥ 2 it runs all k products on one block of columns at a time: the block
// of x is copied into an n×32 buffer, multiplied k−1 times between two such
// buffers, and the last product is written into the result. Each step is
// parallel by row blocks on up to workers goroutines. Every entry is the
// same sum as k successive MulDense calls compute, bit for bit, for any
// workers.
func PowerDense(ctx context.Context, m *CSR, x *mat.Dense, k, workers int) (*mat.Dense, error) {
	if k < 0 {
		return nil, fmt.Errorf("sparse: PowerDense: negative power %d", k)
	}
	if m.Rows != m.Cols {
		return nil, fmt.Errorf("sparse: PowerDense: matrix is %dx%d, not square", m.Rows, m.Cols)
	}
	xr, xc := x.Dims()
	if xr != m.Cols {
		return nil, fmt.Errorf("sparse: PowerDense: shapes %dx%d and %dx%d do not match", m.Rows, m.Cols, xr, xc)
	}
	if k == 0 {
		return mat.DenseCopyOf(x), nil
	}
	out := NewDense(xr, xc)
	if k == 1 {
		if err := mulDenseInto(ctx, m, x, out, workers, nil, false); err != nil {
			return nil, err
		}
		return out, nil
	}
	xraw := x.RawMatrix()
	err := powerBlocks(ctx, m, xc, k, workers, out, func(block []float64, c0, w, lo, hi int) {
		for i := lo; i < hi; i++ {
			copy(block[i*w:(i+1)*w], xraw.Data[i*xraw.Stride+c0:i*xraw.Stride+c0+w])
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PowerDenseGather returns m^k·x[rows], where x[rows] is the matrix of the
// given rows of x in the given order (len(rows) = m.Rows = m.Cols), without
// forming x[rows]: each 32-column block is gathered from x's rows straight
// into the block buffer. The result equals PowerDense of the gathered
// matrix bit for bit, for any workers (k = 0 returns the gathered copy).
// The inductive precompute uses it for S_train^K·X[train].
func PowerDenseGather(ctx context.Context, m *CSR, x *mat.Dense, rows []int, k, workers int) (*mat.Dense, error) {
	if k < 0 {
		return nil, fmt.Errorf("sparse: PowerDenseGather: negative power %d", k)
	}
	if m.Rows != m.Cols {
		return nil, fmt.Errorf("sparse: PowerDenseGather: matrix is %dx%d, not square", m.Rows, m.Cols)
	}
	xr, xc := x.Dims()
	if len(rows) != m.Cols {
		return nil, fmt.Errorf("sparse: PowerDenseGather: %d rows for a %dx%d matrix", len(rows), m.Rows, m.Cols)
	}
	for a, r := range rows {
		if r < 0 || r >= xr {
			return nil, fmt.Errorf("sparse: PowerDenseGather: row %d (position %d) out of range [0,%d)", r, a, xr)
		}
	}
	if len(rows) == 0 || xc == 0 {
		return &mat.Dense{}, nil
	}
	out := NewDense(len(rows), xc)
	xraw := x.RawMatrix()
	if k == 0 {
		for a, r := range rows {
			copy(out.RawRowView(a), xraw.Data[r*xraw.Stride:r*xraw.Stride+xc])
		}
		return out, nil
	}
	err := powerBlocks(ctx, m, xc, k, workers, out, func(block []float64, c0, w, lo, hi int) {
		for i := lo; i < hi; i++ {
			o := rows[i]*xraw.Stride + c0
			copy(block[i*w:(i+1)*w], xraw.Data[o:o+w])
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// PowerSparse returns m^k·x (k ≥ 0) for a square m and a sparse x, as a
// dense matrix, without forming x densely: each 32-column block of x is
// scattered from its rows into the block buffer PowerDense copies it into.
// The result equals PowerDense(ctx, m, x.ToDense(), k, workers) bit for bit,
// but needs one n×c matrix (the result) instead of two — for bag-of-words
// features (Pubmed 19717×500, Citeseer 3327×3703) that is most of the
// precompute's fresh memory.
func PowerSparse(ctx context.Context, m *CSR, x *CSR, k, workers int) (*mat.Dense, error) {
	if k < 0 {
		return nil, fmt.Errorf("sparse: PowerSparse: negative power %d", k)
	}
	if m.Rows != m.Cols {
		return nil, fmt.Errorf("sparse: PowerSparse: matrix is %dx%d, not square", m.Rows, m.Cols)
	}
	if x.Rows != m.Cols {
		return nil, fmt.Errorf("sparse: PowerSparse: shapes %dx%d and %dx%d do not match", m.Rows, m.Cols, x.Rows, x.Cols)
	}
	if k == 0 || x.Rows == 0 || x.Cols == 0 {
		return x.ToDense(), nil
	}
	xs := x.Canonical() // sorted rows: each block takes a run of each row
	cur := slices.Clone(xs.Indptr[:xs.Rows])
	out := NewDense(x.Rows, x.Cols)
	err := powerBlocks(ctx, m, x.Cols, k, workers, out, func(block []float64, c0, w, lo, hi int) {
		c1 := int32(c0 + w)
		for i := lo; i < hi; i++ {
			row := block[i*w : (i+1)*w]
			clear(row)
			p, end := cur[i], xs.Indptr[i+1]
			for ; p < end && xs.Indices[p] < c1; p++ {
				row[int(xs.Indices[p])-c0] += xs.Data[p]
			}
			cur[i] = p
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// powerBlocks writes m^k·x (k ≥ 1, x n×xc given through fill) into out, one
// block of up to powerBlockCols columns at a time: fill(block, c0, w, lo, hi)
// sets rows [lo, hi) of the n×w buffer block to columns [c0, c0+w) of x
// (called for every row of each block, blocks in increasing c0); then k−1
// products run between two n×w buffers and the last one writes into out.
func powerBlocks(ctx context.Context, m *CSR, xc, k, workers int, out *mat.Dense, fill func(block []float64, c0, w, lo, hi int)) error {
	n := m.Rows
	oraw := out.RawMatrix()
	bw := min(powerBlockCols, xc)
	// Scratch outside the Go heap where possible (see scratch); every
	// goroutine using it has finished when powerBlocks returns.
	bufA, freeA := scratch(n * bw)
	defer freeA()
	bufB, freeB := scratch(n * bw)
	defer freeB()
	// Large graphs: segmented products (rows sorted by column keep the
	// order of the sums, hence the results).
	seg := max(1, spmmSegmentBytes/(8*bw))
	var cur []int
	if n > seg && m.CheckSorted() == nil {
		cur = make([]int, n)
	}
	for c0 := 0; c0 < xc; c0 += bw {
		w := min(bw, xc-c0)
		// The block of x, contiguous.
		err := parallelRows(ctx, n, workers, func(lo, hi int) { fill(bufA, c0, w, lo, hi) })
		if err != nil {
			return err
		}
		src, dst := bufA, bufB
		for step := 1; step <= k; step++ {
			d, ds := dst, w
			if step == k {
				d, ds = oraw.Data[c0:], oraw.Stride
			}
			var err error
			if cur != nil {
				err = spmmSegmented(ctx, m, src, w, d, ds, w, workers, seg, cur, nil)
			} else {
				err = parallelRows(ctx, n, workers, func(lo, hi int) {
					spmmRange(m, src, w, d, ds, w, lo, hi, nil)
				})
			}
			if err != nil {
				return err
			}
			src, dst = dst, src
		}
	}
	return nil
}

// PowerDenseRows returns the given rows of m^k·x (in the given order) without
// computing the others: it applies m only to the rows that the requested ones
// depend on within k hops. The values equal the corresponding rows of
// PowerDense bit for bit.
func PowerDenseRows(ctx context.Context, m *CSR, x *mat.Dense, k int, rows []int, workers int) (*mat.Dense, error) {
	if k < 0 {
		return nil, fmt.Errorf("sparse: PowerDenseRows: negative power %d", k)
	}
	if m.Rows != m.Cols {
		return nil, fmt.Errorf("sparse: PowerDenseRows: matrix is %dx%d, not square", m.Rows, m.Cols)
	}
	xr, xc := x.Dims()
	if xr != m.Cols {
		return nil, fmt.Errorf("sparse: PowerDenseRows: shapes %dx%d and %dx%d do not match", m.Rows, m.Cols, xr, xc)
	}
	for a, r := range rows {
		if r < 0 || r >= m.Rows {
			return nil, fmt.Errorf("sparse: PowerDenseRows: row %d (position %d) out of range [0,%d)", r, a, m.Rows)
		}
	}
	if len(rows) == 0 || xc == 0 {
		return &mat.Dense{}, nil
	}
	n := m.Rows
	// need[l] = sorted set of rows of m^l·x required; need[k] = rows.
	need := make([][]int, k+1)
	mark := make([]bool, n)
	need[k] = uniqueSorted(rows, mark)
	for l := k; l > 0; l-- {
		clear(mark)
		var set []int
		for _, i := range need[l] {
			for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
				j := int(m.Indices[p])
				if !mark[j] {
					mark[j] = true
					set = append(set, j)
				}
			}
		}
		slices.Sort(set)
		need[l-1] = set
	}
	// pos[j] = position of row j within the previous level's matrix.
	pos := make([]int32, n)
	prev := x
	prevRows := []int(nil) // nil: prev holds all rows of x in order
	for l := 1; l <= k; l++ {
		if prevRows != nil {
			for a, j := range prevRows {
				pos[j] = int32(a)
			}
		}
		cur := mat.NewDense(max(len(need[l]), 1), xc, nil)
		praw, craw := prev.RawMatrix(), cur.RawMatrix()
		lvl := need[l]
		full := prevRows == nil
		err := parallelRows(ctx, len(lvl), workers, func(lo, hi int) {
			for a := lo; a < hi; a++ {
				i := lvl[a]
				dst := craw.Data[a*craw.Stride : a*craw.Stride+xc]
				for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
					j := int(m.Indices[p])
					if !full {
						j = int(pos[j])
					}
					addScaled(dst, m.Data[p], praw.Data[j*praw.Stride:j*praw.Stride+xc])
				}
			}
		})
		if err != nil {
			return nil, err
		}
		prev, prevRows = cur, lvl
	}
	out := mat.NewDense(len(rows), xc, nil)
	if prevRows != nil {
		for a, j := range prevRows {
			pos[j] = int32(a)
		}
	}
	for a, r := range rows {
		src := r
		if prevRows != nil {
			src = int(pos[r])
		}
		copy(out.RawRowView(a), prev.RawRowView(src))
	}
	return out, nil
}

func uniqueSorted(rows []int, mark []bool) []int {
	clear(mark)
	var set []int
	for _, r := range rows {
		if !mark[r] {
			mark[r] = true
			set = append(set, r)
		}
	}
	slices.Sort(set)
	return set
}

// Mul returns the sparse product a·b in canonical form, computed in parallel
// by row blocks (Gustavson's algorithm); deterministic for any workers.
func Mul(ctx context.Context, a, b *CSR, workers int) (*CSR, error) {
	if a.Cols != b.Rows {
		return nil, fmt.Errorf("sparse: Mul: shapes %dx%d and %dx%d do not match", a.Rows, a.Cols, b.Rows, b.Cols)
	}
	type block struct {
		idx []int32
		val []float64
		cnt []int
	}
	nb := (a.Rows + blockRows - 1) / blockRows
	blocks := make([]block, nb)
	var pool sync.Pool
	err := parallelRows(ctx, a.Rows, workers, func(lo, hi int) {
		sc, _ := pool.Get().(*mulScratch)
		if sc == nil {
			sc = &mulScratch{acc: make([]float64, b.Cols), touched: make([]bool, b.Cols)}
		}
		acc, touched := sc.acc, sc.touched
		var bl block
		bl.cnt = make([]int, hi-lo)
		var cols []int32
		for i := lo; i < hi; i++ {
			cols = cols[:0]
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				k := a.Indices[p]
				av := a.Data[p]
				for q := b.Indptr[k]; q < b.Indptr[k+1]; q++ {
					j := b.Indices[q]
					if !touched[j] {
						touched[j] = true
						cols = append(cols, j)
					}
					acc[j] += av * b.Data[q]
				}
			}
			slices.Sort(cols)
			for _, j := range cols {
				bl.idx = append(bl.idx, j)
				bl.val = append(bl.val, acc[j])
				acc[j] = 0
				touched[j] = false
			}
			bl.cnt[i-lo] = len(cols)
		}
		pool.Put(sc)
		blocks[lo/blockRows] = bl
	})
	if err != nil {
		return nil, err
	}
	out := &CSR{Rows: a.Rows, Cols: b.Cols, Indptr: make([]int, a.Rows+1)}
	total := 0
	for _, bl := range blocks {
		total += len(bl.idx)
	}
	out.Indices = make([]int32, 0, total)
	out.Data = make([]float64, 0, total)
	row := 0
	for _, bl := range blocks {
		out.Indices = append(out.Indices, bl.idx...)
		out.Data = append(out.Data, bl.val...)
		for _, c := range bl.cnt {
			out.Indptr[row+1] = out.Indptr[row] + c
			row++
		}
	}
	return out, nil
}

type mulScratch struct {
	acc     []float64
	touched []bool
}

// MulNNZ returns the number of entries of a·b (the symbolic product) without
// computing values; use it to decide whether a product is affordable.
func MulNNZ(ctx context.Context, a, b *CSR, workers int) (int64, error) {
	if a.Cols != b.Rows {
		return 0, fmt.Errorf("sparse: MulNNZ: shapes %dx%d and %dx%d do not match", a.Rows, a.Cols, b.Rows, b.Cols)
	}
	nb := (a.Rows + blockRows - 1) / blockRows
	counts := make([]int64, nb)
	var pool sync.Pool
	err := parallelRows(ctx, a.Rows, workers, func(lo, hi int) {
		mark, _ := pool.Get().([]int32)
		if mark == nil {
			mark = make([]int32, b.Cols)
			for j := range mark {
				mark[j] = -1
			}
		}
		var c int64
		for i := lo; i < hi; i++ {
			for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
				k := a.Indices[p]
				for q := b.Indptr[k]; q < b.Indptr[k+1]; q++ {
					if j := b.Indices[q]; mark[j] != int32(i) {
						mark[j] = int32(i)
						c++
					}
				}
			}
		}
		counts[lo/blockRows] = c
		pool.Put(mark) //nolint:staticcheck // the slice header is small
	})
	var total int64
	for _, c := range counts {
		total += c
	}
	return total, err
}

// addScaled sets d += alpha·s, each product rounded before it is added (the
// float64 conversion keeps the compiler from fusing them on any CPU, as
// vec.SpMMRow's portable path does).
func addScaled(d []float64, alpha float64, s []float64) {
	s = s[:len(d)]
	for c, x := range s {
		d[c] += float64(alpha * x)
	}
}
