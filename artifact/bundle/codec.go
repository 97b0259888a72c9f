package bundle

// The bundle file format.
//
// An encoded artifact is an uncompressed zip archive (every member uses the
// Store method, carries the fixed DOS time 1980-01-01 00:00:00 and no extra
// fields; members appear in byte order of their zip names), so the same
// artifact always encodes to the same bytes and numpy.load opens the file as
// an NpzFile. Its members are:
//
//	__artifact__.json   the manifest {"version":1,"kind":KIND,"members":{NAME:TYPE,…}}
//	NAME.npy            TYPE "dense":  2-D '<f8' array in C order (rows × cols)
//	NAME.npy            TYPE "floats": 1-D '<f8' array
//	NAME.npy            TYPE "ints":   1-D '<i8' array
//	NAME.json           TYPE "json":   the JSON document
//	NAME                TYPE "file":   the raw bytes (NAME carries its own extension)
//	NAME.data.npy       TYPE "sparse": a CSR matrix as scipy.sparse.save_npz
//	NAME.indices.npy               writes it: data '<f8' (nnz), indices '<i4'
//	NAME.indptr.npy                (nnz), indptr '<i8' (rows+1), shape '<i8'
//	NAME.shape.npy                 (2,) and format '<U3' "csr" (0-d)
//	NAME.format.npy
//
// A sparse member with the empty name "" is stored as data.npy, indices.npy,
// indptr.npy, shape.npy and format.npy, exactly the members of a
// scipy.sparse.save_npz file, so scipy.sparse.load_npz opens such an
// artifact directly. Only sparse members may have the empty name.
//
// Member names are UTF-8 paths of '/'-separated segments, none of them empty,
// "." or ".."; they contain no backslash or NUL. Two members whose zip names
// would coincide (a dense "a.data" and a sparse "a", a file "x.json" and a
// JSON member "x", anything named like the manifest) are refused by Encode.
//
// Decode reads this format; for sparse members it also accepts the dtypes
// scipy itself writes ('<i4' or '<i8' for indices, indptr and shape, '|S3'
// for format), so a scipy.sparse.save_npz(..., compressed=False) file plus a
// manifest decodes. It checks the zip against its size, every
// .npy header against the bytes that follow it (so nothing larger than the
// file is ever allocated), the dtypes and shapes of every member, the CSR
// invariants (sparse.CSR.Validate), each member's CRC-32, that the JSON
// members are valid JSON and that the manifest names exactly the members
// present. A dense member with a zero dimension decodes as an empty
// *mat.Dense (gonum has no 0×n matrices), which encodes as shape (0, 0).

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// ManifestName is the zip member that holds an artifact's kind and member types.
const ManifestName = "__artifact__.json"

// formatVersion is the manifest's "version".
const formatVersion = 1

// Member types as written in the manifest.
const (
	typeDense  = "dense"
	typeFloats = "floats"
	typeInts   = "ints"
	typeSparse = "sparse"
	typeJSON   = "json"
	typeFile   = "file"
)

// Suffixes of the zip members of a sparse member, in the order they are listed in errors.
var sparseParts = []string{"data", "indices", "indptr", "shape", "format"}

// dosDate1980 is 1980-01-01 in MS-DOS date format: the fixed modification date of every member.
const dosDate1980 = 1<<5 | 1

// manifest is the JSON document stored as ManifestName.
type manifest struct {
	Version int               `json:"version"`
	Kind    artifact.Kind     `json:"kind"`
	Members map[string]string `json:"members"`
}

// memberType returns the manifest type of a member value, or an error for a
// value the codec cannot store.
func memberType(v any) (string, error) {
	switch m := v.(type) {
	case *mat.Dense:
		if m == nil {
			return "", errors.New("nil dense matrix")
		}
		return typeDense, nil
	case []float64:
		return typeFloats, nil
	case []int:
		return typeInts, nil
	case *sparse.CSR:
		if m == nil {
			return "", errors.New("nil sparse matrix")
		}
		return typeSparse, nil
	case json.RawMessage:
		return typeJSON, nil
	case []byte:
		return typeFile, nil
	}
	return "", fmt.Errorf("unsupported member type %T", v)
}

// zipNames returns the zip member names that store a member of the given type.
func zipNames(name, typ string) []string {
	switch typ {
	case typeDense, typeFloats, typeInts:
		return []string{name + ".npy"}
	case typeJSON:
		return []string{name + ".json"}
	case typeFile:
		return []string{name}
	case typeSparse:
		out := make([]string, len(sparseParts))
		for i, p := range sparseParts {
			if name == "" {
				out[i] = p + ".npy"
			} else {
				out[i] = name + "." + p + ".npy"
			}
		}
		return out
	}
	return nil
}

// checkName validates a member name for its type.
func checkName(name, typ string) error {
	if name == "" {
		if typ == typeSparse {
			return nil
		}
		return errors.New("empty member name (only a sparse member may be unnamed)")
	}
	if !utf8.ValidString(name) {
		return errors.New("member name is not valid UTF-8")
	}
	if strings.ContainsAny(name, "\\\x00") {
		return errors.New("member name contains a backslash or NUL")
	}
	if len(name) > 1024 {
		return fmt.Errorf("member name of %d bytes (at most 1024)", len(name))
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return errors.New(`member name has an empty, "." or ".." path segment`)
		}
	}
	return nil
}

// layout maps every zip member name of the manifest's members to its owner,
// checking names and collisions. owners[zipName] = member name.
func layout(types map[string]string) (map[string]string, error) {
	owners := map[string]string{ManifestName: ""}
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		typ := types[n]
		if err := checkName(n, typ); err != nil {
			return nil, fmt.Errorf("member %q: %w", n, err)
		}
		zn := zipNames(n, typ)
		if zn == nil {
			return nil, fmt.Errorf("member %q: unknown member type %q", n, typ)
		}
		for _, z := range zn {
			if z == ManifestName {
				return nil, fmt.Errorf("member %q (%s): zip name %q is reserved for the manifest", n, typ, z)
			}
			if other, dup := owners[z]; dup {
				return nil, fmt.Errorf("members %q (%s) and %q (%s) would both be stored as %q",
					other, types[other], n, typ, z)
			}
			owners[z] = n
		}
	}
	return owners, nil
}

// Magic is how every encoded bundle starts: a zip archive's signature.
const Magic = "PK"

func init() {
	artifact.RegisterCodec(artifact.Codec{
		Name:  "bundle",
		Magic: Magic,
		Decode: func(r io.ReaderAt, size int64, name string) (artifact.Artifact, error) {
			return Decode(r, size, name)
		},
	})
}

// Encode writes a deterministically: the same bundle gives the same bytes.
// The format is described in the comment at the top of codec.go.
func (a *Bundle) Encode(w io.Writer) error { return Encode(w, a) }

// Encode writes a deterministically: the same bundle gives the same bytes.
// The format is described in the comment at the top of codec.go.
func Encode(w io.Writer, a *Bundle) error {
	if a == nil || a.members == nil {
		return errors.New("artifact: Encode: nil or uninitialised artifact (use bundle.New)")
	}
	if a.kind == "" {
		return errors.New("artifact: Encode: empty kind")
	}
	man := manifest{Version: formatVersion, Kind: a.kind, Members: make(map[string]string, len(a.members))}
	for n, v := range a.members {
		typ, err := memberType(v)
		if err != nil {
			return fmt.Errorf("artifact (%s): Encode: member %q: %w", a.kind, n, err)
		}
		man.Members[n] = typ
	}
	owners, err := layout(man.Members)
	if err != nil {
		return fmt.Errorf("artifact (%s): Encode: %w", a.kind, err)
	}
	for n, v := range a.members {
		if raw, ok := v.(json.RawMessage); ok && !json.Valid(raw) {
			return fmt.Errorf("artifact (%s): Encode: member %q: invalid JSON", a.kind, n)
		}
		if m, ok := v.(*sparse.CSR); ok {
			if err := m.Validate(); err != nil {
				return fmt.Errorf("artifact (%s): Encode: member %q: %w", a.kind, n, err)
			}
		}
	}
	manBytes, err := json.Marshal(man)
	if err != nil {
		return fmt.Errorf("artifact (%s): Encode: manifest: %w", a.kind, err)
	}
	zipOrder := make([]string, 0, len(owners))
	for z := range owners {
		zipOrder = append(zipOrder, z)
	}
	sort.Strings(zipOrder)

	zw := zip.NewWriter(w)
	buf := &scratch{}
	for _, z := range zipOrder {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: z, Method: zip.Store, ModifiedDate: dosDate1980})
		if err != nil {
			return fmt.Errorf("artifact (%s): Encode: %s: %w", a.kind, z, err)
		}
		if z == ManifestName {
			_, err = fw.Write(manBytes)
		} else {
			n := owners[z]
			err = writeMember(fw, z, n, a.members[n], buf)
		}
		if err != nil {
			return fmt.Errorf("artifact (%s): Encode: %s: %w", a.kind, z, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("artifact (%s): Encode: %w", a.kind, err)
	}
	return nil
}

// writeMember writes the zip member z of member name with value v.
func writeMember(w io.Writer, z, name string, v any, buf *scratch) error {
	switch m := v.(type) {
	case *mat.Dense:
		r, c := m.Dims()
		if m.IsEmpty() {
			r, c = 0, 0
		}
		if err := writeNpyHeader(w, "<f8", []int{r, c}); err != nil {
			return err
		}
		raw := m.RawMatrix()
		for i := 0; i < r; i++ {
			if err := writeFloats(w, raw.Data[i*raw.Stride:i*raw.Stride+c], buf); err != nil {
				return err
			}
		}
		return nil
	case []float64:
		if err := writeNpyHeader(w, "<f8", []int{len(m)}); err != nil {
			return err
		}
		return writeFloats(w, m, buf)
	case []int:
		if err := writeNpyHeader(w, "<i8", []int{len(m)}); err != nil {
			return err
		}
		if b, ok := nativeBytes(m, 8); ok {
			_, err := w.Write(b)
			return err
		}
		return writeInts(w, len(m), func(i int) int64 { return int64(m[i]) }, 8, buf)
	case json.RawMessage:
		_, err := w.Write(m)
		return err
	case []byte:
		_, err := w.Write(m)
		return err
	case *sparse.CSR:
		part := strings.TrimSuffix(z, ".npy")
		if name != "" {
			part = strings.TrimPrefix(part, name+".")
		}
		switch part {
		case "data":
			if err := writeNpyHeader(w, "<f8", []int{len(m.Data)}); err != nil {
				return err
			}
			return writeFloats(w, m.Data, buf)
		case "indices":
			if err := writeNpyHeader(w, "<i4", []int{len(m.Indices)}); err != nil {
				return err
			}
			if b, ok := nativeBytes(m.Indices, 4); ok {
				_, err := w.Write(b)
				return err
			}
			return writeInts(w, len(m.Indices), func(i int) int64 { return int64(m.Indices[i]) }, 4, buf)
		case "indptr":
			if err := writeNpyHeader(w, "<i8", []int{len(m.Indptr)}); err != nil {
				return err
			}
			if b, ok := nativeBytes(m.Indptr, 8); ok {
				_, err := w.Write(b)
				return err
			}
			return writeInts(w, len(m.Indptr), func(i int) int64 { return int64(m.Indptr[i]) }, 8, buf)
		case "shape":
			if err := writeNpyHeader(w, "<i8", []int{2}); err != nil {
				return err
			}
			shape := [2]int64{int64(m.Rows), int64(m.Cols)}
			return writeInts(w, 2, func(i int) int64 { return shape[i] }, 8, buf)
		case "format":
			if err := writeNpyHeader(w, "<U3", []int{}); err != nil {
				return err
			}
			var b [12]byte
			for i, r := range "csr" {
				binary.LittleEndian.PutUint32(b[4*i:], uint32(r))
			}
			_, err := w.Write(b[:])
			return err
		}
	}
	return fmt.Errorf("internal error: no writer for %T as %q", v, z)
}

// chunkBytes is the largest conversion buffer used when writing and reading arrays.
const chunkBytes = 64 << 10

// writeNpyHeader writes a version 1.0 .npy header for a C-order array, padded
// with spaces and a newline so the data starts at a multiple of 64 bytes (as numpy does).
func writeNpyHeader(w io.Writer, descr string, shape []int) error {
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
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	var l [2]byte
	binary.LittleEndian.PutUint16(l[:], uint16(len(hdr)))
	b.Write(l[:])
	b.WriteString(hdr)
	_, err := w.Write(b.Bytes())
	return err
}

// scratch is a conversion buffer that grows on demand up to chunkBytes, so
// small artifacts do not pay for a large buffer.
type scratch struct{ b []byte }

// get returns a buffer of min(n, chunkBytes) bytes.
func (s *scratch) get(n int) []byte {
	n = min(n, chunkBytes)
	if cap(s.b) < n {
		s.b = make([]byte, n)
	}
	return s.b[:n]
}

func writeFloats(w io.Writer, v []float64, s *scratch) error {
	if b, ok := nativeBytes(v, 8); ok {
		_, err := w.Write(b)
		return err
	}
	if len(v) == 0 {
		return nil
	}
	buf := s.get(8 * len(v))
	per := len(buf) / 8
	for len(v) > 0 {
		n := min(per, len(v))
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(x))
		}
		if _, err := w.Write(buf[:8*n]); err != nil {
			return err
		}
		v = v[n:]
	}
	return nil
}

func writeInts(w io.Writer, n int, at func(int) int64, size int, s *scratch) error {
	if n == 0 {
		return nil
	}
	buf := s.get(size * n)
	per := len(buf) / size
	for start := 0; start < n; start += per {
		k := min(per, n-start)
		for i := 0; i < k; i++ {
			x := at(start + i)
			if size == 8 {
				binary.LittleEndian.PutUint64(buf[8*i:], uint64(x))
			} else {
				binary.LittleEndian.PutUint32(buf[4*i:], uint32(int32(x)))
			}
		}
		if _, err := w.Write(buf[:size*k]); err != nil {
			return err
		}
	}
	return nil
}

// Decode reads an artifact written by Encode from the size bytes of r. name
// (usually the file's path) is used in error messages, which also name the
// zip member and what was expected. Decode never panics on bad input.
func Decode(r io.ReaderAt, size int64, name string) (*Bundle, error) {
	d := &decoder{file: name}
	a, err := d.decode(r, size)
	if err != nil {
		return nil, err
	}
	return a, nil
}

type decoder struct {
	file string
	buf  scratch
}

func (d *decoder) errf(member string, format string, args ...any) error {
	if member == "" {
		return fmt.Errorf("artifact %s: "+format, append([]any{d.file}, args...)...)
	}
	return fmt.Errorf("artifact %s: member %q: "+format, append([]any{d.file, member}, args...)...)
}

func (d *decoder) decode(r io.ReaderAt, size int64) (*Bundle, error) {
	if size < 0 {
		return nil, d.errf("", "negative size %d", size)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, d.errf("", "not a readable zip archive of %d bytes: %w", size, err)
	}
	files := make(map[string]*zip.File, len(zr.File))
	var total uint64
	for _, f := range zr.File {
		if _, dup := files[f.Name]; dup {
			return nil, d.errf(f.Name, "appears twice in the zip")
		}
		if f.Method != zip.Store {
			return nil, d.errf(f.Name, "compression method %d, want 0 (stored)", f.Method)
		}
		if f.UncompressedSize64 != f.CompressedSize64 || f.UncompressedSize64 > uint64(size) {
			return nil, d.errf(f.Name, "declares %d bytes (%d stored) in a %d-byte file",
				f.UncompressedSize64, f.CompressedSize64, size)
		}
		// Stored members cannot overlap, so together they fit in the file;
		// this bounds what Decode allocates by the file's size.
		total += f.UncompressedSize64
		if total > uint64(size) {
			return nil, d.errf("", "members declare %d bytes or more in a %d-byte file", total, size)
		}
		files[f.Name] = f
	}
	mf, ok := files[ManifestName]
	if !ok {
		return nil, d.errf("", "no manifest %s (not an artifact written by hylaflow)", ManifestName)
	}
	manBytes, err := d.readAll(mf)
	if err != nil {
		return nil, err
	}
	var man manifest
	dec := json.NewDecoder(bytes.NewReader(manBytes))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&man); err != nil {
		return nil, d.errf(ManifestName, "want JSON {version, kind, members}: %w", err)
	}
	if dec.More() {
		return nil, d.errf(ManifestName, "trailing data after the JSON document")
	}
	if man.Version != formatVersion {
		return nil, d.errf(ManifestName, "format version %d, want %d", man.Version, formatVersion)
	}
	if man.Kind == "" {
		return nil, d.errf(ManifestName, "empty kind")
	}
	owners, err := layout(man.Members)
	if err != nil {
		return nil, d.errf(ManifestName, "%w", err)
	}
	var missing, extra []string
	for z := range owners {
		if _, ok := files[z]; !ok {
			missing = append(missing, strconv.Quote(z))
		}
	}
	for z := range files {
		if _, ok := owners[z]; !ok {
			extra = append(extra, strconv.Quote(z))
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	if len(missing) > 0 {
		return nil, d.errf(ManifestName, "lists members stored as %s, which the zip lacks", strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		return nil, d.errf("", "zip members %s are not in the manifest", strings.Join(extra, ", "))
	}

	a := New(man.Kind)
	names := make([]string, 0, len(man.Members))
	for n := range man.Members {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v, err := d.member(files, n, man.Members[n])
		if err != nil {
			return nil, err
		}
		a.members[n] = v
	}
	return a, nil
}

// member decodes one member of the given manifest type.
func (d *decoder) member(files map[string]*zip.File, name, typ string) (any, error) {
	zn := zipNames(name, typ)
	switch typ {
	case typeJSON:
		b, err := d.readAll(files[zn[0]])
		if err != nil {
			return nil, err
		}
		if !json.Valid(b) {
			return nil, d.errf(zn[0], "invalid JSON")
		}
		return json.RawMessage(b), nil
	case typeFile:
		return d.readAll(files[zn[0]])
	case typeDense:
		arr, err := d.readNpy(files[zn[0]], asFloats, "<f8")
		if err != nil {
			return nil, err
		}
		if len(arr.shape) != 2 {
			return nil, d.errf(zn[0], "shape %v, want a 2-D array for dense member %q", arr.shape, name)
		}
		if arr.shape[0] == 0 || arr.shape[1] == 0 {
			return &mat.Dense{}, nil
		}
		return mat.NewDense(arr.shape[0], arr.shape[1], arr.floats), nil
	case typeFloats, typeInts:
		want, as := "<f8", asFloats
		if typ == typeInts {
			want, as = "<i8", asInts
		}
		arr, err := d.readNpy(files[zn[0]], as, want)
		if err != nil {
			return nil, err
		}
		if len(arr.shape) != 1 {
			return nil, d.errf(zn[0], "shape %v, want a 1-D array for %s member %q", arr.shape, typ, name)
		}
		if typ == typeFloats {
			return arr.floats, nil
		}
		return arr.ints, nil
	case typeSparse:
		return d.sparse(files, name, zn)
	}
	return nil, d.errf(ManifestName, "member %q has unknown type %q", name, typ)
}

func (d *decoder) sparse(files map[string]*zip.File, name string, zn []string) (*sparse.CSR, error) {
	q := func(i int) string { return zn[i] }
	// zn follows sparseParts: data, indices, indptr, shape, format.
	format, err := d.readNpy(files[zn[4]], asStrings, "<U3", "|S3")
	if err != nil {
		return nil, err
	}
	if len(format.shape) != 0 || len(format.strs) != 1 || format.strs[0] != "csr" {
		return nil, d.errf(q(4), "format %q of shape %v, want the 0-d string \"csr\"", format.strs, format.shape)
	}
	shape, err := d.readNpy(files[zn[3]], asInts, "<i8", "<i4")
	if err != nil {
		return nil, err
	}
	if len(shape.ints) != 2 || len(shape.shape) != 1 {
		return nil, d.errf(q(3), "shape array %v of shape %v, want 2 elements (rows, cols)", shape.ints, shape.shape)
	}
	rows, cols := shape.ints[0], shape.ints[1]
	if rows < 0 || cols < 0 || cols > math.MaxInt32+1 || rows >= math.MaxInt32*(1<<16) {
		return nil, d.errf(q(3), "matrix shape %d×%d out of range", rows, cols)
	}
	indptr, err := d.readNpy(files[zn[2]], asInts, "<i8", "<i4")
	if err != nil {
		return nil, err
	}
	if len(indptr.shape) != 1 || len(indptr.ints) != rows+1 {
		return nil, d.errf(q(2), "%d elements of shape %v, want rows+1 = %d", len(indptr.ints), indptr.shape, rows+1)
	}
	indices, err := d.readNpy(files[zn[1]], asInt32s, "<i4", "<i8")
	if err != nil {
		return nil, err
	}
	data, err := d.readNpy(files[zn[0]], asFloats, "<f8")
	if err != nil {
		return nil, err
	}
	if len(indices.shape) != 1 || len(data.shape) != 1 {
		return nil, d.errf("", "sparse member %q: indices of shape %v and data of shape %v, want 1-D arrays",
			name, indices.shape, data.shape)
	}
	m := &sparse.CSR{Rows: rows, Cols: cols, Indptr: indptr.ints, Indices: indices.i32, Data: data.floats}
	if err := m.Validate(); err != nil {
		return nil, d.errf("", "sparse member %q (%s): %w", name, strings.Join(zn, ", "), err)
	}
	return m, nil
}

// readAll reads a whole zip member, verifying its CRC-32.
func (d *decoder) readAll(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, d.errf(f.Name, "%w", err)
	}
	defer rc.Close()
	b := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, d.errf(f.Name, "reading %d bytes: %w", len(b), err)
	}
	if err := d.atEOF(rc, f.Name); err != nil {
		return nil, err
	}
	return b, nil
}

// atEOF reads past the end of a zip member so archive/zip checks its CRC-32.
func (d *decoder) atEOF(rc io.Reader, name string) error {
	var one [1]byte
	n, err := rc.Read(one[:])
	if n > 0 {
		return d.errf(name, "more bytes than declared")
	}
	if err != io.EOF {
		return d.errf(name, "checking the end of the member: %w", err)
	}
	return nil
}

// npyTarget selects the Go type a .npy member decodes into.
type npyTarget int

const (
	asFloats  npyTarget = iota // []float64 from <f8
	asInts                     // []int from <i8 or <i4
	asInt32s                   // []int32 from <i4, or <i8 within int32's range
	asStrings                  // []string from <U3 or |S3
)

// npyArray is a decoded .npy member; only the field of its target is set.
type npyArray struct {
	shape  []int
	floats []float64
	ints   []int
	i32    []int32
	strs   []string
}

// readNpy decodes a .npy zip member whose dtype must be one of descrs.
func (d *decoder) readNpy(f *zip.File, as npyTarget, descrs ...string) (*npyArray, error) {
	qname := f.Name
	fail := func(off int64, format string, args ...any) error {
		return d.errf(qname, "byte %d: "+format, append([]any{off}, args...)...)
	}
	size := int64(f.UncompressedSize64)
	rc, err := f.Open()
	if err != nil {
		return nil, d.errf(qname, "%w", err)
	}
	defer rc.Close()
	var pre [12]byte
	if size < 10 {
		return nil, fail(0, "%d bytes, too short for a .npy array", size)
	}
	if _, err := io.ReadFull(rc, pre[:10]); err != nil {
		return nil, fail(0, "reading the .npy preamble: %w", err)
	}
	if string(pre[:6]) != "\x93NUMPY" {
		return nil, fail(0, "magic %q, want \"\\x93NUMPY\" (a .npy array)", pre[:6])
	}
	var hlen, off int64
	switch pre[6] {
	case 1:
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		if _, err := io.ReadFull(rc, pre[10:12]); err != nil {
			return nil, fail(10, "reading the header length: %w", err)
		}
		hlen, off = int64(binary.LittleEndian.Uint32(pre[8:12])), 12
	default:
		return nil, fail(6, ".npy format version %d.%d, want 1.0, 2.0 or 3.0", pre[6], pre[7])
	}
	if hlen > size-off || hlen > 1<<16 {
		return nil, fail(off, "header length %d, but %d bytes follow", hlen, size-off)
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(rc, hdr); err != nil {
		return nil, fail(off, "reading the %d-byte header: %w", hlen, err)
	}
	descr, fortran, shape, err := parseNpyHeader(string(hdr))
	if err != nil {
		return nil, fail(off, "header %q: %w", truncateString(string(hdr), 100), err)
	}
	if fortran && len(shape) > 1 {
		return nil, fail(off, "fortran_order is True, want C order")
	}
	ok := false
	for _, want := range descrs {
		ok = ok || descr == want
	}
	if !ok {
		return nil, fail(off, "dtype %q, want %s", descr, strings.Join(quoteAll(descrs), " or "))
	}
	off += hlen
	isize := int64(8)
	switch descr {
	case "<i4":
		isize = 4
	case "<U3":
		isize = 12
	case "|S3":
		isize = 3
	}
	n := int64(1)
	if slices.Contains(shape, 0) {
		n = 0
	}
	for _, dim := range shape {
		if n > 0 && n > (size-off)/int64(dim) {
			return nil, fail(off, "shape %v of %s needs more than the %d data bytes present", shape, descr, size-off)
		}
		n *= int64(dim)
	}
	if n*isize != size-off {
		return nil, fail(off, "shape %v of %s needs %d data bytes, the member has %d", shape, descr, n*isize, size-off)
	}
	arr := &npyArray{shape: shape}
	switch descr {
	case "<U3", "|S3":
		b := make([]byte, n*isize)
		if _, err := io.ReadFull(rc, b); err != nil {
			return nil, fail(off, "reading %d data bytes: %w", len(b), err)
		}
		for i := int64(0); i < n; i++ {
			e := b[i*isize : (i+1)*isize]
			var s string
			if descr == "|S3" {
				s = strings.TrimRight(string(e), "\x00")
			} else {
				var sb strings.Builder
				for c := 0; c < 3; c++ {
					r := rune(binary.LittleEndian.Uint32(e[4*c:]))
					if r == 0 {
						break
					}
					if !utf8.ValidRune(r) {
						return nil, fail(off+i*isize, "invalid code point %d", r)
					}
					sb.WriteRune(r)
				}
				s = sb.String()
			}
			arr.strs = append(arr.strs, s)
		}
	case "<f8":
		arr.floats = make([]float64, n)
		if b, ok := nativeBytes(arr.floats, 8); ok {
			_, err = io.ReadFull(rc, b)
			break
		}
		err = d.readChunks(rc, n, 8, func(i int64, b []byte) error {
			arr.floats[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			return nil
		})
	case "<i8", "<i4":
		var get func([]byte) int64
		if isize == 8 {
			get = func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }
		} else {
			get = func(b []byte) int64 { return int64(int32(binary.LittleEndian.Uint32(b))) }
		}
		if as == asInt32s {
			arr.i32 = make([]int32, n)
			if b, ok := nativeBytes(arr.i32, int(isize)); ok {
				_, err = io.ReadFull(rc, b)
				break
			}
			err = d.readChunks(rc, n, isize, func(i int64, b []byte) error {
				x := get(b)
				if x < math.MinInt32 || x > math.MaxInt32 {
					return fmt.Errorf("element %d = %d does not fit int32", i, x)
				}
				arr.i32[i] = int32(x)
				return nil
			})
		} else {
			arr.ints = make([]int, n)
			if b, ok := nativeBytes(arr.ints, int(isize)); ok {
				_, err = io.ReadFull(rc, b)
				break
			}
			err = d.readChunks(rc, n, isize, func(i int64, b []byte) error {
				x := get(b)
				if int64(int(x)) != x {
					return fmt.Errorf("element %d = %d does not fit int", i, x)
				}
				arr.ints[i] = int(x)
				return nil
			})
		}
	}
	if err != nil {
		return nil, fail(off, "reading %d data bytes: %w", n*isize, err)
	}
	if err := d.atEOF(rc, f.Name); err != nil {
		return nil, err
	}
	return arr, nil
}

func (d *decoder) readChunks(r io.Reader, n, isize int64, put func(int64, []byte) error) error {
	if n == 0 {
		return nil
	}
	buf := d.buf.get(int(n * isize))
	per := int64(len(buf)) / isize
	for start := int64(0); start < n; start += per {
		k := min(per, n-start)
		b := buf[:k*isize]
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		for i := int64(0); i < k; i++ {
			if err := put(start+i, b[i*isize:]); err != nil {
				return err
			}
		}
	}
	return nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// parseNpyHeader parses the Python dict literal of a .npy header:
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }.
func parseNpyHeader(h string) (descr string, fortran bool, shape []int, err error) {
	s := strings.TrimRight(h, " \n")
	i := 0
	space := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\n') {
			i++
		}
	}
	eat := func(c byte) bool {
		space()
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	str := func() (string, error) {
		space()
		if i >= len(s) || (s[i] != '\'' && s[i] != '"') {
			return "", fmt.Errorf("expected a string at header position %d", i)
		}
		q := s[i]
		end := strings.IndexByte(s[i+1:], q)
		if end < 0 {
			return "", fmt.Errorf("unterminated string at header position %d", i)
		}
		v := s[i+1 : i+1+end]
		i += end + 2
		return v, nil
	}
	if !eat('{') {
		return "", false, nil, errors.New("does not start with '{'")
	}
	seen := map[string]bool{}
	for !eat('}') {
		key, err := str()
		if err != nil {
			return "", false, nil, err
		}
		if seen[key] {
			return "", false, nil, fmt.Errorf("key %q twice", key)
		}
		seen[key] = true
		if !eat(':') {
			return "", false, nil, fmt.Errorf("expected ':' after key %q", key)
		}
		space()
		switch key {
		case "descr":
			descr, err = str()
		case "fortran_order":
			switch {
			case strings.HasPrefix(s[i:], "True"):
				fortran, i = true, i+4
			case strings.HasPrefix(s[i:], "False"):
				i += 5
			default:
				err = fmt.Errorf("expected True or False at header position %d", i)
			}
		case "shape":
			shape, err = func() ([]int, error) {
				if !eat('(') {
					return nil, fmt.Errorf("expected '(' at header position %d", i)
				}
				dims := []int{}
				for !eat(')') {
					space()
					start := i
					for i < len(s) && s[i] >= '0' && s[i] <= '9' {
						i++
					}
					if i == start || i-start > 15 {
						return nil, fmt.Errorf("bad dimension at header position %d", start)
					}
					v, _ := strconv.Atoi(s[start:i])
					dims = append(dims, v)
					if len(dims) > 32 {
						return nil, errors.New("more than 32 dimensions")
					}
					if !eat(',') {
						if !eat(')') {
							return nil, fmt.Errorf("expected ',' or ')' at header position %d", i)
						}
						break
					}
				}
				return dims, nil
			}()
		default:
			err = fmt.Errorf("unexpected key %q", key)
		}
		if err != nil {
			return "", false, nil, err
		}
		if !eat(',') {
			if !eat('}') {
				return "", false, nil, fmt.Errorf("expected ',' or '}' at header position %d", i)
			}
			break
		}
	}
	if i != len(s) {
		return "", false, nil, fmt.Errorf("trailing characters at header position %d", i)
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return "", false, nil, fmt.Errorf("no %q key", k)
		}
	}
	return descr, fortran, shape, nil
}

// WriteMember writes one member of a as a file other tools open, and
// returns that file's usual extension: a sparse matrix as the members of
// scipy.sparse.save_npz (an artifact holding only that matrix under the
// empty name, so scipy.sparse.load_npz and numpy.load read it; ".npz"), a
// dense matrix or a vector as one .npy array (numpy.load; ".npy"), a JSON
// member as its document (".json") and a file member as its bytes (its own
// extension, "" if none).
func WriteMember(w io.Writer, a *Bundle, name string) (ext string, err error) {
	v, ok := a.Member(name)
	if !ok {
		return "", fmt.Errorf("artifact (%s): no member %q (have %v)", a.kind, name, a.Names())
	}
	switch m := v.(type) {
	case *sparse.CSR:
		one := New(a.kind)
		one.SetSparse("", m)
		return ".npz", Encode(w, one)
	case json.RawMessage:
		_, err := w.Write(m)
		return ".json", err
	case []byte:
		_, err := w.Write(m)
		ext := ""
		if i := strings.LastIndexByte(name, '.'); i >= 0 && !strings.Contains(name[i:], "/") {
			ext = name[i:]
		}
		return ext, err
	}
	if err := writeMember(w, name+".npy", name, v, &scratch{}); err != nil {
		return "", fmt.Errorf("artifact (%s): member %q: %w", a.kind, name, err)
	}
	return ".npy", nil
}
