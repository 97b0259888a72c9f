package npy

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"github.com/hylaflow/hylaflow/sparse"
)

// Floats64 returns a float64 ('<f8') array of the given shape.
func Floats64(shape []int, v []float64) *Array {
	return &Array{Shape: shape, Kind: 'f', ItemSize: 8, Floats: v}
}

// Ints64 returns an int64 ('<i8') array of the given shape.
func Ints64(shape []int, v []int64) *Array {
	return &Array{Shape: shape, Kind: 'i', ItemSize: 8, Ints: v}
}

// Int32s returns an int32 ('<i4') array of the given shape.
func Int32s(shape []int, v []int64) *Array {
	return &Array{Shape: shape, Kind: 'i', ItemSize: 4, Ints: v}
}

// Unicode returns a 0-d unicode array holding s (as numpy.array("csr")).
func Unicode(s string) *Array {
	return &Array{Shape: []int{}, Kind: 'U', ItemSize: 4 * max(len([]rune(s)), 1), Strings: []string{s}}
}

// Write encodes a as a version 1.0 .npy file (little endian, C order).
func Write(w io.Writer, a *Array) error {
	var descr string
	switch a.Kind {
	case 'f':
		descr = fmt.Sprintf("<f%d", a.ItemSize)
	case 'i', 'u':
		descr = fmt.Sprintf("<%c%d", a.Kind, a.ItemSize)
	case 'b':
		descr = "|b1"
	case 'U':
		descr = fmt.Sprintf("<U%d", a.ItemSize/4)
	default:
		return fmt.Errorf("npy: cannot write kind %q", a.Kind)
	}
	var buf bytes.Buffer
	if err := WriteHeader(&buf, descr, a.Shape); err != nil {
		return err
	}
	n := a.Len()
	b := make([]byte, a.ItemSize)
	for i := 0; i < n; i++ {
		switch a.Kind {
		case 'f':
			if a.ItemSize == 8 {
				binary.LittleEndian.PutUint64(b, math.Float64bits(a.Floats[i]))
			} else {
				binary.LittleEndian.PutUint32(b, math.Float32bits(float32(a.Floats[i])))
			}
		case 'i', 'u', 'b':
			v := uint64(a.Ints[i])
			for k := 0; k < a.ItemSize; k++ {
				b[k] = byte(v >> (8 * k))
			}
		case 'U':
			clear(b)
			for k, r := range []rune(a.Strings[i]) {
				binary.LittleEndian.PutUint32(b[4*k:], uint32(r))
			}
		}
		buf.Write(b)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteArchive writes the arrays as an uncompressed .npz file, members in sorted order.
func WriteArchive(path string, arrays map[string]*Array) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	names := make([]string, 0, len(arrays))
	for n := range arrays {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: n + ".npy", Method: zip.Store})
		if err != nil {
			f.Close()
			return err
		}
		if err := Write(w, arrays[n]); err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SparseArrays returns the members scipy.sparse.save_npz writes for a CSR matrix.
func SparseArrays(m *sparse.CSR) map[string]*Array {
	indptr := make([]int64, len(m.Indptr))
	for i, v := range m.Indptr {
		indptr[i] = int64(v)
	}
	indices := make([]int64, len(m.Indices))
	for i, v := range m.Indices {
		indices[i] = int64(v)
	}
	return map[string]*Array{
		"format":  Unicode("csr"),
		"shape":   Ints64([]int{2}, []int64{int64(m.Rows), int64(m.Cols)}),
		"data":    Floats64([]int{len(m.Data)}, m.Data),
		"indices": Int32s([]int{len(indices)}, indices),
		"indptr":  Int32s([]int{len(indptr)}, indptr),
	}
}
