// Package artifact defines the values that flow between pipeline stages.
//
// An Artifact is a bundle of named members (dense matrices, vectors, sparse
// matrices, JSON documents and raw files) with a Kind. It is encoded as an
// uncompressed, deterministic zip file whose members are .npy arrays, so
// numpy.load opens every artifact and scipy.sparse.load_npz opens a sparse
// member stored under the empty name.
package artifact

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Kind names what an artifact holds; input slots declare the kinds they accept.
type Kind string

// The artifact kinds used by the built-in stages.
const (
	KindAny       Kind = "any"       // accepted by slots that take anything
	KindGraph     Kind = "graph"     // adjacency, features, labels, split
	KindFeatures  Kind = "features"  // precomputed S^K X (feature level) or S (node level)
	KindSplit     Kind = "split"     // train/val/test index sets
	KindSamples   Kind = "samples"   // random-feature parameters Ω, Λ, B
	KindEmbedding Kind = "embedding" // embedding matrix Z
	KindModel     Kind = "model"     // trained parameters and curves
	KindMetrics   Kind = "metrics"   // a run's scalar results
	KindTable     Kind = "table"     // aggregated results (markdown/csv/json)
	KindFigure    Kind = "figure"    // images
	KindValue     Kind = "value"     // generic values of the generic stages
)

// Artifact is a named bundle of typed members. The zero value is not usable; call New.
// Artifacts are treated as immutable once a stage has returned them.
type Artifact struct {
	Kind    Kind
	members map[string]any
}

// New returns an empty artifact of the given kind.
func New(kind Kind) *Artifact { return &Artifact{Kind: kind, members: map[string]any{}} }

// Names returns the member names in sorted order.
func (a *Artifact) Names() []string {
	names := make([]string, 0, len(a.members))
	for n := range a.members {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Has reports whether a member of that name exists.
func (a *Artifact) Has(name string) bool { _, ok := a.members[name]; return ok }

// Member returns the raw member value: *mat.Dense, []float64, []int,
// *sparse.CSR, json.RawMessage or []byte.
func (a *Artifact) Member(name string) (any, bool) { v, ok := a.members[name]; return v, ok }

// SetDense stores a dense float64 matrix (encoded as a 2-D .npy).
func (a *Artifact) SetDense(name string, m *mat.Dense) { a.members[name] = m }

// SetFloats stores a float64 vector (1-D .npy).
func (a *Artifact) SetFloats(name string, v []float64) { a.members[name] = v }

// SetInts stores an integer vector (1-D int64 .npy).
func (a *Artifact) SetInts(name string, v []int) { a.members[name] = v }

// SetSparse stores a CSR matrix (scipy-compatible data/indices/indptr/shape/format members).
func (a *Artifact) SetSparse(name string, m *sparse.CSR) { a.members[name] = m }

// SetFile stores raw bytes (a PNG, CSV or Markdown file) under a name with its extension.
func (a *Artifact) SetFile(name string, b []byte) { a.members[name] = b }

// SetJSON marshals v and stores it as NAME.json.
func (a *Artifact) SetJSON(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("artifact: member %q: %w", name, err)
	}
	a.members[name] = json.RawMessage(b)
	return nil
}

func get[T any](a *Artifact, name, what string) (T, error) {
	var zero T
	v, ok := a.members[name]
	if !ok {
		return zero, fmt.Errorf("artifact (%s): no member %q (have %v)", a.Kind, name, a.Names())
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("artifact (%s): member %q is %T, want %s", a.Kind, name, v, what)
	}
	return t, nil
}

// Dense returns a dense matrix member.
func (a *Artifact) Dense(name string) (*mat.Dense, error) {
	return get[*mat.Dense](a, name, "dense matrix")
}

// Floats returns a float64 vector member.
func (a *Artifact) Floats(name string) ([]float64, error) {
	return get[[]float64](a, name, "float vector")
}

// Ints returns an integer vector member.
func (a *Artifact) Ints(name string) ([]int, error) { return get[[]int](a, name, "int vector") }

// Sparse returns a CSR matrix member.
func (a *Artifact) Sparse(name string) (*sparse.CSR, error) {
	return get[*sparse.CSR](a, name, "sparse matrix")
}

// File returns a raw file member.
func (a *Artifact) File(name string) ([]byte, error) { return get[[]byte](a, name, "file") }

// JSON unmarshals a JSON member into dst.
func (a *Artifact) JSON(name string, dst any) error {
	raw, err := get[json.RawMessage](a, name, "JSON document")
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("artifact (%s): member %q: %w", a.Kind, name, err)
	}
	return nil
}
