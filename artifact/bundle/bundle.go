// Package bundle is the artifact format of the built-in stages: a Bundle
// of named members (dense matrices, vectors, sparse matrices, JSON documents
// and raw files) with a Kind. It is encoded as an uncompressed,
// deterministic zip file whose members are .npy arrays, so numpy.load opens
// every artifact and scipy.sparse.load_npz opens a sparse member stored
// under the empty name.
//
// Importing the package registers its codec with package artifact, so the
// cache and the runner decode bundles without knowing what they hold.
package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// KindMetrics is the kind of a bundle that carries a run's scalar results
// in its MemberMetrics JSON member; Metrics returns them.
const KindMetrics artifact.Kind = "metrics"

// MemberMetrics is the JSON member of a KindMetrics bundle: an object of
// name → number (entries of other types, such as the dataset's name, are
// kept in the document but are not metrics).
const MemberMetrics = "metrics"

// Bundle is a named set of typed members; it implements artifact.Artifact.
// The zero value is not usable; call New. Bundles are treated as immutable
// once a stage has returned them.
type Bundle struct {
	kind    artifact.Kind
	members map[string]any
}

var _ artifact.Artifact = (*Bundle)(nil)

// New returns an empty bundle of the given kind.
func New(kind artifact.Kind) *Bundle { return &Bundle{kind: kind, members: map[string]any{}} }

// From returns a as a bundle; an artifact of another format is an error
// that names its kind and type.
func From(a artifact.Artifact) (*Bundle, error) {
	if b, ok := a.(*Bundle); ok && b != nil {
		return b, nil
	}
	if a == nil {
		return nil, errors.New("no artifact (nil), want a bundle")
	}
	return nil, fmt.Errorf("artifact (%s) is a %T, not a bundle", a.Kind(), a)
}

// Kind returns the bundle's kind.
func (a *Bundle) Kind() artifact.Kind { return a.kind }

// Metrics returns the finite numeric entries of the MemberMetrics JSON
// member of a KindMetrics bundle: a non-nil map, empty when the document
// holds no finite number (or is not a JSON object), so a caller can tell a
// metrics bundle from others. Other bundles return nil.
func (a *Bundle) Metrics() map[string]float64 {
	if a.kind != KindMetrics || !a.Has(MemberMetrics) {
		return nil
	}
	m := map[string]float64{}
	var doc map[string]any
	if err := a.JSON(MemberMetrics, &doc); err != nil {
		return m
	}
	for k, v := range doc {
		if f, ok := v.(float64); ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			m[k] = f
		}
	}
	return m
}

// Names returns the member names in sorted order.
func (a *Bundle) Names() []string {
	names := make([]string, 0, len(a.members))
	for n := range a.members {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Has reports whether a member of that name exists.
func (a *Bundle) Has(name string) bool { _, ok := a.members[name]; return ok }

// Member returns the raw member value: *mat.Dense, []float64, []int,
// *sparse.CSR, json.RawMessage or []byte (a dense member held compressed
// is expanded: compressed.go).
func (a *Bundle) Member(name string) (any, bool) {
	v, ok := a.members[name]
	if c, isC := v.(*compressedDense); isC {
		return c.Dense(), true
	}
	return v, ok
}

// SetDense stores a dense float64 matrix (encoded as a 2-D .npy).
func (a *Bundle) SetDense(name string, m *mat.Dense) { a.members[name] = m }

// SetDenseRows stores a dense float64 matrix given by its non-zero
// entries: m's rows with strictly increasing columns, no entry +0 (−0 is
// an entry). The member is the dense matrix — encoded as the same 2-D .npy
// bytes, expanded by Dense and Member — and DenseRows returns m, so a
// stage can hand a mostly-zero matrix to its consumers without forming
// it. m is not copied; Encode checks its structure.
func (a *Bundle) SetDenseRows(name string, m *sparse.CSR) {
	a.members[name] = &compressedDense{rows: m}
}

// SetFloats stores a float64 vector (1-D .npy).
func (a *Bundle) SetFloats(name string, v []float64) { a.members[name] = v }

// SetInts stores an integer vector (1-D int64 .npy).
func (a *Bundle) SetInts(name string, v []int) { a.members[name] = v }

// SetSparse stores a CSR matrix (scipy-compatible data/indices/indptr/shape/format members).
func (a *Bundle) SetSparse(name string, m *sparse.CSR) { a.members[name] = m }

// SetFile stores raw bytes (a PNG, CSV or Markdown file) under a name with its extension.
func (a *Bundle) SetFile(name string, b []byte) { a.members[name] = b }

// SetJSON marshals v and stores it as NAME.json.
func (a *Bundle) SetJSON(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("artifact: member %q: %w", name, err)
	}
	a.members[name] = json.RawMessage(b)
	return nil
}

func get[T any](a *Bundle, name, what string) (T, error) {
	var zero T
	v, ok := a.members[name]
	if !ok {
		return zero, fmt.Errorf("artifact (%s): no member %q (have %v)", a.kind, name, a.Names())
	}
	if _, isC := v.(*compressedDense); isC {
		v = (*mat.Dense)(nil) // a dense matrix held compressed: named by its type (Dense expands it)
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("artifact (%s): member %q is %T, want %s", a.kind, name, v, what)
	}
	return t, nil
}

// Dense returns a dense matrix member (a member held compressed is
// expanded on the first call: compressed.go).
func (a *Bundle) Dense(name string) (*mat.Dense, error) {
	if c, ok := a.members[name].(*compressedDense); ok {
		return c.Dense(), nil
	}
	return get[*mat.Dense](a, name, "dense matrix")
}

// DenseRows returns the non-zero entries of a dense matrix member that
// decoding held compressed (a large member at most 1/16 non-zero:
// compressed.go), in rows with strictly increasing columns; every entry
// whose bits are not +0 is kept, so expanding them gives the member bit
// for bit. ok is false when the member is absent or held dense: use Dense.
// The result is shared; callers must not modify it.
func (a *Bundle) DenseRows(name string) (m *sparse.CSR, ok bool) {
	if c, isC := a.members[name].(*compressedDense); isC {
		return c.rows, true
	}
	return nil, false
}

// DenseDims returns the shape of a dense matrix member without expanding
// a member held compressed.
func (a *Bundle) DenseDims(name string) (r, c int, err error) {
	if cd, ok := a.members[name].(*compressedDense); ok {
		return cd.rows.Rows, cd.rows.Cols, nil
	}
	m, err := get[*mat.Dense](a, name, "dense matrix")
	if err != nil {
		return 0, 0, err
	}
	if m.IsEmpty() {
		return 0, 0, nil
	}
	r, c = m.Dims()
	return r, c, nil
}

// Floats returns a float64 vector member.
func (a *Bundle) Floats(name string) ([]float64, error) {
	return get[[]float64](a, name, "float vector")
}

// Ints returns an integer vector member.
func (a *Bundle) Ints(name string) ([]int, error) { return get[[]int](a, name, "int vector") }

// Sparse returns a CSR matrix member.
func (a *Bundle) Sparse(name string) (*sparse.CSR, error) {
	return get[*sparse.CSR](a, name, "sparse matrix")
}

// File returns a raw file member.
func (a *Bundle) File(name string) ([]byte, error) { return get[[]byte](a, name, "file") }

// JSON unmarshals a JSON member into dst.
func (a *Bundle) JSON(name string, dst any) error {
	raw, err := get[json.RawMessage](a, name, "JSON document")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("artifact (%s): member %q: %w", a.kind, name, err)
	}
	return nil
}
