package npy

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/sparse"
)

func encode(t testing.TB, a *Array) []byte {
	var b bytes.Buffer
	if err := Write(&b, a); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    *Array
	}{
		{"f8 2-D", Floats64([]int{2, 3}, []float64{1, -2.5, math.Pi, 0, 1e300, -0})},
		{"f4", &Array{Shape: []int{3}, Kind: 'f', ItemSize: 4, Floats: []float64{1.5, -2, 0.25}}},
		{"i8", Ints64([]int{4}, []int64{0, -1, 1 << 40, math.MinInt64})},
		{"i4", Int32s([]int{2, 2}, []int64{1, -2, 3, -4})},
		{"u1", &Array{Shape: []int{3}, Kind: 'u', ItemSize: 1, Ints: []int64{0, 200, 255}}},
		{"bool", &Array{Shape: []int{2}, Kind: 'b', ItemSize: 1, Ints: []int64{1, 0}}},
		{"unicode scalar", Unicode("csr")},
		{"empty", Floats64([]int{0, 5}, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := encode(t, tc.a)
			got, err := Read(bytes.NewReader(data), int64(len(data)), "x.npy", "")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Shape, tc.a.Shape) || got.Kind != tc.a.Kind || got.ItemSize != tc.a.ItemSize {
				t.Fatalf("header: got %v %c %d", got.Shape, got.Kind, got.ItemSize)
			}
			switch tc.a.Kind {
			case 'f':
				if !slices.Equal(got.Floats, tc.a.Floats) && tc.a.Len() > 0 {
					t.Fatalf("floats %v, want %v", got.Floats, tc.a.Floats)
				}
			case 'i', 'u', 'b':
				if !slices.Equal(got.Ints, tc.a.Ints) {
					t.Fatalf("ints %v, want %v", got.Ints, tc.a.Ints)
				}
			case 'U':
				if !slices.Equal(got.Strings, tc.a.Strings) {
					t.Fatalf("strings %v, want %v", got.Strings, tc.a.Strings)
				}
			}
		})
	}
}

// rawNPY builds a .npy file with an arbitrary header and data.
func rawNPY(header string, data []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func TestFortranOrderAndBigEndian(t *testing.T) {
	var data bytes.Buffer
	binary.Write(&data, binary.BigEndian, []int32{1, 4, 2, 5, 3, 6}) // 2×3, column-major
	f := rawNPY("{'descr': '>i4', 'fortran_order': True, 'shape': (2, 3), }\n", data.Bytes())
	a, err := Read(bytes.NewReader(f), int64(len(f)), "f.npy", "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Ints, []int64{1, 2, 3, 4, 5, 6}) {
		t.Fatalf("got %v", a.Ints)
	}
}

func TestMalformed(t *testing.T) {
	good := encode(t, Floats64([]int{2}, []float64{1, 2}))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "byte 0: 0 bytes, too short for a .npy array"},
		{"bad magic", append([]byte("\x93NUMPX"), good[6:]...), `byte 0: magic "\x93NUMPX", want "\x93NUMPY" (a .npy array)`},
		{"bad version", append(append([]byte{}, good[:6]...), append([]byte{9, 0}, good[8:]...)...), "byte 6: .npy format version 9.0, want 1.0, 2.0 or 3.0"},
		{"header past end", good[:20], "byte 10: header length 118, but 10 bytes follow"},
		{"truncated data", good[:len(good)-1], "needs 16 data bytes, 15 present"},
		{"huge shape", rawNPY("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000, 100000000000), }\n", nil), "needs more than the 0 data bytes present"},
		{"object dtype", rawNPY("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }\n", make([]byte, 8)), `dtype "O" not understood`},
		{"missing key", rawNPY("{'descr': '<f8', 'shape': (1,), }\n", make([]byte, 8)), `no "fortran_order" key`},
		{"garbage header", rawNPY("hello", nil), "does not start with '{'"},
		{"bad bool", rawNPY("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }\n", []byte{7}), "bool byte 7"},
	} {
		_, err := Read(bytes.NewReader(tc.data), int64(len(tc.data)), "bad.npy", "")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.npy") {
			t.Errorf("%s: error %v, want one naming bad.npy and containing %q", tc.name, err, tc.want)
		}
	}
}

func TestSparseArchive(t *testing.T) {
	m, err := sparse.FromCOO(3, 4, []int{0, 2, 2, 1}, []int{3, 0, 1, 1}, []float64{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "m.npz")
	if err := WriteArchive(p, SparseArrays(m)); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSparseFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !sparse.Equal(got, m) {
		t.Fatalf("round trip: got %+v want %+v", got, m)
	}
	// coo and csc forms of the same matrix.
	coo := map[string]*Array{
		"format": Unicode("coo"), "shape": Ints64([]int{2}, []int64{3, 4}),
		"row": Int32s([]int{4}, []int64{0, 2, 2, 1}), "col": Int32s([]int{4}, []int64{3, 0, 1, 1}),
		"data": Floats64([]int{4}, []float64{1, 2, 3, 4}),
	}
	if err := WriteArchive(p, coo); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSparseFile(p); err != nil || !sparse.Equal(got, m) {
		t.Fatalf("coo: %v", err)
	}
	mt := m.Transpose()
	csc := SparseArrays(mt)
	csc["format"] = Unicode("csc")
	csc["shape"] = Ints64([]int{2}, []int64{3, 4})
	if err := WriteArchive(p, csc); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSparseFile(p); err != nil || !sparse.Equal(got, m) {
		t.Fatalf("csc: %v", err)
	}
	// Out-of-range index and bad indptr are reported with the member.
	bad := SparseArrays(m)
	bad["indices"] = Int32s([]int{4}, []int64{3, 9, 0, 1})
	if err := WriteArchive(p, bad); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSparseFile(p); err == nil || !strings.Contains(err.Error(), "indices.npy") {
		t.Errorf("bad indices: %v", err)
	}
	bad = SparseArrays(m)
	bad["indptr"] = Int32s([]int{4}, []int64{0, 9, 2, 4})
	if err := WriteArchive(p, bad); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSparseFile(p); err == nil || !strings.Contains(err.Error(), "indptr.npy") {
		t.Errorf("bad indptr: %v", err)
	}
}

// dataRoot is the shared datasets folder (testenv.Data: skips without it,
// fails on CI).
func dataRoot(t testing.TB) string {
	t.Helper()
	return testenv.Data(t)
}

func TestRealFiles(t *testing.T) {
	root := dataRoot(t)
	a, err := ReadFile(filepath.Join(root, "hgcn", "disease_nc", "disease_nc.labels.npy"))
	if err != nil {
		t.Fatal(err)
	}
	ones := 0.0
	for _, v := range a.Floats {
		ones += v
	}
	if a.Len() != 1044 || ones != 211 {
		t.Fatalf("disease_nc labels: %d entries, %v ones (want 1044, 211)", a.Len(), ones)
	}
	m, err := ReadSparseFile(filepath.Join(root, "hgcn", "disease_lp", "disease_lp.feats.npz"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != 2665 || m.Cols != 11 {
		t.Fatalf("disease_lp feats %dx%d", m.Rows, m.Cols)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(encode(f, Floats64([]int{2, 2}, []float64{1, 2, 3, 4})))
	f.Add(encode(f, Unicode("csr")))
	f.Add(rawNPY("{'descr': '>i4', 'fortran_order': True, 'shape': (2, 1), }\n", make([]byte, 8)))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := Read(bytes.NewReader(data), int64(len(data)), "fuzz.npy", "")
		if err != nil {
			return
		}
		if n := a.Len(); (a.Floats != nil && len(a.Floats) != n) || (a.Strings != nil && len(a.Strings) != n) {
			t.Fatalf("shape %v but %d/%d elements", a.Shape, len(a.Floats), len(a.Strings))
		}
	})
}

func FuzzArchive(f *testing.F) {
	dir := f.TempDir()
	m, _ := sparse.FromCOO(2, 2, []int{0, 1}, []int{1, 0}, []float64{1, 2})
	p := filepath.Join(dir, "s.npz")
	if err := WriteArchive(p, SparseArrays(m)); err != nil {
		f.Fatal(err)
	}
	seed, _ := os.ReadFile(p)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		ar, err := NewArchive(bytes.NewReader(data), int64(len(data)), "fuzz.npz")
		if err != nil {
			return
		}
		if s, err := ar.Sparse(); err == nil {
			if err := s.Validate(); err != nil {
				t.Fatalf("accepted an invalid matrix: %v", err)
			}
		}
	})
}
