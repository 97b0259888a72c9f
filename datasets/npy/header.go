package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Header is the header of a .npy array: its dtype, memory order and shape,
// and where its data starts.
type Header struct {
	// Descr is the dtype as written, e.g. "<f8", "|b1", "<U3".
	Descr string
	// Fortran reports column-major (Fortran) order.
	Fortran bool
	Shape   []int
	// Order is the byte order of the elements.
	Order binary.ByteOrder
	// Kind is the NumPy kind: 'f' float, 'i' signed int, 'u' unsigned int,
	// 'b' bool, 'U' unicode string, 'S' byte string.
	Kind byte
	// ItemSize is the size of one element in bytes.
	ItemSize int
	// HeaderOffset is where the header's dict starts (after the preamble:
	// 10 bytes, 12 for format versions 2 and 3).
	HeaderOffset int64
	// DataOffset is the size of the preamble and header: where the data starts.
	DataOffset int64
}

// Len returns the number of elements (the product of the shape).
func (h *Header) Len() int64 {
	n := int64(1)
	for _, d := range h.Shape {
		n *= int64(d)
	}
	return n
}

// DataBytes returns the size of the data the header announces.
func (h *Header) DataBytes() int64 { return h.Len() * int64(h.ItemSize) }

// maxHeader bounds the header length a reader accepts.
const maxHeader = 1 << 20

// ReadHeader reads the preamble and header of a .npy array of size bytes
// from r, which is left at the start of the data. It checks the header
// against the bytes present: the element count it announces must not
// exceed the size − DataOffset bytes that follow, so DataBytes cannot
// overflow; whether the data fits exactly is the caller's check (compare
// DataBytes with size − DataOffset), and nothing is allocated from the
// header before it.
// file and member name the input in errors, which are *Error values with
// the byte offset of the problem.
func ReadHeader(r io.Reader, size int64, file, member string) (*Header, error) {
	fail := func(off int64, err error, format string, args ...any) error {
		return &Error{File: file, Member: member, Offset: off, Msg: fmt.Sprintf(format, args...), Err: err}
	}
	if size < 10 {
		return nil, fail(0, nil, "%d bytes, too short for a .npy array", size)
	}
	var pre [12]byte
	if _, err := io.ReadFull(r, pre[:10]); err != nil {
		return nil, fail(0, err, "reading the .npy preamble")
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fail(0, nil, "magic %q, want \"\\x93NUMPY\" (a .npy array)", pre[:6])
	}
	var hlen, off int64
	switch pre[6] {
	case 1:
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		if _, err := io.ReadFull(r, pre[10:12]); err != nil {
			return nil, fail(10, err, "reading the header length")
		}
		hlen, off = int64(binary.LittleEndian.Uint32(pre[8:12])), 12
	default:
		return nil, fail(6, nil, ".npy format version %d.%d, want 1.0, 2.0 or 3.0", pre[6], pre[7])
	}
	if hlen > size-off || hlen > maxHeader {
		return nil, fail(off, nil, "header length %d, but %d bytes follow", hlen, size-off)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, fail(off, err, "reading the %d-byte header", hlen)
	}
	descr, fortran, shape, err := parseHeader(string(hdr))
	if err != nil {
		return nil, fail(off, nil, "header %q: %v", truncate(string(hdr), 120), err)
	}
	order, kind, isize, err := parseDescr(descr)
	if err != nil {
		return nil, fail(off, err, "header")
	}
	h := &Header{Descr: descr, Fortran: fortran, Shape: shape, Order: order, Kind: kind, ItemSize: isize,
		HeaderOffset: off, DataOffset: off + hlen}
	// n·d ≤ the bytes present at every step, so Len and DataBytes cannot
	// overflow; whether the data fits is the caller's check.
	avail := size - h.DataOffset
	n := int64(1)
	for _, d := range shape {
		if d == 0 {
			n = 0
		}
	}
	for _, d := range shape {
		if n > 0 && n > avail/int64(d) {
			return nil, fail(h.DataOffset, nil, "shape %v of %s needs more than the %d data bytes present", shape, descr, avail)
		}
		n *= int64(d)
	}
	return h, nil
}

// WriteHeader writes a version 1.0 .npy header for a C-order array of the
// given dtype and shape, padded with spaces and a newline so the data starts
// at a multiple of 64 bytes, as numpy does: the same array always gets the
// same bytes.
func WriteHeader(w io.Writer, descr string, shape []int) error {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = strconv.Itoa(d)
	}
	s := "(" + strings.Join(dims, ", ")
	if len(shape) == 1 {
		s += ","
	}
	s += ")"
	hdr := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + s + ", }"
	total := 10 + len(hdr) + 1
	hdr += strings.Repeat(" ", (64-total%64)%64) + "\n"
	if len(hdr) > 1<<16-1 {
		return fmt.Errorf("npy: header of %d bytes does not fit a version 1.0 file", len(hdr))
	}
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	var l [2]byte
	binary.LittleEndian.PutUint16(l[:], uint16(len(hdr)))
	b.Write(l[:])
	b.WriteString(hdr)
	_, err := w.Write(b.Bytes())
	return err
}

// parseHeader parses the Python dict literal of a .npy header, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }: exactly the
// keys descr, fortran_order and shape, each once, and nothing after the
// closing brace but the padding (spaces, a newline, NULs). Python 2
// headers may write dimensions as 3L.
func parseHeader(h string) (descr string, fortran bool, shape []int, err error) {
	p := &litParser{s: strings.TrimRight(h, " \n\x00")}
	if !p.eat('{') {
		return "", false, nil, errors.New("does not start with '{'")
	}
	seen := map[string]bool{}
	for !p.eat('}') {
		key, err := p.str()
		if err != nil {
			return "", false, nil, err
		}
		if seen[key] {
			return "", false, nil, fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		if !p.eat(':') {
			return "", false, nil, fmt.Errorf("expected ':' after key %q", key)
		}
		switch key {
		case "descr":
			descr, err = p.str()
		case "fortran_order":
			fortran, err = p.boolean()
		case "shape":
			shape, err = p.tuple()
		default:
			err = fmt.Errorf("unexpected key %q", key)
		}
		if err != nil {
			return "", false, nil, err
		}
		if !p.eat(',') {
			if !p.eat('}') {
				return "", false, nil, fmt.Errorf("expected ',' or '}' at header position %d", p.i)
			}
			break
		}
	}
	if p.i != len(p.s) {
		return "", false, nil, fmt.Errorf("trailing characters at header position %d", p.i)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return "", false, nil, fmt.Errorf("no %q key", k)
		}
	}
	return descr, fortran, shape, nil
}

type litParser struct {
	s string
	i int
}

func (p *litParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n') {
		p.i++
	}
}

// eat skips spaces and consumes c if it comes next.
func (p *litParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *litParser) str() (string, error) {
	p.space()
	if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
		return "", fmt.Errorf("expected a string at header position %d", p.i)
	}
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string at header position %d", p.i)
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, nil
}

func (p *litParser) boolean() (bool, error) {
	p.space()
	switch {
	case strings.HasPrefix(p.s[p.i:], "True"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "False"):
		p.i += 5
		return false, nil
	}
	return false, fmt.Errorf("expected True or False at header position %d", p.i)
}

func (p *litParser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, fmt.Errorf("expected '(' at header position %d", p.i)
	}
	shape := []int{}
	for !p.eat(')') {
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		num := p.s[start:p.i]
		if num == "" || len(num) > 15 {
			return nil, fmt.Errorf("bad dimension at header position %d", start)
		}
		if p.i < len(p.s) && p.s[p.i] == 'L' { // Python 2 long
			p.i++
		}
		v, _ := strconv.Atoi(num)
		shape = append(shape, v)
		if len(shape) > 32 {
			return nil, errors.New("more than 32 dimensions")
		}
		if !p.eat(',') {
			if !p.eat(')') {
				return nil, fmt.Errorf("expected ',' or ')' at header position %d", p.i)
			}
			break
		}
	}
	return shape, nil
}
