// Package sparse provides a compressed-sparse-row matrix and the parallel,
// deterministic products the HyLa pipeline needs (gonum has no sparse type).
package sparse

import "fmt"

// CSR is a compressed sparse row matrix of float64 values.
//
// Row i holds the entries Data[Indptr[i]:Indptr[i+1]] in the columns
// Indices[Indptr[i]:Indptr[i+1]]. Column indices within a row are sorted and
// unique in every matrix this package builds.
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Indices    []int32
	Data       []float64
}

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Data) }

// Validate checks the structural invariants of m (lengths, monotone indptr,
// column indices in range) and returns a descriptive error if one fails.
func (m *CSR) Validate() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("sparse: negative shape %dx%d", m.Rows, m.Cols)
	}
	if len(m.Indptr) != m.Rows+1 {
		return fmt.Errorf("sparse: indptr has length %d, want rows+1 = %d", len(m.Indptr), m.Rows+1)
	}
	if m.Indptr[0] != 0 {
		return fmt.Errorf("sparse: indptr[0] = %d, want 0", m.Indptr[0])
	}
	if len(m.Indices) != len(m.Data) {
		return fmt.Errorf("sparse: %d indices but %d values", len(m.Indices), len(m.Data))
	}
	for i := 0; i < m.Rows; i++ {
		if m.Indptr[i+1] < m.Indptr[i] {
			return fmt.Errorf("sparse: indptr decreases at row %d", i)
		}
	}
	if m.Indptr[m.Rows] != len(m.Data) {
		return fmt.Errorf("sparse: indptr[rows] = %d, want nnz = %d", m.Indptr[m.Rows], len(m.Data))
	}
	for k, c := range m.Indices {
		if c < 0 || int(c) >= m.Cols {
			return fmt.Errorf("sparse: column index %d at position %d out of range [0,%d)", c, k, m.Cols)
		}
	}
	return nil
}
