package bundle

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Dense members held compressed.
//
// A large dense matrix member that is mostly zeros is decoded into its
// rows' non-zero entries instead of a dense array: Table 2's inductive
// text features are the documents' TF-IDF rows, stored dense by precompute
// (MR: 10,662 × 18,764, 1.6 GB, 0.1 % non-zero), and the trainer only
// multiplies through their non-zeros, so decoding them dense made every
// training stage on MR hold 1.6 GB it never read. Nothing about the
// artifact changes: Encode writes the member back as the same dense .npy
// bytes (same digest, same cache keys), Dense and Member expand it (once,
// on first use), and DenseRows hands the compressed rows to the callers
// that can use them.

// compressMinBytes: dense members with fewer data bytes are decoded dense
// (a variable so tests can use small matrices).
var compressMinBytes int64 = 16 << 20

// compressRatio: a member is held compressed when at most 1/compressRatio
// of its entries are non-zero, where the compressed rows (12 bytes an
// entry) are under a tenth of the dense array.
const compressRatio = 16

// compressedDense is a dense matrix member held as its non-zero entries.
// rows keeps every entry whose bits are not those of +0 (so −0 and NaN
// are kept and the expansion is bit for bit the stored matrix), columns
// strictly increasing in each row.
type compressedDense struct {
	rows  *sparse.CSR
	once  sync.Once
	dense *mat.Dense
}

// Dense returns the member expanded, expanding it on the first call (safe
// for concurrent use: stages that share an input bundle may call it
// together).
func (c *compressedDense) Dense() *mat.Dense {
	c.once.Do(func() { c.dense = c.rows.DenseBits() })
	return c.dense
}

// check reports a structure Encode cannot write as a dense .npy: an
// invalid CSR, unsorted or repeated columns, or an entry +0.
func (c *compressedDense) check() error {
	if c.rows == nil {
		return errors.New("nil matrix")
	}
	if err := c.rows.Validate(); err != nil {
		return err
	}
	if err := c.rows.CheckSorted(); err != nil {
		return err
	}
	for p, v := range c.rows.Data {
		if math.Float64bits(v) == 0 {
			return fmt.Errorf("entry %d is +0 (leave zeros out)", p)
		}
	}
	return nil
}

// writeRows writes the member's .npy data, row by row, as the dense
// matrix would write it.
func (c *compressedDense) writeRows(w io.Writer) error {
	m := c.rows
	if err := npy.WriteHeader(w, "<f8", []int{m.Rows, m.Cols}); err != nil {
		return err
	}
	row := make([]float64, m.Cols)
	for i := 0; i < m.Rows; i++ {
		clear(row)
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			row[m.Indices[p]] = m.Data[p]
		}
		if err := npy.WriteFloat64s(w, row); err != nil {
			return err
		}
	}
	return nil
}

// errNotSparse stops a compressed read that found too many non-zeros.
var errNotSparse = errors.New("not sparse enough")

// readDenseCompressed decodes the dense member stored as the .npy zip
// member f into its non-zero entries. ok is false, with no error, when
// more than 1/compressRatio of its entries are non-zero: the caller then
// decodes it dense (as it does for a shape that is not 2-D, or empty).
// Errors are those of readNpy, at the same places.
func (d *decoder) readDenseCompressed(f *zip.File) (m *sparse.CSR, ok bool, err error) {
	rc, h, fail, err := d.openNpy(f, "<f8")
	if err != nil {
		return nil, false, err
	}
	defer rc.Close()
	if len(h.Shape) != 2 || h.Shape[0] == 0 || h.Shape[1] == 0 {
		return nil, false, nil // decoded dense: an empty matrix, or the dense path's shape error
	}
	rows, cols := h.Shape[0], h.Shape[1]
	limit := int(h.Len() / compressRatio)
	m = &sparse.CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
	err = npy.ReadFloat64Rows(bufio.NewReaderSize(rc, 1<<20), h, func(i int, row []float64) error {
		for j, v := range row {
			if math.Float64bits(v) != 0 {
				m.Indices = append(m.Indices, int32(j))
				m.Data = append(m.Data, v)
			}
		}
		if len(m.Data) > limit {
			return errNotSparse
		}
		m.Indptr[i+1] = len(m.Data)
		return nil
	})
	if errors.Is(err, errNotSparse) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fail(h.DataOffset, "reading %d data bytes: %w", h.DataBytes(), err)
	}
	if err := d.atEOF(rc, f.Name); err != nil {
		return nil, false, err
	}
	m.Indices, m.Data = slices.Clip(m.Indices), slices.Clip(m.Data)
	return m, true, nil
}
