package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

// typedArrays are the arrays the typed readers and writers handle, large
// enough to take several conversion chunks.
func typedArrays() (f []float64, ints []int, i32 []int32) {
	const n = 3 * chunkBytes / 8
	f = make([]float64, n)
	ints = make([]int, n)
	i32 = make([]int32, n)
	for i := range f {
		f[i] = float64(i)*0.5 - 7
		ints[i] = (i - n/2) << 20
		i32[i] = int32(i*7919) - math.MaxInt32/2
	}
	f[1], f[2] = math.Inf(-1), math.Copysign(0, -1)
	return f, ints, i32
}

// encodeTyped writes the three arrays as .npy files with the typed writers.
func encodeTyped(t *testing.T, f []float64, ints []int, i32 []int32) [3][]byte {
	t.Helper()
	var out [3][]byte
	for k, write := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return WriteFloat64s(b, f) },
		func(b *bytes.Buffer) error { return WriteInts(b, ints) },
		func(b *bytes.Buffer) error { return WriteInt32s(b, i32) },
	} {
		var b bytes.Buffer
		descr := []string{"<f8", "<i8", "<i4"}[k]
		if err := WriteHeader(&b, descr, []int{len(f)}); err != nil {
			t.Fatal(err)
		}
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		out[k] = b.Bytes()
	}
	return out
}

// decodeTyped reads the three files back with the typed readers.
func decodeTyped(t *testing.T, files [3][]byte) ([]float64, []int, []int32) {
	t.Helper()
	hdr := func(b []byte) (*bytes.Reader, *Header) {
		r := bytes.NewReader(b)
		h, err := ReadHeader(r, int64(len(b)), "x.npy", "")
		if err != nil {
			t.Fatal(err)
		}
		if h.DataBytes() != int64(len(b))-h.DataOffset || h.DataOffset%64 != 0 {
			t.Fatalf("header %+v of a %d-byte file", h, len(b))
		}
		return r, h
	}
	r, h := hdr(files[0])
	f, err := ReadFloat64s(r, h)
	if err != nil {
		t.Fatal(err)
	}
	r, h = hdr(files[1])
	ints, err := ReadInts(r, h)
	if err != nil {
		t.Fatal(err)
	}
	r, h = hdr(files[2])
	i32, err := ReadInt32s(r, h)
	if err != nil {
		t.Fatal(err)
	}
	return f, ints, i32
}

// TestPortablePath runs the element-by-element conversions that
// big-endian machines use and checks that they give the bytes and values
// of the native little-endian path, and that both agree with Read.
func TestPortablePath(t *testing.T) {
	if !nativeLittle {
		t.Skip("this machine always takes the portable path")
	}
	f, ints, i32 := typedArrays()
	native := encodeTyped(t, f, ints, i32)
	nativeLittle = false
	portable := encodeTyped(t, f, ints, i32)
	pf, pi, p32 := decodeTyped(t, native)
	nativeLittle = true
	for k := range native {
		if !bytes.Equal(native[k], portable[k]) {
			t.Errorf("file %d: portable encoding differs from the native one", k)
		}
	}
	nf, ni, n32 := decodeTyped(t, native)
	for _, got := range [][]float64{pf, nf} {
		if !slices.EqualFunc(got, f, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Error("float64 values differ after a round trip")
		}
	}
	if !slices.Equal(pi, ints) || !slices.Equal(ni, ints) || !slices.Equal(p32, i32) || !slices.Equal(n32, i32) {
		t.Error("integer values differ after a round trip")
	}
	// The general reader agrees.
	a, err := Read(bytes.NewReader(native[2]), int64(len(native[2])), "x.npy", "")
	if err != nil || a.Kind != 'i' || a.ItemSize != 4 || a.Ints[5] != int64(i32[5]) {
		t.Fatalf("Read of the int32 file: %v", err)
	}
}

// The typed readers convert other widths and byte orders, and refuse
// values the target type cannot hold and dtypes they do not read.
func TestTypedReaders(t *testing.T) {
	be := func(descr string, v any) []byte {
		var b bytes.Buffer
		h := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (2,), }"
		b.WriteString("\x93NUMPY\x01\x00")
		binary.Write(&b, binary.LittleEndian, uint16(len(h)))
		b.WriteString(h)
		binary.Write(&b, binary.BigEndian, v)
		return b.Bytes()
	}
	read := func(file []byte, fn func(*bytes.Reader, *Header) (any, error)) (any, error) {
		r := bytes.NewReader(file)
		h, err := ReadHeader(r, int64(len(file)), "x.npy", "")
		if err != nil {
			t.Fatal(err)
		}
		return fn(r, h)
	}
	floats := func(r *bytes.Reader, h *Header) (any, error) { return ReadFloat64s(r, h) }
	intsFn := func(r *bytes.Reader, h *Header) (any, error) { return ReadInts(r, h) }
	i32Fn := func(r *bytes.Reader, h *Header) (any, error) { return ReadInt32s(r, h) }
	tests := []struct {
		name string
		file []byte
		fn   func(*bytes.Reader, *Header) (any, error)
		want any
		err  string
	}{
		{"big-endian f8", be(">f8", []float64{1.5, -2}), floats, []float64{1.5, -2}, ""},
		{"big-endian i4 as ints", be(">i4", []int32{-3, 4}), intsFn, []int{-3, 4}, ""},
		{"big-endian i8 as int32s", be(">i8", []int64{-3, 1 << 31}), i32Fn, nil, "element 1 = 2147483648 does not fit int32"},
		{"f4 is not read as float64", be(">f4", []float32{1, 2}), floats, nil, `dtype ">f4" is not an 8-byte float`},
		{"u8 is not a signed integer", be(">u8", []uint64{1, 2}), intsFn, nil, `dtype ">u8" is not a 4- or 8-byte signed integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(tt.file, tt.fn)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			switch w := tt.want.(type) {
			case []float64:
				if !slices.Equal(got.([]float64), w) {
					t.Errorf("got %v, want %v", got, w)
				}
			case []int:
				if !slices.Equal(got.([]int), w) {
					t.Errorf("got %v, want %v", got, w)
				}
			}
		})
	}
}

// WriteHeader writes numpy's own layout: the same dict, padded so the
// data starts at a multiple of 64 bytes, byte for byte what numpy.save
// writes for these arrays.
func TestWriteHeader(t *testing.T) {
	tests := []struct {
		descr string
		shape []int
		want  string
	}{
		{"<f8", []int{2, 3}, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"},
		{"<f8", []int{100000, 1433}, "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 1433), }"},
		{"<i8", []int{5}, "{'descr': '<i8', 'fortran_order': False, 'shape': (5,), }"},
		{"<U3", []int{}, "{'descr': '<U3', 'fortran_order': False, 'shape': (), }"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := WriteHeader(&b, tt.descr, tt.shape); err != nil {
			t.Fatal(err)
		}
		got := b.Bytes()
		hlen := int(binary.LittleEndian.Uint16(got[8:10]))
		if len(got)%64 != 0 || string(got[:8]) != "\x93NUMPY\x01\x00" || hlen != len(got)-10 {
			t.Fatalf("%s %v: preamble %q, length %d", tt.descr, tt.shape, got[:10], len(got))
		}
		want := tt.want + strings.Repeat(" ", hlen-len(tt.want)-1) + "\n"
		if string(got[10:]) != want {
			t.Errorf("%s %v: header %q, want %q", tt.descr, tt.shape, got[10:], want)
		}
		h, err := ReadHeader(bytes.NewReader(got), int64(len(got))+1<<40, "x.npy", "")
		if err != nil || h.Descr != tt.descr || !slices.Equal(h.Shape, tt.shape) || h.DataOffset != int64(len(got)) || h.HeaderOffset != 10 {
			t.Errorf("read back %+v, %v", h, err)
		}
	}
}

// Header dialects: Python 2's 3L dimensions and NUL padding are read;
// anything after the closing brace and repeated keys are not.
func TestParseHeader(t *testing.T) {
	tests := []struct {
		hdr   string
		shape []int
		err   string
	}{
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 4L), }\x00\x00\n", []int{3, 4}, ""},
		{"{\"descr\": \"<f8\", \"fortran_order\": False, \"shape\": (7,)}   \n", []int{7}, ""},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (1,), } x\n", nil, "trailing characters at header position 57"},
		{"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", nil, `key "descr" twice`},
		{"{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1,), }", nil, "expected True or False"},
		{"{'descr': '<f8', 'fortran_order': False, 'shape': (1, -2), }", nil, "bad dimension"},
	}
	for _, tt := range tests {
		_, _, shape, err := parseHeader(tt.hdr)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.hdr, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(shape, tt.shape) {
			t.Errorf("%q: shape %v, %v; want %v", tt.hdr, shape, err, tt.shape)
		}
	}
}
