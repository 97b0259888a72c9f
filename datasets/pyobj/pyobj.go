// Package pyobj reads the Python pickles of the benchmark datasets (Planetoid's
// ind.* files, HGCN's airport.p) into Go values with nlpodyssey/gopickle.
//
// Only a fixed set of classes can appear: numpy arrays and dtypes, scipy's
// csr_matrix, collections.defaultdict, networkx.Graph and a few builtins.
// Any other class is an error, so a pickle can never make the reader run
// anything. Before unpickling, the opcode stream is checked so that no
// length field exceeds the bytes present (a corrupt file cannot make the
// reader allocate gigabytes), and a panic inside the unpickler is turned
// into an error naming the file and the byte offset.
package pyobj

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
	"gonum.org/v1/gonum/mat"
)

// MaxFileSize bounds the pickles this package reads (1 GiB).
const MaxFileSize = 1 << 30

// Error is an unpickling error at a byte offset of a file.
type Error struct {
	File   string
	Offset int64
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	// A pickle's strings (GLOBAL names, …) end up in messages printed to
	// a terminal: control characters must not reach it raw.
	return Printable(s)
}

// Printable returns s with every byte or rune a terminal would interpret
// (control characters, escape sequences, invalid UTF-8, non-printable
// runes) written as a Go escape (\x1b, \u200b, …); printable text,
// spaces included, stays as it is.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case unicode.IsPrint(r):
			b.WriteString(s[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
		i += n
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// LoadFile unpickles the file at path.
func LoadFile(path string) (any, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("file of %d bytes exceeds the %d-byte limit", st.Size(), MaxFileSize)}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Load(data, path)
}

// Load unpickles data; name identifies it in errors.
func Load(data []byte, name string) (v any, err error) {
	if err := Check(data); err != nil {
		if pe, ok := err.(*Error); ok {
			pe.File = name
			return nil, pe
		}
		return nil, &Error{File: name, Msg: "corrupt pickle", Err: err}
	}
	r := bytes.NewReader(data)
	u := pickle.NewUnpickler(r)
	u.FindClass = findClass
	defer func() {
		if p := recover(); p != nil {
			v = nil
			err = &Error{File: name, Offset: int64(len(data) - r.Len()), Msg: fmt.Sprintf("malformed pickle (%v)", p)}
		}
	}()
	v, err = u.Load()
	if err != nil {
		return nil, &Error{File: name, Offset: int64(len(data) - r.Len()), Msg: "unpickling", Err: err}
	}
	return v, nil
}

// findClass maps the GLOBAL names the datasets use to Go types.
func findClass(module, name string) (any, error) {
	switch module + "." + name {
	case "numpy.core.multiarray._reconstruct", "numpy._core.multiarray._reconstruct":
		return reconstructFunc{}, nil
	case "numpy.ndarray":
		return ndarrayClass{}, nil
	case "numpy.dtype":
		return dtypeClass{}, nil
	case "scipy.sparse.csr.csr_matrix", "scipy.sparse._csr.csr_matrix":
		return csrClass{}, nil
	case "collections.defaultdict":
		return defaultDictClass{}, nil
	case "networkx.classes.graph.Graph":
		return graphClass{}, nil
	case "networkx.classes.reportviews.NodeView", "networkx.classes.reportviews.EdgeView",
		"networkx.classes.reportviews.DegreeView", "networkx.classes.reportviews.AdjacencyView":
		// cached views networkx keeps on the instance; their state is ignored
		return inertClass(module + "." + name), nil
	case "__builtin__.list", "builtins.list", "__builtin__.dict", "builtins.dict",
		"__builtin__.set", "builtins.set", "__builtin__.int", "builtins.int":
		return builtinFactory(name), nil
	}
	return nil, fmt.Errorf("class %s is not allowed in dataset pickles", Printable(module+"."+name))
}

// builtinFactory stands for a builtin type used as a factory (defaultdict(list),
// networkx's dict factories); it is never called.
type builtinFactory string

// inertClass makes placeholder objects whose state is dropped.
type inertClass string

func (c inertClass) PyNew(args ...any) (any, error) { return &inert{class: string(c)}, nil }

type inert struct{ class string }

func (*inert) PyDictSet(key, value any) error { return nil }

type reconstructFunc struct{}

// Call implements numpy.core.multiarray._reconstruct(ndarray, (0,), b'b').
func (reconstructFunc) Call(args ...any) (any, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("_reconstruct: no arguments")
	}
	if _, ok := args[0].(ndarrayClass); !ok {
		return nil, fmt.Errorf("_reconstruct: first argument is %T, want numpy.ndarray", args[0])
	}
	return &NDArray{}, nil
}

type ndarrayClass struct{}

func (ndarrayClass) PyNew(args ...any) (any, error) { return &NDArray{}, nil }

// Dtype is a numpy dtype: its type string ("f8", "i4", "O8"...) and byte order.
type Dtype struct {
	Str   string
	Order string // "<", ">", "|" or "="
}

type dtypeClass struct{}

func (dtypeClass) Call(args ...any) (any, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("numpy.dtype: no arguments")
	}
	s, ok := asString(args[0])
	if !ok {
		return nil, fmt.Errorf("numpy.dtype: argument is %T, want a string", args[0])
	}
	return &Dtype{Str: s, Order: "|"}, nil
}

// PySetState receives (version, byteorder, subarray, names, fields, elsize, alignment, flags).
func (d *Dtype) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() < 2 {
		return fmt.Errorf("numpy.dtype state is %T, want a tuple", state)
	}
	o, ok := asString(t.Get(1))
	if !ok {
		return fmt.Errorf("numpy.dtype state: byte order is %T", t.Get(1))
	}
	d.Order = o
	return nil
}

// Descr returns the dtype as a .npy descr string such as "<f8".
func (d *Dtype) Descr() string {
	o := d.Order
	if o == "=" || o == "" {
		o = "<"
	}
	return o + d.Str
}

// NDArray is a numpy array read from a pickle.
type NDArray struct {
	Shape   []int
	Dtype   *Dtype
	Fortran bool
	Raw     []byte // the array's bytes; read-only (may share memory with an immutable string)
}

// PySetState receives (version, shape, dtype, is_fortran, rawdata).
func (a *NDArray) PySetState(state any) error {
	t, ok := state.(*types.Tuple)
	if !ok || t.Len() != 5 {
		return fmt.Errorf("numpy.ndarray state is %T, want a 5-tuple", state)
	}
	shape, ok := t.Get(1).(*types.Tuple)
	if !ok {
		return fmt.Errorf("numpy.ndarray state: shape is %T, want a tuple", t.Get(1))
	}
	for i := 0; i < shape.Len(); i++ {
		d, ok := asInt(shape.Get(i))
		if !ok || d < 0 {
			return fmt.Errorf("numpy.ndarray state: dimension %d is %v", i, shape.Get(i))
		}
		a.Shape = append(a.Shape, d)
	}
	dt, ok := t.Get(2).(*Dtype)
	if !ok {
		return fmt.Errorf("numpy.ndarray state: dtype is %T", t.Get(2))
	}
	a.Dtype = dt
	f, ok := t.Get(3).(bool)
	if !ok {
		return fmt.Errorf("numpy.ndarray state: is_fortran is %T", t.Get(3))
	}
	a.Fortran = f
	switch raw := t.Get(4).(type) {
	case string:
		// A read-only view of the pickle's string, not a copy (the
		// arrays' payload is most of a dataset file).
		a.Raw = unsafe.Slice(unsafe.StringData(raw), len(raw))
	case []byte:
		a.Raw = raw
	case *types.ByteArray:
		a.Raw = []byte(*raw)
	default:
		return fmt.Errorf("numpy.ndarray state: data is %T (object arrays are not supported)", raw)
	}
	return nil
}

// Array decodes the raw buffer.
func (a *NDArray) Array() (*npy.Array, error) {
	if a.Dtype == nil {
		return nil, fmt.Errorf("numpy array without a dtype")
	}
	arr, err := npy.DecodeRaw(a.Raw, a.Dtype.Descr(), a.Shape)
	if err != nil {
		return nil, fmt.Errorf("numpy array %v %s: %w", a.Shape, a.Dtype.Descr(), err)
	}
	if a.Fortran && len(a.Shape) == 2 {
		r, c := a.Shape[0], a.Shape[1]
		arr.Floats = fortranToC(arr.Floats, r, c)
		arr.Ints = fortranToC(arr.Ints, r, c)
		arr.Strings = fortranToC(arr.Strings, r, c)
	}
	return arr, nil
}

// fortranToC reorders the r×c elements of a column-major array row-major
// (nil, for an element kind the array does not hold, stays nil).
func fortranToC[T any](v []T, r, c int) []T {
	if len(v) != r*c {
		return v
	}
	t := make([]T, len(v))
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			t[i*c+j] = v[j*r+i]
		}
	}
	return t
}

// Dense decodes a 2-D numeric array as a matrix.
func (a *NDArray) Dense() (*mat.Dense, error) {
	arr, err := a.Array()
	if err != nil {
		return nil, err
	}
	if len(arr.Shape) != 2 {
		return nil, fmt.Errorf("numpy array of shape %v is not 2-D", arr.Shape)
	}
	return arr.Dense()
}

type csrClass struct{}

func (csrClass) PyNew(args ...any) (any, error) { return &CSRMatrix{attrs: map[string]any{}}, nil }

// CSRMatrix is a scipy.sparse.csr_matrix read from a pickle.
type CSRMatrix struct {
	attrs map[string]any
}

// PyDictSet receives the instance attributes (_shape, data, indices, indptr...).
func (m *CSRMatrix) PyDictSet(key, value any) error {
	k, ok := asString(key)
	if !ok {
		return fmt.Errorf("csr_matrix attribute name is %T", key)
	}
	m.attrs[k] = value
	return nil
}

// CSR converts the matrix, checking its structure.
func (m *CSRMatrix) CSR() (*sparse.CSR, error) {
	shapeV, ok := m.attrs["_shape"]
	if !ok {
		shapeV = m.attrs["shape"]
	}
	shape, ok := shapeV.(*types.Tuple)
	if !ok || shape.Len() != 2 {
		return nil, fmt.Errorf("csr_matrix: _shape is %T, want a pair", shapeV)
	}
	rows, ok1 := asInt(shape.Get(0))
	cols, ok2 := asInt(shape.Get(1))
	if !ok1 || !ok2 || rows < 0 || cols < 0 || rows > 1<<31-1 || cols > 1<<31-1 {
		return nil, fmt.Errorf("csr_matrix: bad shape %v", *shape)
	}
	array := func(name string) (*NDArray, error) {
		v, ok := m.attrs[name].(*NDArray)
		if !ok {
			return nil, fmt.Errorf("csr_matrix: %s is %T, want a numpy array", name, m.attrs[name])
		}
		if len(v.Shape) != 1 {
			return nil, fmt.Errorf("csr_matrix: %s has shape %v, want 1-D", name, v.Shape)
		}
		if v.Dtype == nil {
			return nil, fmt.Errorf("csr_matrix: %s: numpy array without a dtype", name)
		}
		return v, nil
	}
	// Index arrays are decoded as integers only (no float copy).
	ints := func(name string) ([]int64, error) {
		v, err := array(name)
		if err != nil {
			return nil, err
		}
		d := v.Dtype.Descr()
		if len(d) < 2 || (d[1] != 'i' && d[1] != 'u' && d[1] != 'b') {
			return nil, fmt.Errorf("csr_matrix: indices/indptr must be integers and data numeric (%s is %s)", name, d)
		}
		out, err := npy.DecodeRawInts(v.Raw, d, v.Shape)
		if err != nil {
			return nil, fmt.Errorf("csr_matrix: %s: numpy array %v %s: %w", name, v.Shape, d, err)
		}
		return out, nil
	}
	dv, err := array("data")
	if err != nil {
		return nil, err
	}
	data, err := dv.Array()
	if err != nil {
		return nil, fmt.Errorf("csr_matrix: data: %w", err)
	}
	indices, err := ints("indices")
	if err != nil {
		return nil, err
	}
	indptr, err := ints("indptr")
	if err != nil {
		return nil, err
	}
	if data.Floats == nil && data.Len() > 0 {
		return nil, fmt.Errorf("csr_matrix: indices/indptr must be integers and data numeric")
	}
	nnz := len(data.Floats)
	if len(indices) != nnz || len(indptr) != rows+1 {
		return nil, fmt.Errorf("csr_matrix: %d values, %d indices, %d indptr entries for %d rows", nnz, len(indices), len(indptr), rows)
	}
	if indptr[0] != 0 || indptr[rows] != int64(nnz) {
		return nil, fmt.Errorf("csr_matrix: indptr runs from %d to %d, want 0 to %d", indptr[0], indptr[rows], nnz)
	}
	// data.Floats was decoded for this call alone: the CSR takes it over.
	out := &sparse.CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1),
		Indices: make([]int32, nnz), Data: data.Floats}
	for i := 0; i < rows; i++ {
		lo, hi := indptr[i], indptr[i+1]
		if hi < lo || hi > int64(nnz) {
			return nil, fmt.Errorf("csr_matrix: indptr[%d] = %d is not in [indptr[%d] = %d, nnz = %d]", i+1, hi, i, lo, nnz)
		}
		out.Indptr[i+1] = int(hi)
	}
	for p, c := range indices {
		if c < 0 || c >= int64(cols) {
			return nil, fmt.Errorf("csr_matrix: column index %d at position %d out of range [0,%d)", c, p, cols)
		}
		out.Indices[p] = int32(c)
	}
	if out.Data == nil {
		out.Data = []float64{}
	}
	// Rows with unsorted or repeated columns are sorted and summed, as
	// FromCOO does (scipy allows both).
	return out.Canonical(), nil
}

type defaultDictClass struct{}

// Call implements collections.defaultdict(factory): a plain dict here.
func (defaultDictClass) Call(args ...any) (any, error) { return types.NewDict(), nil }

type graphClass struct{}

func (graphClass) PyNew(args ...any) (any, error) { return &Graph{attrs: map[string]any{}}, nil }

// Graph is a networkx.Graph read from a pickle.
type Graph struct {
	attrs map[string]any
}

// PyDictSet receives the instance attributes (_node, _adj, graph...).
func (g *Graph) PyDictSet(key, value any) error {
	k, ok := asString(key)
	if !ok {
		return fmt.Errorf("networkx.Graph attribute name is %T", key)
	}
	g.attrs[k] = value
	return nil
}

// Nodes returns the node dict {node: attribute dict}, networkx 2.x (_node) or 1.x (node).
func (g *Graph) Nodes() (*types.Dict, error) {
	for _, k := range []string{"_node", "node"} {
		if d, ok := g.attrs[k].(*types.Dict); ok {
			return d, nil
		}
	}
	return nil, fmt.Errorf("networkx.Graph: no node dict (_node)")
}

// Adj returns the adjacency dict {u: {v: edge attribute dict}}.
func (g *Graph) Adj() (*types.Dict, error) {
	for _, k := range []string{"_adj", "adj"} {
		if d, ok := g.attrs[k].(*types.Dict); ok {
			return d, nil
		}
	}
	return nil, fmt.Errorf("networkx.Graph: no adjacency dict (_adj)")
}

// asString accepts a Python str (Go string) or bytes.
func asString(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case []byte:
		return string(s), true
	}
	return "", false
}

// AsInt converts a Python int (int or *big.Int) to int.
func AsInt(v any) (int, bool) { return asInt(v) }

func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case *big.Int:
		if x.IsInt64() {
			return int(x.Int64()), true
		}
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// AsFloat converts a Python float or int to float64.
func AsFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

// DictGet returns d[key] for a string key.
func DictGet(d *types.Dict, key string) (any, bool) {
	for _, e := range *d {
		if s, ok := asString(e.Key); ok && s == key {
			return e.Value, true
		}
	}
	return nil, false
}
