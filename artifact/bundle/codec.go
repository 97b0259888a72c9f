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
//
// The .npy headers and array data are written and read by package
// datasets/npy, the project's one NumPy codec (the dataset loaders use it
// too); this file lays out the zip and checks what each member must be.

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
	"github.com/hylaflow/hylaflow/datasets/npy"
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
	case *compressedDense:
		return typeDense, nil
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
		Shapes: Shapes,
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
		if c, ok := v.(*compressedDense); ok {
			if err := c.check(); err != nil {
				return fmt.Errorf("artifact (%s): Encode: dense member %q given by its rows: %w", a.kind, n, err)
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
	for _, z := range zipOrder {
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: z, Method: zip.Store, ModifiedDate: dosDate1980})
		if err != nil {
			return fmt.Errorf("artifact (%s): Encode: %s: %w", a.kind, z, err)
		}
		if z == ManifestName {
			_, err = fw.Write(manBytes)
		} else {
			n := owners[z]
			err = writeMember(fw, z, n, a.members[n])
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
func writeMember(w io.Writer, z, name string, v any) error {
	switch m := v.(type) {
	case *compressedDense:
		return m.writeRows(w)
	case *mat.Dense:
		r, c := m.Dims()
		if m.IsEmpty() {
			r, c = 0, 0
		}
		if err := npy.WriteHeader(w, "<f8", []int{r, c}); err != nil {
			return err
		}
		raw := m.RawMatrix()
		if raw.Stride == c {
			return npy.WriteFloat64s(w, raw.Data[:r*c])
		}
		for i := 0; i < r; i++ {
			if err := npy.WriteFloat64s(w, raw.Data[i*raw.Stride:i*raw.Stride+c]); err != nil {
				return err
			}
		}
		return nil
	case []float64:
		if err := npy.WriteHeader(w, "<f8", []int{len(m)}); err != nil {
			return err
		}
		return npy.WriteFloat64s(w, m)
	case []int:
		if err := npy.WriteHeader(w, "<i8", []int{len(m)}); err != nil {
			return err
		}
		return npy.WriteInts(w, m)
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
			if err := npy.WriteHeader(w, "<f8", []int{len(m.Data)}); err != nil {
				return err
			}
			return npy.WriteFloat64s(w, m.Data)
		case "indices":
			if err := npy.WriteHeader(w, "<i4", []int{len(m.Indices)}); err != nil {
				return err
			}
			return npy.WriteInt32s(w, m.Indices)
		case "indptr":
			if err := npy.WriteHeader(w, "<i8", []int{len(m.Indptr)}); err != nil {
				return err
			}
			return npy.WriteInts(w, m.Indptr)
		case "shape":
			if err := npy.WriteHeader(w, "<i8", []int{2}); err != nil {
				return err
			}
			return npy.WriteInts(w, []int{m.Rows, m.Cols})
		case "format":
			if err := npy.WriteHeader(w, "<U3", []int{}); err != nil {
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
		if f := files[zn[0]]; int64(f.UncompressedSize64) >= compressMinBytes {
			m, ok, err := d.readDenseCompressed(f)
			if err != nil {
				return nil, err
			}
			if ok {
				return &compressedDense{rows: m}, nil
			}
		}
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

// npyFail reports a problem at a byte offset of a .npy zip member.
type npyFail func(off int64, format string, args ...any) error

// openNpy opens the .npy zip member f and reads its header, which must
// announce C order (for more than one dimension), one of the dtypes descrs
// and exactly the data bytes the member holds. The reader is left at the
// start of the data; the caller closes it.
func (d *decoder) openNpy(f *zip.File, descrs ...string) (io.ReadCloser, *npy.Header, npyFail, error) {
	qname := f.Name
	fail := func(off int64, format string, args ...any) error {
		return d.errf(qname, "byte %d: "+format, append([]any{off}, args...)...)
	}
	size := int64(f.UncompressedSize64)
	rc, err := f.Open()
	if err != nil {
		return nil, nil, nil, d.errf(qname, "%w", err)
	}
	h, err := npy.ReadHeader(rc, size, d.file, qname)
	if err == nil && h.Fortran && len(h.Shape) > 1 {
		err = fail(h.HeaderOffset, "fortran_order is True, want C order")
	} else if err == nil && !slices.Contains(descrs, h.Descr) {
		err = fail(h.HeaderOffset, "dtype %q, want %s", h.Descr, strings.Join(quoteAll(descrs), " or "))
	} else if err == nil && h.DataBytes() != size-h.DataOffset {
		err = fail(h.DataOffset, "shape %v of %s needs %d data bytes, the member has %d", h.Shape, h.Descr, h.DataBytes(), size-h.DataOffset)
	} else if err != nil {
		var e *npy.Error
		switch {
		case !errors.As(err, &e):
			err = d.errf(qname, "%w", err)
		case e.Err != nil:
			err = fail(e.Offset, "%s: %w", e.Msg, e.Err)
		default:
			err = fail(e.Offset, "%s", e.Msg)
		}
	}
	if err != nil {
		rc.Close()
		return nil, nil, nil, err
	}
	return rc, h, fail, nil
}

// readNpy decodes a .npy zip member whose dtype must be one of descrs
// (package npy reads the header and the data).
func (d *decoder) readNpy(f *zip.File, as npyTarget, descrs ...string) (*npyArray, error) {
	rc, h, fail, err := d.openNpy(f, descrs...)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	off := h.DataOffset
	arr := &npyArray{shape: h.Shape}
	switch {
	case h.Kind == 'U' || h.Kind == 'S':
		raw := make([]byte, h.DataBytes())
		if _, err = io.ReadFull(rc, raw); err == nil {
			var a *npy.Array
			if a, err = npy.DecodeRaw(raw, h.Descr, h.Shape); err == nil {
				arr.strs = a.Strings
			}
		}
	case as == asFloats:
		arr.floats, err = npy.ReadFloat64s(rc, h)
	case as == asInt32s:
		arr.i32, err = npy.ReadInt32s(rc, h)
	default:
		arr.ints, err = npy.ReadInts(rc, h)
	}
	if err != nil {
		return nil, fail(off, "reading %d data bytes: %w", h.DataBytes(), err)
	}
	if err := d.atEOF(rc, f.Name); err != nil {
		return nil, err
	}
	return arr, nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = strconv.Quote(x)
	}
	return out
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
	if err := writeMember(w, name+".npy", name, v); err != nil {
		return "", fmt.Errorf("artifact (%s): member %q: %w", a.kind, name, err)
	}
	return ".npy", nil
}

// Shapes returns the shapes of a bundle's arrays by member name without
// reading their data: a dense matrix or vector the shape in its .npy
// header, a sparse matrix NAME its (rows, cols) from its small shape array
// and, as NAME.data, the length of its data array (the stored entries, for
// memory estimates). A small JSON member NAME (at most shapesJSONMax
// bytes, an object) adds NAME.FIELD = {v} for each top-level field whose
// value is a whole number v ≥ 0 or a boolean (1 true, 0 false), such as
// info.classes: sizes an estimate cannot read from any array. Files are
// left out.
func Shapes(r io.ReaderAt, size int64) (map[string][]int, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: "bundle"}
	out := map[string][]int{}
	for _, f := range zr.File {
		if f.Method != zip.Store {
			continue
		}
		if base, ok := strings.CutSuffix(f.Name, ".json"); ok && !strings.HasPrefix(base, "__") {
			jsonShapes(f, base, out)
			continue
		}
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			continue
		}
		if base, ok := strings.CutSuffix(name, ".shape"); ok {
			arr, err := d.readNpy(f, asInts, "<i8", "<i4")
			if err == nil && len(arr.ints) == 2 {
				out[base] = []int{arr.ints[0], arr.ints[1]}
			}
			continue
		}
		if strings.HasSuffix(name, ".indices") || strings.HasSuffix(name, ".indptr") || strings.HasSuffix(name, ".format") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			continue
		}
		h, err := npy.ReadHeader(rc, int64(f.UncompressedSize64), "bundle", f.Name)
		rc.Close()
		if err == nil {
			out[name] = h.Shape
		}
	}
	return out, nil
}

// shapesJSONMax is the largest JSON member Shapes reads for its numbers.
const shapesJSONMax = 4 << 10

// jsonShapes adds to out, as base.FIELD = {v}, the whole-number fields
// v ≥ 0 and the booleans (v = 1 or 0) of the JSON object in f, when f is
// at most shapesJSONMax bytes.
// Anything else (a larger member, bad JSON, an array) adds nothing.
func jsonShapes(f *zip.File, base string, out map[string][]int) {
	if f.UncompressedSize64 > shapesJSONMax {
		return
	}
	rc, err := f.Open()
	if err != nil {
		return
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, shapesJSONMax+1))
	if err != nil || len(b) > shapesJSONMax {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil {
		return
	}
	for k, v := range obj {
		switch v := v.(type) {
		case json.Number:
			if i, err := strconv.ParseInt(string(v), 10, 0); err == nil && i >= 0 {
				out[base+"."+k] = []int{int(i)}
			}
		case bool:
			out[base+"."+k] = []int{0}
			if v {
				out[base+"."+k][0] = 1
			}
		}
	}
}
