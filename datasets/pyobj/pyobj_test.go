package pyobj

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nlpodyssey/gopickle/types"

	"github.com/hylaflow/hylaflow/internal/testenv"
)

// pk builds protocol-2 pickles opcode by opcode, the way Python 2's cPickle
// writes the Planetoid files.
type pk struct{ bytes.Buffer }

func (p *pk) op(b ...byte) *pk { p.Write(b); return p }
func (p *pk) global(mod, name string) *pk {
	p.WriteByte('c')
	p.WriteString(mod + "\n" + name + "\n")
	return p
}
func (p *pk) int1(v byte) *pk { return p.op('K', v) }
func (p *pk) str(s string) *pk { // SHORT_BINSTRING
	p.op('U', byte(len(s)))
	p.WriteString(s)
	return p
}
func (p *pk) binstr(b []byte) *pk { // BINSTRING
	p.WriteByte('T')
	binary.Write(&p.Buffer, binary.LittleEndian, int32(len(b)))
	p.Write(b)
	return p
}

// ndarray emits numpy's reduce + BUILD for a 1-D or 2-D array.
func (p *pk) ndarray(dtype string, shape []byte, fortran bool, raw []byte) *pk {
	p.global("numpy.core.multiarray", "_reconstruct")
	p.global("numpy", "ndarray")
	p.int1(0).op(0x85).str("b").op(0x87, 'R') // (0,), 'b' → TUPLE3, REDUCE
	p.op('(').int1(1)
	p.op('(')
	for _, d := range shape {
		p.int1(d)
	}
	p.op('t')
	p.global("numpy", "dtype").str(dtype).int1(0).int1(1).op(0x87, 'R')
	p.op('(').int1(3).str("<").op('N', 'N', 'N').op('J', 0xff, 0xff, 0xff, 0xff).op('J', 0xff, 0xff, 0xff, 0xff).int1(0).op('t', 'b')
	if fortran {
		p.op(0x88)
	} else {
		p.op(0x89)
	}
	p.binstr(raw).op('t', 'b')
	return p
}

func le32(vals ...int32) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, vals)
	return b.Bytes()
}

func lef32(vals ...float32) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, vals)
	return b.Bytes()
}

// csrPickle is a 2×3 float32 csr_matrix [[0,1.5,0],[2,0,-3]] as Planetoid stores it.
func csrPickle() []byte {
	return csrPickleOf(le32(0, 1, 3), le32(1, 0, 2), lef32(1.5, 2, -3))
}

// csrPickleOf is a 2×3 float32 csr_matrix with the given raw arrays.
func csrPickleOf(indptr, indices, data []byte) []byte {
	p := &pk{}
	p.op(0x80, 2)
	p.global("scipy.sparse.csr", "csr_matrix").op(')', 0x81)
	p.op('}', '(')
	p.str("format").str("csr")
	p.str("_shape").int1(2).int1(3).op(0x86)
	p.str("indptr").ndarray("i4", []byte{byte(len(indptr) / 4)}, false, indptr)
	p.str("indices").ndarray("i4", []byte{byte(len(indices) / 4)}, false, indices)
	p.str("data").ndarray("f4", []byte{byte(len(data) / 4)}, false, data)
	p.str("maxprint").int1(50)
	p.op('u', 'b', '.')
	return p.Bytes()
}

// TestCSRUnsortedAndDuplicates: scipy allows unsorted and repeated column
// indices within a row; CSR sorts them and sums the repeats, and rejects
// inconsistent arrays with a message naming the problem.
func TestCSRUnsortedAndDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		indptr, indices, data []byte
		want                  [][]float64
		nnz                   int
		err                   string
	}{
		{"sorted", le32(0, 1, 3), le32(1, 0, 2), lef32(1.5, 2, -3), [][]float64{{0, 1.5, 0}, {2, 0, -3}}, 3, ""},
		{"unsorted with a repeat", le32(0, 1, 4), le32(1, 2, 0, 2), lef32(1.5, -3, 2, 1), [][]float64{{0, 1.5, 0}, {2, 0, -2}}, 3, ""},
		{"column out of range", le32(0, 1, 3), le32(1, 0, 3), lef32(1.5, 2, -3), nil, 0, "column index 3 at position 2 out of range [0,3)"},
		{"indptr decreasing", le32(0, 2, 1), le32(1, 0), lef32(1.5, 2), nil, 0, "indptr runs from 0 to 1, want 0 to 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Load(csrPickleOf(tc.indptr, tc.indices, tc.data), "fixture")
			if err != nil {
				t.Fatal(err)
			}
			c, err := v.(*CSRMatrix).CSR()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := c.CheckSorted(); err != nil {
				t.Fatal(err)
			}
			if c.NNZ() != tc.nnz {
				t.Errorf("%d entries, want %d", c.NNZ(), tc.nnz)
			}
			for i := range tc.want {
				for j := range tc.want[i] {
					if c.At(i, j) != tc.want[i][j] {
						t.Fatalf("(%d,%d) = %v, want %v", i, j, c.At(i, j), tc.want[i][j])
					}
				}
			}
		})
	}
}

func TestCSRFixture(t *testing.T) {
	v, err := Load(csrPickle(), "fixture")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := v.(*CSRMatrix)
	if !ok {
		t.Fatalf("got %T", v)
	}
	c, err := m.CSR()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0, 1.5, 0}, {2, 0, -3}}
	for i := range want {
		for j := range want[i] {
			if c.At(i, j) != want[i][j] {
				t.Fatalf("(%d,%d) = %v, want %v", i, j, c.At(i, j), want[i][j])
			}
		}
	}
}

func TestNDArrayFortranAndDefaultDict(t *testing.T) {
	// 2×3 int32 array stored in Fortran order: columns (1,4), (2,5), (3,6).
	p := &pk{}
	p.op(0x80, 2).ndarray("i4", []byte{2, 3}, true, le32(1, 4, 2, 5, 3, 6)).op('.')
	v, err := Load(p.Bytes(), "fortran")
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.(*NDArray).Dense()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 2, 3, 4, 5, 6} {
		if got := d.At(i/3, i%3); got != want {
			t.Fatalf("element %d = %v, want %v", i, got, want)
		}
	}
	// A Fortran-ordered 2×2 byte-string array (columns "ab","cd" and
	// "ef","gh") is reordered too; the fuzzer once found it panicking.
	p = &pk{}
	p.op(0x80, 2).ndarray("S2", []byte{2, 2}, true, []byte("abcdefgh")).op('.')
	if v, err = Load(p.Bytes(), "fortran strings"); err != nil {
		t.Fatal(err)
	}
	arr, err := v.(*NDArray).Array()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(arr.Strings, ","); got != "ab,ef,cd,gh" {
		t.Fatalf("Fortran string array reads %q, want ab,ef,cd,gh", got)
	}
	// defaultdict(list, {0: [1, 2], 1: [0]})
	q := &pk{}
	q.op(0x80, 2).global("collections", "defaultdict").global("__builtin__", "list").op(0x85, 'R')
	q.op('(').int1(0).op(']', '(').int1(1).int1(2).op('e').int1(1).op(']').int1(0).op('a', 'u', '.')
	v, err = Load(q.Bytes(), "graph")
	if err != nil {
		t.Fatal(err)
	}
	dict := v.(*types.Dict)
	if dict.Len() != 2 {
		t.Fatalf("dict has %d entries", dict.Len())
	}
	l0 := (*dict)[0].Value.(*types.List)
	if l0.Len() != 2 || l0.Get(1) != 2 {
		t.Fatalf("adjacency list of 0 = %v", *l0)
	}
}

func TestMalformedPicklesFailCleanly(t *testing.T) {
	good := csrPickle()
	// Every truncation is an error naming the file, never a panic.
	for n := 0; n < len(good); n++ {
		if _, err := Load(good[:n], "trunc.pkl"); err == nil {
			t.Fatalf("truncated at %d: no error", n)
		} else if !strings.Contains(err.Error(), "trunc.pkl") {
			t.Fatalf("error does not name the file: %v", err)
		}
	}
	huge := &pk{}
	huge.op(0x80, 2).op('T', 0xff, 0xff, 0xff, 0x7f).op('.')
	forbidden := &pk{}
	forbidden.op(0x80, 2).global("os", "system").str("echo hi").op(0x85, 'R', '.')
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"huge length", huge.Bytes(), "BINSTRING needs"},
		{"forbidden class", forbidden.Bytes(), "os.system is not allowed"},
		{"unknown opcode", []byte{0x80, 2, 0xff}, "unknown pickle opcode 0xff"},
		{"no stop", []byte{0x80, 2, 'N'}, "without a STOP"},
		{"odd dict items", []byte{0x80, 2, '(', 'K', 1, 'd', '.'}, "fixture"},
	} {
		_, err := Load(tc.data, "fixture")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
		var pe *Error
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("%s: error is %T, want *Error", tc.name, err)
		}
	}
	// A shape that does not match the data is caught when decoding.
	bad := &pk{}
	bad.op(0x80, 2).ndarray("f8", []byte{4}, false, make([]byte, 8)).op('.')
	v, err := Load(bad.Bytes(), "shape")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.(*NDArray).Array(); err == nil {
		t.Error("shape/data mismatch: no error")
	}
}

// dataRoot is the shared datasets folder (testenv.Data: skips without it,
// fails on CI).
func dataRoot(t testing.TB) string {
	t.Helper()
	return testenv.Data(t)
}

func TestRealPickles(t *testing.T) {
	root := dataRoot(t)
	v, err := LoadFile(filepath.Join(root, "planetoid", "ind.cora.x"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := v.(*CSRMatrix).CSR()
	if err != nil {
		t.Fatal(err)
	}
	if x.Rows != 140 || x.Cols != 1433 || x.NNZ() != 2647 {
		t.Fatalf("ind.cora.x is %dx%d with %d entries", x.Rows, x.Cols, x.NNZ())
	}
	for _, val := range x.Data {
		if val != 1 {
			t.Fatalf("Cora features are binary, found %v", val)
		}
	}
	v, err = LoadFile(filepath.Join(root, "planetoid", "ind.cora.y"))
	if err != nil {
		t.Fatal(err)
	}
	y, err := v.(*NDArray).Array()
	if err != nil {
		t.Fatal(err)
	}
	if y.Shape[0] != 140 || y.Shape[1] != 7 {
		t.Fatalf("ind.cora.y shape %v", y.Shape)
	}
	for i := 0; i < 140; i++ {
		s := 0.0
		for j := 0; j < 7; j++ {
			s += y.Floats[i*7+j]
		}
		if s != 1 {
			t.Fatalf("row %d of ind.cora.y is not one-hot", i)
		}
	}
	v, err = LoadFile(filepath.Join(root, "hgcn", "airport", "airport.p"))
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := v.(*Graph).Nodes()
	if err != nil || nodes.Len() != 3188 {
		t.Fatalf("airport nodes: %v %v", nodes.Len(), err)
	}
	feat, _ := DictGet((*nodes)[0].Value.(*types.Dict), "feat")
	if f, ok := AsFloat(feat.(*types.List).Get(0)); !ok || math.Abs(f-0.5142588721377778) > 0 {
		t.Fatalf("first airport feature = %v", feat)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add(csrPickle())
	p := &pk{}
	p.op(0x80, 2).ndarray("i4", []byte{2, 3}, true, le32(1, 4, 2, 5, 3, 6)).op('.')
	f.Add(p.Bytes())
	f.Add([]byte{0x80, 2, '(', 'K', 1, 'd', '.'})
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Load(data, "fuzz")
		if err != nil {
			return
		}
		switch x := v.(type) {
		case *CSRMatrix:
			if m, err := x.CSR(); err == nil {
				if err := m.Validate(); err != nil {
					t.Fatalf("CSR accepted an invalid matrix: %v", err)
				}
			}
		case *NDArray:
			_, _ = x.Array()
		case *Graph:
			_, _ = x.Nodes()
			_, _ = x.Adj()
		}
	})
}

// TestCSRIndexDtypes: index arrays are decoded as integers of any width
// (i8 indptr, i4 indices) and a float index array is refused; an array's
// Raw bytes view the pickle's string without changing it.
func TestCSRIndexDtypes(t *testing.T) {
	le64 := func(vals ...int64) []byte {
		var b bytes.Buffer
		binary.Write(&b, binary.LittleEndian, vals)
		return b.Bytes()
	}
	build := func(indptrType string, indptr []byte, indicesType string) []byte {
		p := &pk{}
		p.op(0x80, 2)
		p.global("scipy.sparse.csr", "csr_matrix").op(')', 0x81)
		p.op('}', '(')
		p.str("_shape").int1(2).int1(3).op(0x86)
		p.str("indptr").ndarray(indptrType, []byte{3}, false, indptr)
		p.str("indices").ndarray(indicesType, []byte{3}, false, le32(1, 0, 2))
		p.str("data").ndarray("f4", []byte{3}, false, lef32(1.5, 2, -3))
		p.op('u', 'b', '.')
		return p.Bytes()
	}
	v, err := Load(build("i8", le64(0, 1, 3), "i4"), "fixture")
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.(*CSRMatrix).CSR()
	if err != nil {
		t.Fatal(err)
	}
	if c.NNZ() != 3 || c.At(0, 1) != 1.5 || c.At(1, 0) != 2 || c.At(1, 2) != -3 || c.Indptr[1] != 1 {
		t.Fatalf("i8 indptr: got %v", c.ToDense())
	}
	v, err = Load(build("i4", le32(0, 1, 3), "f4"), "fixture")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.(*CSRMatrix).CSR(); err == nil || !strings.Contains(err.Error(), "must be integers") {
		t.Fatalf("float indices: error %v", err)
	}
	// The raw bytes of a decoded array equal the payload in the file.
	p := &pk{}
	payload := lef32(1, 2, 3, 4)
	p.op(0x80, 2).ndarray("f4", []byte{4}, false, payload).op('.')
	a, err := Load(p.Bytes(), "raw")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.(*NDArray).Raw, payload) {
		t.Fatalf("Raw = %v, want %v", a.(*NDArray).Raw, payload)
	}
}

// Issue 19 item 7: a GLOBAL name with control characters (a terminal
// escape sequence) is printed escaped, never raw.
func TestGlobalNameEscaped(t *testing.T) {
	for _, tc := range []struct {
		module, name string
		want         string
	}{
		{"os", "system\x1b[2J", `class os.system\x1b[2J is not allowed`},
		{"evil\rmod", "x", `class evil\x0dmod.x is not allowed`},
		{"bad\xffutf8", "x\u200b", `class bad\xffutf8.x\u200b is not allowed`},
		{"ünïcode", "ok", "class ünïcode.ok is not allowed"},
	} {
		p := &pk{}
		p.op(0x80, 2).global(tc.module, tc.name).str("a").op(0x85, 'R', '.')
		_, err := Load(p.Bytes(), "evil.pkl")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GLOBAL %q %q: error %v, want it to contain %q", tc.module, tc.name, err, tc.want)
			continue
		}
		for _, r := range err.Error() {
			if r < 0x20 || r == 0x7f || r == '\u200b' {
				t.Errorf("GLOBAL %q %q: error %q holds control character %U", tc.module, tc.name, err, r)
			}
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, spaces": "plain text, spaces",
		"tab\there":          `tab\x09here`,
		"\x1b]0;title\x07":   `\x1b]0;title\x07`,
		"del\x7f":            `del\x7f`,
		"bidi\u202eoverride": `bidi\u202eoverride`,
		"":                   "",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
