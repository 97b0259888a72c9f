package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unsafe"
)

// Typed readers and writers of array data, for callers that know the dtype
// they want (the artifact bundle reads and writes whole float64 matrices
// and index vectors): no intermediate copies, and on little-endian machines
// none of the per-element conversion either.
//
// On little-endian machines the in-memory bytes of []float64, []int (when
// int has 64 bits) and []int32 are exactly their '<f8', '<i8' and '<i4'
// encodings, so those slices are written from and read into their own
// memory; other machines and other widths take the converting path.

// nativeLittle reports whether this machine stores numbers little-endian.
var nativeLittle = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// nativeBytes returns the memory of v as bytes if it is laid out exactly as
// little-endian elements of size bytes each; ok is false otherwise.
func nativeBytes[T float64 | int | int32](v []T, size int) (b []byte, ok bool) {
	var zero T
	if !nativeLittle || int(unsafe.Sizeof(zero)) != size {
		return nil, false
	}
	if len(v) == 0 {
		return nil, true
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*size), true
}

// chunkBytes is the largest conversion buffer of the converting paths.
const chunkBytes = 64 << 10

// WriteFloat64s writes v as '<f8' data.
func WriteFloat64s(w io.Writer, v []float64) error {
	if b, ok := nativeBytes(v, 8); ok {
		_, err := w.Write(b)
		return err
	}
	return writeConverted(w, len(v), 8, func(b []byte, i int) {
		binary.LittleEndian.PutUint64(b, math.Float64bits(v[i]))
	})
}

// WriteInts writes v as '<i8' data.
func WriteInts(w io.Writer, v []int) error {
	if b, ok := nativeBytes(v, 8); ok {
		_, err := w.Write(b)
		return err
	}
	return writeConverted(w, len(v), 8, func(b []byte, i int) { binary.LittleEndian.PutUint64(b, uint64(v[i])) })
}

// WriteInt32s writes v as '<i4' data.
func WriteInt32s(w io.Writer, v []int32) error {
	if b, ok := nativeBytes(v, 4); ok {
		_, err := w.Write(b)
		return err
	}
	return writeConverted(w, len(v), 4, func(b []byte, i int) { binary.LittleEndian.PutUint32(b, uint32(v[i])) })
}

// writeConverted writes n elements of size bytes, put encoding element i
// into b, through a buffer of at most chunkBytes.
func writeConverted(w io.Writer, n, size int, put func(b []byte, i int)) error {
	if n == 0 {
		return nil
	}
	buf := make([]byte, min(n*size, chunkBytes))
	per := len(buf) / size
	for start := 0; start < n; start += per {
		k := min(per, n-start)
		for i := 0; i < k; i++ {
			put(buf[i*size:], start+i)
		}
		if _, err := w.Write(buf[:k*size]); err != nil {
			return err
		}
	}
	return nil
}

// ReadFloat64s reads the data of an 8-byte float array (h.Len() elements)
// from r, positioned at the data.
func ReadFloat64s(r io.Reader, h *Header) ([]float64, error) {
	if h.Kind != 'f' || h.ItemSize != 8 {
		return nil, fmt.Errorf("dtype %q is not an 8-byte float", h.Descr)
	}
	v := make([]float64, h.Len())
	if b, ok := nativeBytes(v, 8); ok && h.Order == binary.LittleEndian {
		_, err := io.ReadFull(r, b)
		return v, err
	}
	err := readConverted(r, len(v), 8, func(b []byte, i int) error {
		v[i] = math.Float64frombits(h.Order.Uint64(b))
		return nil
	})
	return v, err
}

// ReadInts reads the data of a 4- or 8-byte signed integer array as ints;
// a value int cannot hold is an error.
func ReadInts(r io.Reader, h *Header) ([]int, error) { return readIntegers[int](r, h, "int") }

// ReadInt32s reads the data of a 4- or 8-byte signed integer array as
// int32s; a value outside int32's range is an error.
func ReadInt32s(r io.Reader, h *Header) ([]int32, error) { return readIntegers[int32](r, h, "int32") }

// readIntegers reads a 4- or 8-byte signed integer array as T (named
// typeName in errors): little-endian data of T's size is read in place,
// anything else element by element, each checked to fit T.
func readIntegers[T int | int32](r io.Reader, h *Header, typeName string) ([]T, error) {
	get, err := intGetter(h)
	if err != nil {
		return nil, err
	}
	v := make([]T, h.Len())
	if b, ok := nativeBytes(v, h.ItemSize); ok && h.Order == binary.LittleEndian {
		_, err := io.ReadFull(r, b)
		return v, err
	}
	err = readConverted(r, len(v), h.ItemSize, func(b []byte, i int) error {
		x := get(b)
		if int64(T(x)) != x {
			return fmt.Errorf("element %d = %d does not fit %s", i, x, typeName)
		}
		v[i] = T(x)
		return nil
	})
	return v, err
}

// intGetter returns the decoder of one element of a 4- or 8-byte signed
// integer array.
func intGetter(h *Header) (func([]byte) int64, error) {
	if h.Kind != 'i' || (h.ItemSize != 4 && h.ItemSize != 8) {
		return nil, fmt.Errorf("dtype %q is not a 4- or 8-byte signed integer", h.Descr)
	}
	if h.ItemSize == 8 {
		return func(b []byte) int64 { return int64(h.Order.Uint64(b)) }, nil
	}
	return func(b []byte) int64 { return int64(int32(h.Order.Uint32(b))) }, nil
}

// readConverted reads n elements of size bytes, handing each to put,
// through a buffer of at most chunkBytes.
func readConverted(r io.Reader, n, size int, put func(b []byte, i int) error) error {
	if n == 0 {
		return nil
	}
	buf := make([]byte, min(n*size, chunkBytes))
	per := len(buf) / size
	for start := 0; start < n; start += per {
		k := min(per, n-start)
		b := buf[:k*size]
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		for i := 0; i < k; i++ {
			if err := put(b[i*size:], start+i); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadFloat64Rows reads the data of an 8-byte float array of shape
// (rows, cols), C order, one row at a time into a buffer of cols values
// that it reuses, and calls fn with each row's index and values; fn's
// error stops the read and is returned as is. It holds one row, not the
// array, for readers that keep only part of it.
func ReadFloat64Rows(r io.Reader, h *Header, fn func(i int, row []float64) error) error {
	if h.Kind != 'f' || h.ItemSize != 8 {
		return fmt.Errorf("dtype %q is not an 8-byte float", h.Descr)
	}
	if len(h.Shape) != 2 || h.Fortran {
		return fmt.Errorf("shape %v (fortran_order %v), want a 2-D array in C order", h.Shape, h.Fortran)
	}
	rows, cols := h.Shape[0], h.Shape[1]
	row := make([]float64, cols)
	b, native := nativeBytes(row, 8)
	native = native && h.Order == binary.LittleEndian
	if !native {
		b = make([]byte, 8*cols)
	}
	for i := 0; i < rows; i++ {
		if _, err := io.ReadFull(r, b); err != nil {
			return fmt.Errorf("row %d of %d: %w", i, rows, err)
		}
		if !native {
			for j := range row {
				row[j] = math.Float64frombits(h.Order.Uint64(b[8*j:]))
			}
		}
		if err := fn(i, row); err != nil {
			return err
		}
	}
	return nil
}
