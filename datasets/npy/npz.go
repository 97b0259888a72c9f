package npy

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/sparse"
)

// Archive is an opened .npz file (a zip of .npy members).
type Archive struct {
	path    string
	size    int64
	zr      *zip.Reader
	members map[string]*zip.File
	closer  io.Closer
}

// OpenArchive opens a .npz file. Close it when done.
func OpenArchive(path string) (*Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	a, err := NewArchive(f, st.Size(), path)
	if err != nil {
		f.Close()
		return nil, err
	}
	a.closer = f
	return a, nil
}

// NewArchive reads the directory of a .npz archive of size bytes; path names
// it in errors.
func NewArchive(r io.ReaderAt, size int64, path string) (*Archive, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, &Error{File: path, Msg: "not a .npz (zip) archive", Err: err}
	}
	a := &Archive{path: path, size: size, zr: zr, members: map[string]*zip.File{}}
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := a.members[name]; dup {
			return nil, &Error{File: path, Member: f.Name, Msg: "duplicate member"}
		}
		a.members[name] = f
	}
	return a, nil
}

// Close releases the file of an archive opened with OpenArchive.
func (a *Archive) Close() error {
	if a.closer != nil {
		return a.closer.Close()
	}
	return nil
}

// Names returns the member names without the .npy suffix, sorted.
func (a *Archive) Names() []string {
	names := make([]string, 0, len(a.members))
	for n := range a.members {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Array decodes member name (without .npy).
func (a *Archive) Array(name string) (*Array, error) {
	f, ok := a.members[name]
	if !ok {
		return nil, &Error{File: a.path, Member: name + ".npy", Msg: fmt.Sprintf("no such member (have %v)", a.Names())}
	}
	// The declared size is untrusted: bound it by a generous multiple of the
	// archive (deflate rarely exceeds 1:1000) and the global cap.
	declared := int64(f.UncompressedSize64)
	if f.UncompressedSize64 > MaxBytes || (f.Method != zip.Store && declared > 1032*a.size+1<<20) ||
		(f.Method == zip.Store && declared > a.size) {
		return nil, &Error{File: a.path, Member: f.Name, Msg: fmt.Sprintf("declared size %d is implausible", f.UncompressedSize64)}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, &Error{File: a.path, Member: f.Name, Msg: "opening member", Err: err}
	}
	defer rc.Close()
	arr, err := Read(io.LimitReader(rc, declared), declared, a.path, f.Name)
	if err != nil {
		return nil, err
	}
	return arr, nil
}

// ReadSparseFile reads a scipy.sparse.save_npz file (csr, csc or coo format)
// as a canonical CSR matrix.
func ReadSparseFile(path string) (*sparse.CSR, error) {
	a, err := OpenArchive(path)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	return a.Sparse()
}

// Has reports whether the archive holds member name (without .npy).
func (a *Archive) Has(name string) bool {
	_, ok := a.members[name]
	return ok
}

// Sparse decodes the scipy sparse matrix stored in the archive's members
// format, shape, data and indices/indptr (csr, csc) or row/col (coo).
func (a *Archive) Sparse() (*sparse.CSR, error) { return a.SparsePrefixed("") }

// SparsePrefixed decodes a scipy sparse matrix stored in members whose
// names start with prefix (x_data, x_indices, x_indptr, x_shape and an
// optional x_format for prefix "x_": the members a user writes from a
// csr_matrix's attributes beside other arrays). With a non-empty prefix a
// missing format member means csr.
func (a *Archive) SparsePrefixed(prefix string) (*sparse.CSR, error) {
	fail := func(member, format string, args ...any) error {
		return &Error{File: a.path, Member: prefix + member, Msg: fmt.Sprintf(format, args...)}
	}
	format := ""
	fm, err := a.Array(prefix + "format")
	if prefix != "" && !a.Has(prefix+"format") {
		fm, err = &Array{Kind: 'U', Shape: []int{}, Strings: []string{"csr"}}, nil
	}
	if err != nil {
		return nil, err
	}
	switch {
	case (fm.Kind == 'U' || fm.Kind == 'S') && len(fm.Strings) == 1:
		format = fm.Strings[0]
	case (fm.Kind == 'u' || fm.Kind == 'i') && len(fm.Shape) == 1: // bytes stored as uint8
		b := make([]byte, len(fm.Ints))
		for i, v := range fm.Ints {
			b[i] = byte(v)
		}
		format = string(b)
	default:
		return nil, fail("format.npy", "expected a string, got kind %q shape %v", fm.Kind, fm.Shape)
	}
	sh, err := a.Array(prefix + "shape")
	if err != nil {
		return nil, err
	}
	if sh.Ints == nil || len(sh.Ints) != 2 || sh.Ints[0] < 0 || sh.Ints[1] < 0 ||
		sh.Ints[0] > 1<<31-1 || sh.Ints[1] > 1<<31-1 {
		return nil, fail("shape.npy", "expected two non-negative integers, got %v", sh.Ints)
	}
	rows, cols := int(sh.Ints[0]), int(sh.Ints[1])
	data, err := a.Array(prefix + "data")
	if err != nil {
		return nil, err
	}
	if data.Floats == nil && data.Len() > 0 || len(data.Shape) != 1 {
		return nil, fail("data.npy", "expected a 1-D numeric array, got kind %q shape %v", data.Kind, data.Shape)
	}
	ints := func(name string, want int) ([]int, error) {
		arr, err := a.Array(prefix + name)
		if err != nil {
			return nil, err
		}
		if (arr.Kind != 'i' && arr.Kind != 'u') || len(arr.Shape) != 1 {
			return nil, fail(name+".npy", "expected a 1-D integer array, got kind %q shape %v", arr.Kind, arr.Shape)
		}
		if want >= 0 && len(arr.Ints) != want {
			return nil, fail(name+".npy", "has %d entries, want %d", len(arr.Ints), want)
		}
		out := make([]int, len(arr.Ints))
		for i, v := range arr.Ints {
			out[i] = int(v)
		}
		return out, nil
	}
	nnz := len(data.Floats)
	switch format {
	case "csr", "csc":
		major, minor := rows, cols
		if format == "csc" {
			major, minor = cols, rows
		}
		indptr, err := ints("indptr", major+1)
		if err != nil {
			return nil, err
		}
		indices, err := ints("indices", nnz)
		if err != nil {
			return nil, err
		}
		if indptr[0] != 0 || indptr[major] != nnz {
			return nil, fail("indptr.npy", "indptr runs from %d to %d, want 0 to nnz = %d", indptr[0], indptr[major], nnz)
		}
		ri := make([]int, nnz)
		for i := 0; i < major; i++ {
			if indptr[i+1] < indptr[i] || indptr[i+1] > nnz {
				return nil, fail("indptr.npy", "indptr[%d] = %d is not in [indptr[%d] = %d, nnz = %d]", i+1, indptr[i+1], i, indptr[i], nnz)
			}
			for p := indptr[i]; p < indptr[i+1]; p++ {
				ri[p] = i
			}
		}
		for p, c := range indices {
			if c < 0 || c >= minor {
				return nil, fail("indices.npy", "index %d at position %d out of range [0,%d)", c, p, minor)
			}
		}
		if format == "csc" {
			ri, indices = indices, ri
		}
		m, err := sparse.FromCOO(rows, cols, ri, indices, data.Floats)
		if err != nil {
			return nil, &Error{File: a.path, Member: prefix + "data.npy", Msg: "building the matrix", Err: err}
		}
		return m, nil
	case "coo":
		ri, err := ints("row", nnz)
		if err != nil {
			return nil, err
		}
		ci, err := ints("col", nnz)
		if err != nil {
			return nil, err
		}
		m, err := sparse.FromCOO(rows, cols, ri, ci, data.Floats)
		if err != nil {
			return nil, &Error{File: a.path, Member: prefix + "data.npy", Msg: "coo entries", Err: err}
		}
		return m, nil
	}
	return nil, fail("format.npy", "sparse format %q not supported (want csr, csc or coo)", format)
}
