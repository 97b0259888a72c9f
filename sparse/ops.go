package sparse

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/hylaflow/hylaflow/internal/parallel"
)

// Transpose returns mᵀ in canonical form (rows sorted), in parallel on
// GOMAXPROCS goroutines for large matrices; the result does not depend on
// their number.
func (m *CSR) Transpose() *CSR { return m.transpose(runtime.GOMAXPROCS(0)) }

// transposeMinPart is the number of entries below which Transpose does not
// split the work.
const transposeMinPart = 1 << 16

// transpose computes mᵀ by counting and scattering on up to workers
// goroutines, each over a contiguous range of m's rows: part w's entries of
// column c go after those of parts < w, so every row of mᵀ lists m's rows in
// increasing order, exactly as one sequential pass would.
func (m *CSR) transpose(workers int) *CSR {
	nnz := m.NNZ()
	t := &CSR{Rows: m.Cols, Cols: m.Rows, Indptr: make([]int, m.Cols+1),
		Indices: make([]int32, nnz), Data: make([]float64, nnz)}
	parts := max(1, min(workers, nnz/transposeMinPart, m.Rows))
	// Row ranges with about nnz/parts entries each.
	bounds := make([]int, parts+1)
	for w, i := 1, 0; w < parts; w++ {
		target := nnz * w / parts
		for i < m.Rows && m.Indptr[i] < target {
			i++
		}
		bounds[w] = i
	}
	bounds[parts] = m.Rows
	next := make([][]int, parts)
	// Part w is a block of one on worker w.
	run := func(f func(w int)) {
		parallel.Blocks(context.Background(), parts, 1, parts, func(w, _, _ int) { f(w) })
	}
	run(func(w int) {
		cnt := make([]int, m.Cols)
		for _, c := range m.Indices[m.Indptr[bounds[w]]:m.Indptr[bounds[w+1]]] {
			cnt[c]++
		}
		next[w] = cnt
	})
	// Column c of part w starts after column c of the parts before it.
	pos := 0
	for c := 0; c < m.Cols; c++ {
		t.Indptr[c] = pos
		for w := 0; w < parts; w++ {
			n := next[w][c]
			next[w][c] = pos
			pos += n
		}
	}
	t.Indptr[m.Cols] = pos
	run(func(w int) {
		nx := next[w]
		for i := bounds[w]; i < bounds[w+1]; i++ {
			for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
				c := m.Indices[p]
				q := nx[c]
				nx[c]++
				t.Indices[q] = int32(i)
				t.Data[q] = m.Data[p]
			}
		}
	})
	return t
}

// RowSums returns the sum of each row (in stored order; rows in parallel
// blocks).
func (m *CSR) RowSums() []float64 {
	s := make([]float64, m.Rows)
	_ = parallelRows(context.Background(), m.Rows, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var acc float64
			for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
				acc += m.Data[p]
			}
			s[i] = acc
		}
	})
	return s
}

// AddIdentity returns m + I for a square m (canonical output). Rows are
// processed in parallel blocks (each row's entries do not depend on the
// others, so neither does the result on the number of goroutines).
func (m *CSR) AddIdentity() (*CSR, error) {
	if m.Rows != m.Cols {
		return nil, fmt.Errorf("sparse: AddIdentity of a non-square %dx%d matrix", m.Rows, m.Cols)
	}
	c := m.Canonical()
	n := c.Rows
	out := &CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	hasDiag := func(i int) bool {
		_, found := slices.BinarySearch(c.Indices[c.Indptr[i]:c.Indptr[i+1]], int32(i))
		return found
	}
	ctx := context.Background()
	_ = parallelRows(ctx, n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			k := c.Indptr[i+1] - c.Indptr[i]
			if !hasDiag(i) {
				k++
			}
			out.Indptr[i+1] = k
		}
	})
	for i := 0; i < n; i++ {
		out.Indptr[i+1] += out.Indptr[i]
	}
	out.Indices = MakeInt32s(out.Indptr[n])
	out.Data = MakeFloats(out.Indptr[n])
	_ = parallelRows(ctx, n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w := out.Indptr[i]
			done := false
			for p := c.Indptr[i]; p < c.Indptr[i+1]; p++ {
				j := int(c.Indices[p])
				v := c.Data[p]
				if !done && j >= i {
					if j == i {
						v++
					} else {
						out.Indices[w], out.Data[w] = int32(i), 1
						w++
					}
					done = true
				}
				out.Indices[w], out.Data[w] = int32(j), v
				w++
			}
			if !done {
				out.Indices[w], out.Data[w] = int32(i), 1
			}
		}
	})
	return out, nil
}

// SymNormalize returns S = D^{-1/2} (A+I) D^{-1/2}, where D is the diagonal
// degree matrix of A+I (Kipf & Welling's renormalisation trick). A node whose
// degree in A+I is not positive gets a zero row and column.
func SymNormalize(a *CSR) (*CSR, error) {
	s, err := a.AddIdentity()
	if err != nil {
		return nil, err
	}
	return symScale(s), nil
}

// SymNormalizeNoLoops returns D^{-1/2} A D^{-1/2} with D the degrees of A
// (no self loops added).
func SymNormalizeNoLoops(a *CSR) (*CSR, error) {
	if a.Rows != a.Cols {
		return nil, fmt.Errorf("sparse: SymNormalizeNoLoops of a non-square %dx%d matrix", a.Rows, a.Cols)
	}
	return symScale(a.Canonical().Clone()), nil
}

func symScale(s *CSR) *CSR {
	deg := s.RowSums()
	inv := make([]float64, len(deg))
	for i, d := range deg {
		if d > 0 {
			inv[i] = 1 / math.Sqrt(d)
		}
	}
	_ = parallelRows(context.Background(), s.Rows, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for p := s.Indptr[i]; p < s.Indptr[i+1]; p++ {
				s.Data[p] *= inv[i] * inv[s.Indices[p]]
			}
		}
	})
	return s
}

// RowNormalize returns D^{-1} m with D the row sums: every row with a
// non-zero sum is divided by it; rows summing to zero are kept as they are.
func RowNormalize(m *CSR) *CSR {
	out := m.Clone()
	for i, s := range m.RowSums() {
		if s == 0 {
			continue
		}
		inv := 1 / s
		for p := out.Indptr[i]; p < out.Indptr[i+1]; p++ {
			out.Data[p] *= inv
		}
	}
	return out
}

// Submatrix returns the matrix of the given rows and columns of m, in the
// given orders: out[a][b] = m[rows[a]][cols[b]]. cols must not repeat.
// For the inductive training subgraph use Submatrix(A, train, train).
func (m *CSR) Submatrix(rows, cols []int) (*CSR, error) {
	pos := make(map[int]int32, len(cols))
	dense := len(cols) > m.Cols/8 // a lookup slice is cheaper for large selections
	var lut []int32
	if dense {
		lut = make([]int32, m.Cols)
		for j := range lut {
			lut[j] = -1
		}
	}
	for b, c := range cols {
		if c < 0 || c >= m.Cols {
			return nil, fmt.Errorf("sparse: Submatrix: column %d (position %d) out of range [0,%d)", c, b, m.Cols)
		}
		if dense {
			if lut[c] >= 0 {
				return nil, fmt.Errorf("sparse: Submatrix: column %d repeated at position %d", c, b)
			}
			lut[c] = int32(b)
		} else {
			if _, dup := pos[c]; dup {
				return nil, fmt.Errorf("sparse: Submatrix: column %d repeated at position %d", c, b)
			}
			pos[c] = int32(b)
		}
	}
	for a, r := range rows {
		if r < 0 || r >= m.Rows {
			return nil, fmt.Errorf("sparse: Submatrix: row %d (position %d) out of range [0,%d)", r, a, m.Rows)
		}
	}
	col := func(p int) (int32, bool) {
		if dense {
			b := lut[m.Indices[p]]
			return b, b >= 0
		}
		b, ok := pos[int(m.Indices[p])] // concurrent reads of a map are safe
		return b, ok
	}
	// Count each output row's entries, then fill the rows in parallel
	// blocks (each row is built by one goroutine exactly as in one pass).
	out := &CSR{Rows: len(rows), Cols: len(cols), Indptr: make([]int, len(rows)+1)}
	ctx := context.Background()
	_ = parallelRows(ctx, len(rows), 0, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			k := 0
			for p := m.Indptr[rows[a]]; p < m.Indptr[rows[a]+1]; p++ {
				if _, ok := col(p); ok {
					k++
				}
			}
			out.Indptr[a+1] = k
		}
	})
	for a := range rows {
		out.Indptr[a+1] += out.Indptr[a]
	}
	out.Indices = MakeInt32s(out.Indptr[len(rows)])
	out.Data = MakeFloats(out.Indptr[len(rows)])
	_ = parallelRows(ctx, len(rows), 0, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			w := out.Indptr[a]
			for p := m.Indptr[rows[a]]; p < m.Indptr[rows[a]+1]; p++ {
				if b, ok := col(p); ok {
					out.Indices[w], out.Data[w] = b, m.Data[p]
					w++
				}
			}
			sortRow(out.Indices[out.Indptr[a]:w], out.Data[out.Indptr[a]:w])
		}
	})
	return out, nil
}

// Scale multiplies every entry by f in place and returns m.
func (m *CSR) Scale(f float64) *CSR {
	for k := range m.Data {
		m.Data[k] *= f
	}
	return m
}

// Equal reports whether a and b have the same shape, pattern and values.
func Equal(a, b *CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) &&
		slices.Equal(a.Indices, b.Indices) && slices.Equal(a.Data, b.Data)
}

// IsSymmetric reports whether a square m equals its transpose exactly.
func (m *CSR) IsSymmetric() bool {
	if m.Rows != m.Cols {
		return false
	}
	return Equal(m.Canonical(), m.Canonical().Transpose())
}
