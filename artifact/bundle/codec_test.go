package bundle

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// sampleArtifact holds every member type, including the awkward cases.
func sampleArtifact(t testing.TB) *Bundle {
	a := New(KindGraph)
	big := mat.NewDense(4, 5, nil)
	for i := 0; i < 4; i++ {
		for j := 0; j < 5; j++ {
			big.Set(i, j, float64(10*i+j)+0.25)
		}
	}
	// A view with stride 5 and 3 columns: the codec must write rows, not the backing slice.
	a.SetDense("view", big.Slice(1, 3, 1, 4).(*mat.Dense))
	a.SetDense("X", mat.NewDense(2, 3, []float64{1, -2.5, math.Pi, 0, math.Copysign(0, -1), 1e-300}))
	a.SetDense("empty", &mat.Dense{})
	a.SetFloats("special", []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64})
	a.SetFloats("nofloats", []float64{})
	a.SetInts("labels", []int{3, -1, 0, math.MaxInt64, math.MinInt64})
	a.SetInts("noints", nil)
	a.SetSparse("adj", &sparse.CSR{Rows: 3, Cols: 4, Indptr: []int{0, 2, 2, 3}, Indices: []int32{0, 3, 1}, Data: []float64{1.5, -2, 7}})
	a.SetSparse("", &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int{0, 1, 3}, Indices: []int32{2, 0, 1}, Data: []float64{4, 5, 6}})
	a.SetSparse("zero_rows", &sparse.CSR{Rows: 0, Cols: 5, Indptr: []int{0}, Indices: []int32{}, Data: []float64{}})
	a.SetSparse("no_cols", &sparse.CSR{Rows: 3, Cols: 0, Indptr: []int{0, 0, 0, 0}})
	if err := a.SetJSON(MemberInfo, GraphInfo{Name: "cora", Nodes: 3, Classes: 2, Normalization: "none"}); err != nil {
		t.Fatal(err)
	}
	a.SetFile("table.md", []byte("| a | b |\n|---|---|\n| 1 | 2 |\n"))
	a.SetFile("figs/empty.png", []byte{})
	return a
}

func encode(t testing.TB, a *Bundle) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Encode(&b, a); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b.Bytes()
}

func decode(t testing.TB, b []byte) *Bundle {
	t.Helper()
	a, err := Decode(bytes.NewReader(b), int64(len(b)), "test.artifact")
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return a
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func denseRows(m *mat.Dense) (int, int, []float64) {
	if m.IsEmpty() {
		return 0, 0, nil
	}
	r, c := m.Dims()
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		out = append(out, m.RawRowView(i)...)
	}
	return r, c, out
}

// equalArtifacts compares two artifacts member by member, floats bit for bit.
func equalArtifacts(t *testing.T, want, got *Bundle) {
	t.Helper()
	if want.Kind() != got.Kind() {
		t.Errorf("kind %q, want %q", got.Kind(), want.Kind())
	}
	if fmt.Sprint(want.Names()) != fmt.Sprint(got.Names()) {
		t.Fatalf("members %q, want %q", got.Names(), want.Names())
	}
	for _, n := range want.Names() {
		wv, _ := want.Member(n)
		gv, _ := got.Member(n)
		switch w := wv.(type) {
		case *mat.Dense:
			g, ok := gv.(*mat.Dense)
			if !ok {
				t.Errorf("%q: got %T, want *mat.Dense", n, gv)
				continue
			}
			wr, wc, wd := denseRows(w)
			gr, gc, gd := denseRows(g)
			if wr != gr || wc != gc || !sameFloats(wd, gd) {
				t.Errorf("%q: got %d×%d %v, want %d×%d %v", n, gr, gc, gd, wr, wc, wd)
			}
		case []float64:
			g, ok := gv.([]float64)
			if !ok || !sameFloats(w, g) {
				t.Errorf("%q: got %v, want %v", n, gv, w)
			}
		case []int:
			g, ok := gv.([]int)
			if !ok || fmt.Sprint(g) != fmt.Sprint(w) || len(g) != len(w) {
				t.Errorf("%q: got %v, want %v", n, gv, w)
			}
		case *sparse.CSR:
			g, ok := gv.(*sparse.CSR)
			if !ok || g.Rows != w.Rows || g.Cols != w.Cols || fmt.Sprint(g.Indptr) != fmt.Sprint(w.Indptr) ||
				fmt.Sprint(g.Indices) != fmt.Sprint(w.Indices) || !sameFloats(g.Data, w.Data) {
				t.Errorf("%q: got %+v, want %+v", n, gv, w)
			}
		case json.RawMessage:
			g, ok := gv.(json.RawMessage)
			if !ok || !bytes.Equal(g, w) {
				t.Errorf("%q: got %s, want %s", n, gv, w)
			}
		case []byte:
			g, ok := gv.([]byte)
			if !ok || !bytes.Equal(g, w) {
				t.Errorf("%q: got %q, want %q", n, gv, w)
			}
		default:
			t.Fatalf("%q: unexpected member type %T", n, wv)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		make func() *Bundle
	}{
		{"every member type", func() *Bundle { return sampleArtifact(t) }},
		{"no members", func() *Bundle { return New(KindMetrics) }},
		{"only a sparse empty name", func() *Bundle {
			a := New(KindFeatures)
			a.SetSparse("", &sparse.CSR{Rows: 1, Cols: 1, Indptr: []int{0, 1}, Indices: []int32{0}, Data: []float64{2}})
			return a
		}},
		{"1x1 dense and column", func() *Bundle {
			a := New(KindModel)
			a.SetDense("W", mat.NewDense(1, 1, []float64{-1}))
			a.SetDense("col", mat.NewDense(3, 1, []float64{1, 2, 3}))
			return a
		}},
		{"unicode names", func() *Bundle {
			a := New(KindValue)
			a.SetFloats("λ/σ", []float64{1})
			a.SetFile("ü.txt", []byte("x"))
			return a
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.make()
			b := encode(t, a)
			got := decode(t, b)
			equalArtifacts(t, a, got)
			if b2 := encode(t, got); !bytes.Equal(b, b2) {
				t.Errorf("re-encoding the decoded artifact changed the bytes (%d vs %d)", len(b), len(b2))
			}
			if b3 := encode(t, a); !bytes.Equal(b, b3) {
				t.Errorf("encoding twice gave different bytes")
			}
		})
	}
}

func TestAccessorsAfterDecode(t *testing.T) {
	got := decode(t, encode(t, sampleArtifact(t)))
	var info GraphInfo
	if err := got.JSON(MemberInfo, &info); err != nil || info.Name != "cora" || info.Nodes != 3 {
		t.Errorf("JSON info = %+v, %v", info, err)
	}
	if x, err := got.Dense("X"); err != nil || x.At(0, 2) != math.Pi {
		t.Errorf("Dense X = %v, %v", x, err)
	}
	if v, err := got.Dense("view"); err != nil || v.At(1, 2) != 23.25 {
		t.Errorf("Dense view = %v, %v", v, err)
	}
	if s, err := got.Sparse(""); err != nil || s.NNZ() != 3 || s.Data[2] != 6 {
		t.Errorf("Sparse \"\" = %+v, %v", s, err)
	}
	if l, err := got.Ints("labels"); err != nil || l[3] != math.MaxInt64 {
		t.Errorf("Ints labels = %v, %v", l, err)
	}
}

// TestGolden pins the encoded bytes: a change of format must be deliberate.
func TestGolden(t *testing.T) {
	b := encode(t, sampleArtifact(t))
	path := filepath.Join("testdata", "sample.artifact")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if !bytes.Equal(b, want) {
		t.Errorf("encoding of the sample artifact differs from %s (%d vs %d bytes); run go test -update if the format change is deliberate", path, len(b), len(want))
	}
	equalArtifacts(t, sampleArtifact(t), decode(t, want))
}

func TestZipLayout(t *testing.T) {
	b := encode(t, sampleArtifact(t))
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if f.Method != zip.Store || f.ModifiedDate != dosDate1980 || f.ModifiedTime != 0 || len(f.Extra) != 0 {
			t.Errorf("%s: method %d, date %d time %d, extra %d bytes; want stored, 1980-01-01, none", f.Name, f.Method, f.ModifiedDate, f.ModifiedTime, len(f.Extra))
		}
	}
	want := "X.npy __artifact__.json adj.data.npy adj.format.npy adj.indices.npy adj.indptr.npy adj.shape.npy " +
		"data.npy empty.npy figs/empty.png format.npy indices.npy indptr.npy info.json labels.npy " +
		"no_cols.data.npy no_cols.format.npy no_cols.indices.npy no_cols.indptr.npy no_cols.shape.npy " +
		"nofloats.npy noints.npy shape.npy special.npy table.md view.npy " +
		"zero_rows.data.npy zero_rows.format.npy zero_rows.indices.npy zero_rows.indptr.npy zero_rows.shape.npy"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("zip members\n got %s\nwant %s", got, want)
	}
	f, _ := zr.Open(ManifestName)
	var man map[string]any
	if err := json.NewDecoder(f).Decode(&man); err != nil {
		t.Fatal(err)
	}
	members := man["members"].(map[string]any)
	if man["kind"] != "graph" || man["version"] != 1.0 || members["adj"] != "sparse" || members[""] != "sparse" ||
		members["X"] != "dense" || members["special"] != "floats" || members["labels"] != "ints" ||
		members["info"] != "json" || members["table.md"] != "file" || len(members) != 14 {
		t.Errorf("manifest %v", man)
	}
	// The .npy header of X, byte for byte as numpy writes it (data aligned to 64 bytes).
	fx, _ := zr.Open("X.npy")
	var hdr [128]byte
	if _, err := io.ReadFull(fx, hdr[:]); err != nil {
		t.Fatal(err)
	}
	dict := "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }"
	wantHdr := "\x93NUMPY\x01\x00\x76\x00" + dict + strings.Repeat(" ", 117-len(dict)) + "\n"
	if string(hdr[:]) != wantHdr {
		t.Errorf("X.npy header %q, want %q", hdr, wantHdr)
	}
}

func TestEncodeErrors(t *testing.T) {
	csr := func() *sparse.CSR { return &sparse.CSR{Rows: 1, Cols: 1, Indptr: []int{0, 0}} }
	tests := []struct {
		name  string
		setup func(a *Bundle)
		want  string
	}{
		{"dense vs sparse part", func(a *Bundle) {
			a.SetSparse("a", csr())
			a.SetFloats("a.data", []float64{1})
		}, `artifact (value): Encode: members "a" (sparse) and "a.data" (floats) would both be stored as "a.data.npy"`},
		{"file vs json", func(a *Bundle) {
			a.SetFile("x.json", []byte("{}"))
			_ = a.SetJSON("x", 1)
		}, `artifact (value): Encode: members "x" (json) and "x.json" (file) would both be stored as "x.json"`},
		{"unnamed sparse vs floats", func(a *Bundle) {
			a.SetSparse("", csr())
			a.SetFloats("shape", nil)
		}, `artifact (value): Encode: members "" (sparse) and "shape" (floats) would both be stored as "shape.npy"`},
		{"manifest name", func(a *Bundle) { _ = a.SetJSON("__artifact__", 1) },
			`artifact (value): Encode: member "__artifact__" (json): zip name "__artifact__.json" is reserved for the manifest`},
		{"empty dense name", func(a *Bundle) { a.SetFloats("", []float64{1}) },
			`artifact (value): Encode: member "": empty member name (only a sparse member may be unnamed)`},
		{"dot dot", func(a *Bundle) { a.SetFile("../x", nil) },
			`artifact (value): Encode: member "../x": member name has an empty, "." or ".." path segment`},
		{"absolute", func(a *Bundle) { a.SetFile("/etc/x", nil) },
			`artifact (value): Encode: member "/etc/x": member name has an empty, "." or ".." path segment`},
		{"backslash", func(a *Bundle) { a.SetFile(`a\b`, nil) },
			`artifact (value): Encode: member "a\\b": member name contains a backslash or NUL`},
		{"nil dense", func(a *Bundle) { a.SetDense("d", nil) },
			`artifact (value): Encode: member "d": nil dense matrix`},
		{"nil sparse", func(a *Bundle) { a.SetSparse("s", nil) },
			`artifact (value): Encode: member "s": nil sparse matrix`},
		{"bad csr", func(a *Bundle) { a.SetSparse("s", &sparse.CSR{Rows: 2, Cols: 1, Indptr: []int{0, 1}}) },
			`artifact (value): Encode: member "s": sparse: indptr has length 2, want rows+1 = 3`},
		{"invalid json", func(a *Bundle) { a.members["j"] = json.RawMessage("{") },
			`artifact (value): Encode: member "j": invalid JSON`},
		{"unsupported", func(a *Bundle) { a.members["u"] = 3 },
			`artifact (value): Encode: member "u": unsupported member type int`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := New(KindValue)
			tc.setup(a)
			err := Encode(&bytes.Buffer{}, a)
			if err == nil || err.Error() != tc.want {
				t.Errorf("Encode error\n got %v\nwant %s", err, tc.want)
			}
		})
	}
	if err := Encode(&bytes.Buffer{}, &Bundle{}); err == nil {
		t.Error("Encode of a zero Bundle succeeded")
	}
	if err := Encode(&bytes.Buffer{}, New("")); err == nil || err.Error() != "artifact: Encode: empty kind" {
		t.Errorf("Encode of an artifact without kind: %v", err)
	}
}

// TestDecodeZeroDimDense: numpy arrays of shape (0, n) or (n, 0) decode as
// an empty *mat.Dense, since gonum has no 0×n matrices.
func TestDecodeZeroDimDense(t *testing.T) {
	for _, shape := range []string{"(0, 5)", "(3, 0)", "(0, 0)"} {
		b := zipOf(t, man(`"x":"dense"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': "+shape+", }", nil)})
		m, err := decode(t, b).Dense("x")
		if err != nil || !m.IsEmpty() {
			t.Errorf("shape %s: %v, %v; want an empty matrix", shape, m, err)
		}
	}
}

// zipOf builds a zip archive with the given members in the given order.
func zipOf(t testing.TB, members ...zipMember) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		method := zip.Store
		if m.deflate {
			method = zip.Deflate
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type zipMember struct {
	name    string
	data    []byte
	deflate bool
}

// npyBytes is a .npy file with the given header dict and data.
func npyBytes(dict string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	b.WriteByte(byte(len(dict) + 1))
	b.WriteByte(0)
	b.WriteString(dict + "\n")
	b.Write(data)
	return b.Bytes()
}

func f8(v ...float64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = append(b, leU64(math.Float64bits(x))...)
	}
	return b
}

func i8(v ...int64) []byte {
	b := make([]byte, 0, 8*len(v))
	for _, x := range v {
		b = append(b, leU64(uint64(x))...)
	}
	return b
}

func leU64(u uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return b
}

func man(members string) zipMember {
	return zipMember{name: ManifestName, data: []byte(`{"version":1,"kind":"value","members":{` + members + `}}`)}
}

// csrMembers returns the zip members of a sparse member "s" with the given indptr.
func csrMembers(indptr ...int64) []zipMember {
	return []zipMember{
		{name: "s.data.npy", data: npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2))},
		{name: "s.indices.npy", data: npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", i8(0, 1))},
		{name: "s.indptr.npy", data: npyBytes(fmt.Sprintf("{'descr': '<i8', 'fortran_order': False, 'shape': (%d,), }", len(indptr)), i8(indptr...))},
		{name: "s.shape.npy", data: npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", i8(2, 2))},
		{name: "s.format.npy", data: npyBytes("{'descr': '<U3', 'fortran_order': False, 'shape': (), }", []byte("c\x00\x00\x00s\x00\x00\x00r\x00\x00\x00"))},
	}
}

// decodeErrorCases are corrupt inputs with their (golden) error messages.
func decodeErrorCases(t testing.TB) []struct {
	name string
	data []byte
} {
	good := encode(t, sampleArtifact(t))
	flipped := bytes.Clone(good)
	// Flip a byte inside the data of the first member (X.npy starts after its 30+5-byte local header and 128-byte .npy header).
	flipped[30+len("X.npy")+128] ^= 0xff
	floatsHdr := "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
	return []struct {
		name string
		data []byte
	}{
		{"empty file", nil},
		{"truncated zip", good[:len(good)/2]},
		{"not a zip", []byte("hello, this is not a zip archive at all, just text")},
		{"crc mismatch", flipped},
		{"missing manifest", zipOf(t, zipMember{name: "x.npy", data: npyBytes(floatsHdr, f8(1, 2))})},
		{"manifest not json", zipOf(t, zipMember{name: ManifestName, data: []byte("kind=value")})},
		{"manifest unknown field", zipOf(t, zipMember{name: ManifestName, data: []byte(`{"version":1,"kind":"value","members":{},"extra":1}`)})},
		{"manifest version", zipOf(t, zipMember{name: ManifestName, data: []byte(`{"version":2,"kind":"value","members":{}}`)})},
		{"manifest empty kind", zipOf(t, zipMember{name: ManifestName, data: []byte(`{"version":1,"kind":"","members":{}}`)})},
		{"manifest unknown type", zipOf(t, man(`"x":"tensor"`))},
		{"manifest bad name", zipOf(t, man(`"../x":"file"`), zipMember{name: "../x"})},
		{"manifest lists missing member", zipOf(t, man(`"x":"floats","y":"json"`), zipMember{name: "x.npy", data: npyBytes(floatsHdr, f8(1, 2))})},
		{"member not in manifest", zipOf(t, man(``), zipMember{name: "x.npy", data: npyBytes(floatsHdr, f8(1, 2))})},
		{"duplicate member", zipOf(t, man(`"x":"file"`), zipMember{name: "x"}, zipMember{name: "x"})},
		{"compressed member", zipOf(t, man(`"x":"file"`), zipMember{name: "x", data: []byte("abc"), deflate: true})},
		{"wrong dtype", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", i8(1, 2))})},
		{"big endian", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '>f8', 'fortran_order': False, 'shape': (2,), }", f8(1, 2))})},
		{"shape mismatch", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", f8(1, 2))})},
		{"huge shape", zipOf(t, man(`"x":"dense"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000, 100000000000), }", f8(1, 2))})},
		{"trailing data bytes", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f8(1, 2))})},
		{"dense not 2-D", zipOf(t, man(`"x":"dense"`), zipMember{name: "x.npy", data: npyBytes(floatsHdr, f8(1, 2))})},
		{"floats not 1-D", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2), }", f8(1, 2))})},
		{"fortran order", zipOf(t, man(`"x":"dense"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'fortran_order': True, 'shape': (1, 2), }", f8(1, 2))})},
		{"bad magic", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: []byte("\x93NUMPZ\x01\x00\x00\x00")})},
		{"short npy", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: []byte("\x93NUM")})},
		{"header too long", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: []byte("\x93NUMPY\x01\x00\xff\x00{}")})},
		{"header garbage", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'shape': (2,) 'fortran_order': False}", f8(1, 2))})},
		{"header missing key", zipOf(t, man(`"x":"floats"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<f8', 'shape': (2,), }", f8(1, 2))})},
		{"invalid json member", zipOf(t, man(`"j":"json"`), zipMember{name: "j.json", data: []byte(`{"a":`)})},
		{"bad indptr", zipOf(t, append([]zipMember{man(`"s":"sparse"`)}, csrMembers(0, 2, 1)...)...)},
		{"indptr length", zipOf(t, append([]zipMember{man(`"s":"sparse"`)}, csrMembers(0, 2)...)...)},
		{"indptr end", zipOf(t, append([]zipMember{man(`"s":"sparse"`)}, csrMembers(0, 1, 1)...)...)},
		{"sparse format", zipOf(t, append([]zipMember{man(`"s":"sparse"`)}, append(csrMembers(0, 1, 2)[:4],
			zipMember{name: "s.format.npy", data: npyBytes("{'descr': '<U3', 'fortran_order': False, 'shape': (), }", []byte("c\x00\x00\x00s\x00\x00\x00c\x00\x00\x00"))})...)...)},
		{"sparse column out of range", zipOf(t, append([]zipMember{man(`"s":"sparse"`)}, append(csrMembers(0, 1, 2)[:1],
			append([]zipMember{{name: "s.indices.npy", data: npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", i8(0, 2))}}, csrMembers(0, 1, 2)[2:]...)...)...)...)},
		{"sparse index beyond int32", zipOf(t, append([]zipMember{man(`"s":"sparse"`)}, append(csrMembers(0, 1, 2)[:1],
			append([]zipMember{{name: "s.indices.npy", data: npyBytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", i8(0, 1<<40))}}, csrMembers(0, 1, 2)[2:]...)...)...)...)},
		{"ints member from int32", zipOf(t, man(`"x":"ints"`), zipMember{name: "x.npy", data: npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", i8(1))})},
	}
}

func TestDecodeErrors(t *testing.T) {
	var got strings.Builder
	for _, tc := range decodeErrorCases(t) {
		a, err := Decode(bytes.NewReader(tc.data), int64(len(tc.data)), "bad.artifact")
		if err == nil {
			t.Errorf("%s: Decode succeeded with members %q", tc.name, a.Names())
			continue
		}
		if !strings.HasPrefix(err.Error(), "artifact bad.artifact: ") {
			t.Errorf("%s: error %q does not name the file", tc.name, err)
		}
		fmt.Fprintf(&got, "%s:\n\t%s\n", tc.name, err)
	}
	path := filepath.Join("testdata", "decode_errors.golden")
	if *update {
		if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if got.String() != string(want) {
		t.Errorf("decode errors differ from %s; got:\n%s", path, got.String())
	}
}

// TestDecodeTruncations decodes every prefix of an encoded artifact: each
// must fail cleanly (no panic), and only the full file may succeed.
func TestDecodeTruncations(t *testing.T) {
	a := New(KindValue)
	a.SetFloats("v", []float64{1, 2, 3})
	a.SetSparse("", &sparse.CSR{Rows: 1, Cols: 2, Indptr: []int{0, 1}, Indices: []int32{1}, Data: []float64{5}})
	b := encode(t, a)
	for n := 0; n < len(b); n++ {
		if _, err := Decode(bytes.NewReader(b[:n]), int64(n), "cut"); err == nil {
			t.Fatalf("prefix of %d of %d bytes decoded without error", n, len(b))
		}
	}
	// Every single-byte corruption either fails or decodes to something that re-encodes.
	for i := range b {
		c := bytes.Clone(b)
		c[i] ^= 0x5a
		if got, err := Decode(bytes.NewReader(c), int64(len(c)), "flip"); err == nil {
			if err := Encode(&bytes.Buffer{}, got); err != nil {
				t.Fatalf("flip at %d: decoded artifact does not re-encode: %v", i, err)
			}
		}
	}
}

// TestDecodeMutations decodes seeded random mutations of the sample artifact
// (byte changes, deletions, insertions, 32-bit length overwrites): none may
// panic, errors must name the file, and whatever decodes must re-encode.
// `go test -fuzz FuzzDecode` explores further.
func TestDecodeMutations(t *testing.T) {
	seed := encode(t, sampleArtifact(t))
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	decoded := 0
	for it := 0; it < n; it++ {
		b := bytes.Clone(seed)
		for k := 0; k < 1+r.IntN(3); k++ {
			i := r.IntN(len(b))
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1:
				b = append(b[:i], b[i+1:]...)
			case 2:
				b = append(b[:i], append([]byte{byte(r.IntN(256))}, b[i:]...)...)
			case 3:
				if i+4 <= len(b) {
					v := []uint32{0, 1, 0x7fffffff, 0xffffffff, uint32(len(b))}[r.IntN(5)]
					b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
				}
			}
		}
		a, err := Decode(bytes.NewReader(b), int64(len(b)), "mut")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "artifact mut: ") {
				t.Fatalf("mutation %d: error does not name the file: %v", it, err)
			}
			continue
		}
		decoded++
		if err := Encode(io.Discard, a); err != nil {
			t.Fatalf("mutation %d decoded but does not re-encode: %v", it, err)
		}
	}
	t.Logf("%d of %d mutations still decoded", decoded, n)
}

// FuzzDecode starts from small artifacts: the engine minimises every input
// that finds new coverage, for up to -fuzzminimizetime (default 60 s, during
// which no new inputs run), and that is slow for inputs of several KB such
// as the sample artifact (TestDecodeMutations mutates that one instead).
// Run with e.g. -fuzzminimizetime 3s to keep exploring.
func FuzzDecode(f *testing.F) {
	each := New(KindValue)
	each.SetDense("d", mat.NewDense(1, 2, []float64{1, 2}))
	each.SetFloats("f", []float64{3})
	each.SetFile("t.txt", []byte("x"))
	_ = each.SetJSON("j", 1)
	each.SetSparse("s", &sparse.CSR{Rows: 1, Cols: 2, Indptr: []int{0, 1}, Indices: []int32{1}, Data: []float64{4}})
	f.Add(encode(f, each))
	small := New(KindValue)
	small.SetInts("i", []int{1, 2})
	small.SetSparse("", &sparse.CSR{Rows: 1, Cols: 1, Indptr: []int{0, 1}, Indices: []int32{0}, Data: []float64{1}})
	f.Add(encode(f, small))
	f.Add(encode(f, New(artifact.KindAny)))
	for _, tc := range decodeErrorCases(f) {
		if len(tc.data) <= 1024 { // the large ones are cut from the sample artifact
			f.Add(tc.data)
		}
	}
	decodeCompressed := func(data []byte) (*Bundle, error) {
		old := compressMinBytes
		compressMinBytes = 0 // every dense member held compressed when sparse enough
		defer func() { compressMinBytes = old }()
		return Decode(bytes.NewReader(data), int64(len(data)), "fuzz")
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Shapes reads headers and small JSON members of untrusted data
		// for memory estimates: it may fail, never panic.
		_, _ = Shapes(bytes.NewReader(data), int64(len(data)))
		a, err := Decode(bytes.NewReader(data), int64(len(data)), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "artifact fuzz: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			if _, errC := decodeCompressed(data); errC == nil {
				t.Fatalf("decodes compressed but not dense: %v", err)
			}
			return
		}
		// Whatever decodes must re-encode, and that encoding is a fixed point.
		var b1 bytes.Buffer
		if err := Encode(&b1, a); err != nil {
			t.Fatalf("decoded artifact does not encode: %v", err)
		}
		a2, err := Decode(bytes.NewReader(b1.Bytes()), int64(b1.Len()), "fuzz")
		if err != nil {
			t.Fatalf("re-encoded artifact does not decode: %v", err)
		}
		var b2 bytes.Buffer
		if err := Encode(&b2, a2); err != nil || !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Fatalf("encoding is not a fixed point (err %v)", err)
		}
		// Dense members held compressed (every size) decode to the same
		// artifact, or fail where the dense decoding fails.
		ac, errC := decodeCompressed(data)
		if errC != nil {
			t.Fatalf("decodes dense but not compressed: %v", errC)
		}
		var b3 bytes.Buffer
		if err := Encode(&b3, ac); err != nil || !bytes.Equal(b1.Bytes(), b3.Bytes()) {
			t.Fatalf("compressed decoding encodes differently (err %v)", err)
		}
	})
}

func BenchmarkEncodeDecode(b *testing.B) {
	const rows, cols = 20000, 100
	dense := mat.NewDense(rows, cols, nil)
	raw := dense.RawMatrix().Data
	for i := range raw {
		raw[i] = float64(i%977) * 0.001
	}
	const n, perRow = 100000, 10 // 1M non-zeros
	csr := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, 0, n*perRow), Data: make([]float64, 0, n*perRow)}
	for i := 0; i < n; i++ {
		for k := 0; k < perRow; k++ {
			csr.Indices = append(csr.Indices, int32((i*7919+k*n/perRow)%n))
			csr.Data = append(csr.Data, float64(k+1))
		}
		csr.Indptr[i+1] = len(csr.Data)
	}
	a := New(KindFeatures)
	a.SetDense(MemberX, dense)
	a.SetSparse(MemberS, csr)
	var buf bytes.Buffer
	if err := Encode(&buf, a); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(buf.Len()))
		for b.Loop() {
			if err := Encode(io.Discard, a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(buf.Len()))
		data := buf.Bytes()
		for b.Loop() {
			if _, err := Decode(bytes.NewReader(data), int64(len(data)), "bench"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkRedditScaleFile encodes a Reddit-sized graph artifact (232,965
// nodes × 602 dense features, 23.2M-entry adjacency) to a file and decodes
// it back, as the cache does. It needs about 3 GB of memory.
func BenchmarkRedditScaleFile(b *testing.B) {
	const n, d, perRow = 232965, 602, 100
	x := make([]float64, n*d)
	for i := range x {
		x[i] = float64(i%1013) * 1e-3
	}
	adj := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1), Indices: make([]int32, n*perRow), Data: make([]float64, n*perRow)}
	for i := 0; i < n; i++ {
		for k := 0; k < perRow; k++ {
			adj.Indices[i*perRow+k] = int32((i + k*2311) % n)
			adj.Data[i*perRow+k] = 1
		}
		adj.Indptr[i+1] = (i + 1) * perRow
	}
	a := New(KindGraph)
	a.SetDense(MemberFeatures, mat.NewDense(n, d, x))
	a.SetSparse(MemberAdj, adj)
	path := filepath.Join(b.TempDir(), "reddit.artifact")
	for b.Loop() {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := Encode(f, a); err != nil {
			b.Fatal(err)
		}
		st, _ := f.Stat()
		b.SetBytes(st.Size())
		if _, err := Decode(f, st.Size(), path); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkSmall encodes and decodes the artifact of a generic stage (one
// short vector), the per-stage cost the runner pays for cheap stages.
func BenchmarkSmall(b *testing.B) {
	a := New(KindValue)
	a.SetFloats("values", []float64{1, 2, 3})
	data := encode(b, a)
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := Encode(io.Discard, a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(bytes.NewReader(data), int64(len(data)), "small"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Shapes reads the array headers only: a dense member's shape, a sparse
// member's (rows, cols) and its stored entries as NAME.data.
func TestShapes(t *testing.T) {
	a := New("graph")
	a.SetSparse("adj", &sparse.CSR{Rows: 3, Cols: 4, Indptr: []int{0, 2, 2, 3}, Indices: []int32{0, 3, 1}, Data: []float64{1.5, -2, 7}})
	a.SetDense("x", mat.NewDense(2, 5, nil))
	// JSON members: whole numbers ≥ 0 and booleans at the top level become NAME.FIELD;
	// fractions, negatives, strings, nested values and big members do not.
	if err := a.SetJSON("info", map[string]any{"classes": 52, "nodes": 17992, "ratio": 0.5, "neg": -1, "name": "R52", "nested": map[string]int{"k": 2}, "big": 1e30, "binary": true, "inductive": false}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetJSON("list", []int{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := a.SetJSON("large", map[string]any{"n": 7, "pad": strings.Repeat("x", shapesJSONMax)}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := a.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Shapes(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]int{"adj": {3, 4}, "adj.data": {3}, "x": {2, 5}, "info.classes": {52}, "info.nodes": {17992}, "info.binary": {1}, "info.inductive": {0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Shapes = %v, want %v", got, want)
	}
}
