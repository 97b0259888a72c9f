// Package npy is the project's one NumPy codec: it reads .npy arrays and
// .npz archives (including scipy's save_npz sparse matrices) for the
// dataset loaders, and reads and writes the .npy members of the artifact
// bundles (package artifact/bundle) through the same header code and typed
// data paths (ReadHeader, WriteHeader, ReadFloat64s, WriteFloat64s, …).
// It reads defensively: every size is checked against the bytes actually
// present before anything is allocated, and every error names the file,
// the member and the byte position of the problem.
//
// github.com/sbinet/npyio is not used: its reader trusts the header (a
// malformed header makes it panic or allocate what the header claims), and
// the writer here must produce byte-identical files for identical arrays
// (fixed header padding, fixed zip metadata) so that artifact digests are
// deterministic, which npyio's npz writer does not promise; the bundle also
// needs to read and write multi-gigabyte float64 arrays without
// per-element conversion, which the typed paths here do on little-endian
// machines.
package npy

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// MaxBytes bounds the data of a single array (16 GiB).
const MaxBytes = 16 << 30

// Array is a decoded NumPy array in C (row-major) order.
type Array struct {
	Shape []int
	// Kind is the NumPy kind: 'f' float, 'i' signed int, 'u' unsigned int,
	// 'b' bool, 'U' unicode string, 'S' byte string.
	Kind     byte
	ItemSize int
	// Floats holds every numeric element converted to float64 (ints and bools too).
	Floats []float64
	// Ints holds the elements of integer and bool arrays.
	Ints []int64
	// Strings holds the elements of string ('U' and 'S') arrays.
	Strings []string
}

// Len returns the number of elements.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

// Dense returns a 2-D numeric array as a matrix (a 1-D array becomes a column).
func (a *Array) Dense() (*mat.Dense, error) {
	if a.Floats == nil && a.Len() > 0 {
		return nil, fmt.Errorf("npy: array of kind %q is not numeric", a.Kind)
	}
	switch len(a.Shape) {
	case 1:
		if a.Shape[0] == 0 {
			return &mat.Dense{}, nil
		}
		return mat.NewDense(a.Shape[0], 1, a.Floats), nil
	case 2:
		if a.Shape[0] == 0 || a.Shape[1] == 0 {
			return &mat.Dense{}, nil
		}
		return mat.NewDense(a.Shape[0], a.Shape[1], a.Floats), nil
	}
	return nil, fmt.Errorf("npy: array of shape %v is not 1-D or 2-D", a.Shape)
}

// Error is a decoding error at a byte position of a file (and member of an archive).
type Error struct {
	File   string
	Member string // npz member, "" for a plain .npy file
	Offset int64  // byte offset within the file or member
	Msg    string
	Err    error // underlying error, if any
}

func (e *Error) Error() string {
	where := e.File
	if e.Member != "" {
		where += ": member " + e.Member
	}
	s := fmt.Sprintf("%s: byte %d: %s", where, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// ReadFile reads a .npy file.
func ReadFile(path string) (*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return Read(f, st.Size(), path, "")
}

// Read decodes one .npy array of size bytes from r. file and member name the
// source in errors.
func Read(r io.Reader, size int64, file, member string) (*Array, error) {
	h, err := ReadHeader(r, size, file, member)
	if err != nil {
		return nil, err
	}
	off := h.DataOffset
	nbytes := h.DataBytes()
	if nbytes > MaxBytes || nbytes > size-off {
		return nil, &Error{File: file, Member: member, Offset: off,
			Msg: fmt.Sprintf("shape %v of %s needs %d data bytes, %d present", h.Shape, h.Descr, nbytes, size-off)}
	}
	raw := make([]byte, nbytes)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, &Error{File: file, Member: member, Offset: off, Msg: fmt.Sprintf("reading %d data bytes", nbytes), Err: err}
	}
	a := &Array{Shape: h.Shape, Kind: h.Kind, ItemSize: h.ItemSize}
	if err := a.decode(raw, h.Order, int(h.Len())); err != nil {
		return nil, &Error{File: file, Member: member, Offset: off, Msg: "data", Err: err}
	}
	if h.Fortran && len(h.Shape) >= 2 {
		a.toCOrder()
	}
	return a, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// parseDescr parses a dtype string such as "<f8", "|b1", "<U3".
func parseDescr(d string) (binary.ByteOrder, byte, int, error) {
	if len(d) < 2 {
		return nil, 0, 0, fmt.Errorf("dtype %q not understood", d)
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch d[0] {
	case '<', '|', '=':
		d = d[1:]
	case '>':
		order = binary.BigEndian
		d = d[1:]
	}
	if len(d) < 2 {
		return nil, 0, 0, fmt.Errorf("dtype %q not understood", d)
	}
	kind := d[0]
	size, err := strconv.Atoi(d[1:])
	if err != nil || size <= 0 || size > 1<<16 {
		return nil, 0, 0, fmt.Errorf("dtype %q: bad item size", d)
	}
	switch kind {
	case 'f':
		if size != 4 && size != 8 {
			return nil, 0, 0, fmt.Errorf("dtype %q: float of %d bytes not supported", d, size)
		}
	case 'i', 'u':
		if size != 1 && size != 2 && size != 4 && size != 8 {
			return nil, 0, 0, fmt.Errorf("dtype %q: integer of %d bytes not supported", d, size)
		}
	case 'b':
		if size != 1 {
			return nil, 0, 0, fmt.Errorf("dtype %q: bool of %d bytes", d, size)
		}
	case 'U':
		return order, 'U', 4 * size, nil
	case 'S':
		return order, 'S', size, nil
	default:
		return nil, 0, 0, fmt.Errorf("dtype %q: kind %q not supported (object arrays are never read)", d, kind)
	}
	return order, kind, size, nil
}

// DecodeRaw decodes n elements of the given dtype ("<f8", "i4", ...) from raw
// bytes; it is shared with the pickle reader for numpy arrays inside pickles.
func DecodeRaw(raw []byte, dtype string, shape []int) (*Array, error) {
	order, kind, isize, err := parseDescr(dtype)
	if err != nil {
		return nil, err
	}
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > MaxBytes/d) {
			return nil, fmt.Errorf("bad shape %v", shape)
		}
		n *= d
	}
	if n*isize != len(raw) {
		return nil, fmt.Errorf("shape %v of %s needs %d bytes, have %d", shape, dtype, n*isize, len(raw))
	}
	a := &Array{Shape: shape, Kind: kind, ItemSize: isize}
	if err := a.decode(raw, order, n); err != nil {
		return nil, err
	}
	return a, nil
}

// DecodeRawInts decodes the raw buffer of a numeric integer or bool array
// with the given descr and shape into int64 values only (DecodeRaw also
// fills Floats): for index arrays, where the float copy would be waste.
func DecodeRawInts(raw []byte, dtype string, shape []int) ([]int64, error) {
	order, kind, isize, err := parseDescr(dtype)
	if err != nil {
		return nil, err
	}
	if kind != 'i' && kind != 'u' && kind != 'b' {
		return nil, fmt.Errorf("dtype %s is not an integer type", dtype)
	}
	n := 1
	for _, d := range shape {
		if d < 0 || (d > 0 && n > MaxBytes/d) {
			return nil, fmt.Errorf("bad shape %v", shape)
		}
		n *= d
	}
	if n*isize != len(raw) {
		return nil, fmt.Errorf("shape %v of %s needs %d bytes, have %d", shape, dtype, n*isize, len(raw))
	}
	return decodeInts(raw, order, kind, isize, n)
}

// decodeInts decodes n integers (or bools) of s bytes each.
func decodeInts(raw []byte, order binary.ByteOrder, kind byte, s, n int) ([]int64, error) {
	ints := make([]int64, n)
	for i := range ints {
		b := raw[i*s : i*s+s]
		var v int64
		switch s {
		case 1:
			v = int64(b[0])
			if kind == 'i' {
				v = int64(int8(b[0]))
			}
		case 2:
			u := order.Uint16(b)
			v = int64(u)
			if kind == 'i' {
				v = int64(int16(u))
			}
		case 4:
			u := order.Uint32(b)
			v = int64(u)
			if kind == 'i' {
				v = int64(int32(u))
			}
		case 8:
			u := order.Uint64(b)
			if kind == 'u' && u > math.MaxInt64 {
				return nil, fmt.Errorf("element %d: unsigned value %d overflows int64", i, u)
			}
			v = int64(u)
		}
		if kind == 'b' && v > 1 {
			return nil, fmt.Errorf("element %d: bool byte %d", i, v)
		}
		ints[i] = v
	}
	return ints, nil
}

func (a *Array) decode(raw []byte, order binary.ByteOrder, n int) error {
	s := a.ItemSize
	switch a.Kind {
	case 'f':
		a.Floats = make([]float64, n)
		for i := range a.Floats {
			if s == 8 {
				a.Floats[i] = math.Float64frombits(order.Uint64(raw[i*8:]))
			} else {
				a.Floats[i] = float64(math.Float32frombits(order.Uint32(raw[i*4:])))
			}
		}
	case 'i', 'u', 'b':
		ints, err := decodeInts(raw, order, a.Kind, s, n)
		if err != nil {
			return err
		}
		a.Ints = ints
		a.Floats = make([]float64, n)
		for i, v := range ints {
			a.Floats[i] = float64(v)
		}
	case 'U':
		chars := s / 4
		a.Strings = make([]string, n)
		for i := range a.Strings {
			var sb strings.Builder
			for c := 0; c < chars; c++ {
				r := rune(order.Uint32(raw[i*s+4*c:]))
				if r == 0 {
					break
				}
				if !utf8.ValidRune(r) {
					return fmt.Errorf("element %d: invalid code point %d", i, r)
				}
				sb.WriteRune(r)
			}
			a.Strings[i] = sb.String()
		}
	case 'S':
		a.Strings = make([]string, n)
		for i := range a.Strings {
			a.Strings[i] = strings.TrimRight(string(raw[i*s:i*s+s]), "\x00")
		}
	}
	return nil
}

// toCOrder reorders a Fortran-ordered array's elements into C order.
func (a *Array) toCOrder() {
	n := a.Len()
	shape := a.Shape
	// Fortran index of C position: iterate C-order multi-index.
	idx := make([]int, len(shape))
	fstride := make([]int, len(shape))
	st := 1
	for d := range shape {
		fstride[d] = st
		st *= shape[d]
	}
	var cf []float64
	var ci []int64
	var cs []string
	if a.Floats != nil {
		cf = make([]float64, n)
	}
	if a.Ints != nil {
		ci = make([]int64, n)
	}
	if a.Strings != nil {
		cs = make([]string, n)
	}
	for c := 0; c < n; c++ {
		f := 0
		for d := range idx {
			f += idx[d] * fstride[d]
		}
		if cf != nil {
			cf[c] = a.Floats[f]
		}
		if ci != nil {
			ci[c] = a.Ints[f]
		}
		if cs != nil {
			cs[c] = a.Strings[f]
		}
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	a.Floats, a.Ints, a.Strings = cf, ci, cs
}
