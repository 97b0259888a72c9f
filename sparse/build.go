package sparse

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// maxIndex is the largest row or column count a CSR can address (int32 column indices).
const maxIndex = math.MaxInt32

// FromCOO builds a rows×cols CSR matrix from coordinate triplets (ri[k], ci[k], v[k]).
// Duplicate coordinates are summed; column indices come out sorted within
// each row. Entries whose sum is exactly zero are kept (as scipy does), so the
// pattern does not depend on the values. An out-of-range index is an error
// naming its position.
func FromCOO(rows, cols int, ri, ci []int, v []float64) (*CSR, error) {
	if rows < 0 || cols < 0 || rows > maxIndex || cols > maxIndex {
		return nil, fmt.Errorf("sparse: FromCOO: invalid shape %dx%d", rows, cols)
	}
	if len(ri) != len(ci) || (v != nil && len(v) != len(ri)) {
		return nil, fmt.Errorf("sparse: FromCOO: %d row indices, %d column indices, %d values", len(ri), len(ci), len(v))
	}
	counts := make([]int, rows+1)
	for k := range ri {
		r, c := ri[k], ci[k]
		if r < 0 || r >= rows {
			return nil, fmt.Errorf("sparse: FromCOO: entry %d: row %d out of range [0,%d)", k, r, rows)
		}
		if c < 0 || c >= cols {
			return nil, fmt.Errorf("sparse: FromCOO: entry %d: column %d out of range [0,%d)", k, c, cols)
		}
		counts[r+1]++
	}
	for i := 0; i < rows; i++ {
		counts[i+1] += counts[i]
	}
	// Bucket by row (stable in input order), then sort and merge each row.
	idx := make([]int32, len(ri))
	val := make([]float64, len(ri))
	next := slices.Clone(counts[:rows])
	for k := range ri {
		p := next[ri[k]]
		next[ri[k]]++
		idx[p] = int32(ci[k])
		if v == nil {
			val[p] = 1
		} else {
			val[p] = v[k]
		}
	}
	out := &CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
	out.Indices = idx[:0]
	out.Data = val[:0]
	w := 0
	for i := 0; i < rows; i++ {
		lo, hi := counts[i], counts[i+1]
		sortRow(idx[lo:hi], val[lo:hi])
		for p := lo; p < hi; p++ {
			if p > lo && idx[p] == idx[w-1] && w > out.Indptr[i] {
				val[w-1] += val[p]
				continue
			}
			idx[w], val[w] = idx[p], val[p]
			w++
		}
		out.Indptr[i+1] = w
	}
	out.Indices = idx[:w:w]
	out.Data = val[:w:w]
	return out, nil
}

// sortRow sorts a row's column indices, carrying the values along. The sort is
// stable so that duplicates are summed in input order (deterministic sums).
func sortRow(idx []int32, val []float64) {
	sorted := true
	for k := 1; k < len(idx); k++ {
		if idx[k] < idx[k-1] {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	perm := make([]int, len(idx))
	for k := range perm {
		perm[k] = k
	}
	slices.SortStableFunc(perm, func(a, b int) int { return int(idx[a]) - int(idx[b]) })
	ci := slices.Clone(idx)
	cv := slices.Clone(val)
	for k, p := range perm {
		idx[k], val[k] = ci[p], cv[p]
	}
}

// Identity returns the n×n identity matrix.
func Identity(n int) *CSR {
	m := &CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, n), Data: make([]float64, n)}
	for i := 0; i < n; i++ {
		m.Indptr[i+1] = i + 1
		m.Indices[i] = int32(i)
		m.Data[i] = 1
	}
	return m
}

// FromDense returns the CSR form of a dense matrix, keeping its non-zero entries.
func FromDense(d mat.Matrix) *CSR {
	r, c := d.Dims()
	m := &CSR{Rows: r, Cols: c, Indptr: make([]int, r+1)}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if x := d.At(i, j); x != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, x)
			}
		}
		m.Indptr[i+1] = len(m.Data)
	}
	return m
}

// FromDenseBits returns the CSR form of d keeping every entry whose bits
// are not those of +0 (so −0 and NaN are entries): DenseBits gives d back
// bit for bit.
func FromDenseBits(d *mat.Dense) *CSR {
	r, c := d.Dims()
	if d.IsEmpty() {
		r, c = 0, 0
	}
	m := &CSR{Rows: r, Cols: c, Indptr: make([]int, r+1)}
	for i := 0; i < r; i++ {
		for j, x := range d.RawRowView(i) {
			if math.Float64bits(x) != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, x)
			}
		}
		m.Indptr[i+1] = len(m.Data)
	}
	return m
}

// DenseBits returns m as a dense matrix whose entries are m's stored
// values as they are (set, not added to a +0: a stored −0 stays −0), for
// canonical m (CheckSorted); an empty matrix for a zero dimension.
func (m *CSR) DenseBits() *mat.Dense {
	if m.Rows == 0 || m.Cols == 0 {
		return &mat.Dense{}
	}
	d := mat.NewDense(m.Rows, m.Cols, nil)
	raw := d.RawMatrix()
	for i := 0; i < m.Rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+m.Cols]
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			row[m.Indices[p]] = m.Data[p]
		}
	}
	return d
}

// ToDense returns m as a dense matrix. Meant for small matrices and tests.
func (m *CSR) ToDense() *mat.Dense {
	if m.Rows == 0 || m.Cols == 0 {
		return &mat.Dense{}
	}
	d := mat.NewDense(m.Rows, m.Cols, nil)
	for i := 0; i < m.Rows; i++ {
		row := d.RawRowView(i)
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			row[m.Indices[p]] += m.Data[p]
		}
	}
	return d
}

// At returns the entry (i, j) by binary search in row i.
func (m *CSR) At(i, j int) float64 {
	if i < 0 || i >= m.Rows || j < 0 || j >= m.Cols {
		panic(fmt.Sprintf("sparse: At(%d,%d) outside %dx%d", i, j, m.Rows, m.Cols))
	}
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	k, ok := slices.BinarySearch(m.Indices[lo:hi], int32(j))
	if !ok {
		return 0
	}
	return m.Data[lo+k]
}

// Clone returns a deep copy of m.
func (m *CSR) Clone() *CSR {
	return &CSR{Rows: m.Rows, Cols: m.Cols, Indptr: slices.Clone(m.Indptr),
		Indices: slices.Clone(m.Indices), Data: slices.Clone(m.Data)}
}

// CheckSorted reports an error unless the column indices of every row are
// strictly increasing (sorted, no duplicates), the canonical form.
func (m *CSR) CheckSorted() error {
	for i := 0; i < m.Rows; i++ {
		for p := m.Indptr[i] + 1; p < m.Indptr[i+1]; p++ {
			if m.Indices[p] <= m.Indices[p-1] {
				return fmt.Errorf("sparse: row %d: column indices not strictly increasing at position %d", i, p)
			}
		}
	}
	return nil
}

// Canonical returns m with sorted, duplicate-free rows (duplicates summed
// in stored order, as FromCOO does); m itself if it already is canonical.
// Only the rows that need it are sorted.
func (m *CSR) Canonical() *CSR {
	if m.CheckSorted() == nil {
		return m
	}
	out := m.Clone()
	w := 0
	for i := 0; i < m.Rows; i++ {
		lo, hi := m.Indptr[i], m.Indptr[i+1]
		idx, val := out.Indices[lo:hi], out.Data[lo:hi]
		sortRow(idx, val)
		start := w
		for p := range idx {
			if w > start && idx[p] == out.Indices[w-1] {
				out.Data[w-1] += val[p]
				continue
			}
			out.Indices[w], out.Data[w] = idx[p], val[p]
			w++
		}
		out.Indptr[i+1] = w
	}
	out.Indices = out.Indices[:w:w]
	out.Data = out.Data[:w:w]
	return out
}
