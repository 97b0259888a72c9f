// Package artifact is all the pipeline engine (runner, cache, registry)
// knows about the values that flow between stages: an opaque Artifact with a
// Kind that encodes itself to bytes, and a registry of codecs that decode
// those bytes again. The cache stores the bytes under their digest; the
// runner matches kinds against the slots stage types declare, shows an
// artifact's Metrics and publishes it with WriteFiles. What an artifact
// holds, and how, is its format's business.
//
// A format registers its codec from its own package, as image/png does with
// image.RegisterFormat, so a program that links the format's package can
// decode its artifacts:
//
//	import _ "github.com/hylaflow/hylaflow/artifact/bundle"
//
// Package bundle is the format of the built-in stages (named dense and
// sparse arrays, JSON documents and files in a deterministic .npz); this
// package imports nothing but the standard library, so the engine builds
// without the numerical code.
package artifact

import "io"

// Kind names what an artifact holds; input and output slots declare the
// kinds they accept and produce. Formats and stage packages define their
// kinds; the engine only compares them.
type Kind string

// KindAny, declared by a slot, accepts an artifact of any kind.
const KindAny Kind = "any"

// Accepts reports whether a slot declaring kind k takes an artifact of kind
// other: k is KindAny or the same kind.
func (k Kind) Accepts(other Kind) bool { return k == KindAny || k == other }

// Artifact is a value a stage produces and another consumes. Artifacts are
// immutable once a stage has returned them.
type Artifact interface {
	// Kind says what the artifact holds.
	Kind() Kind
	// Encode writes the artifact's bytes. Encoding is deterministic (the
	// same artifact gives the same bytes, so equal results share a digest)
	// and the bytes start with the Magic of a registered Codec, whose
	// Decode reads them back.
	Encode(w io.Writer) error
	// Metrics returns the named scalar results the artifact carries (a
	// run's accuracies, a loss), which progress lines and run tables show:
	// nil if the artifact is not one that carries results, a non-nil map
	// (possibly empty) if it is. Only finite values are returned.
	Metrics() map[string]float64
	// WriteFiles writes the artifact as files a user opens directly into
	// dir (created if missing) and returns their paths; see FilesOptions.
	WriteFiles(dir string, opts FilesOptions) ([]string, error)
	// MemberFile returns the bytes of a member that is a document of its
	// own (a figure, a table, a JSON document), as WriteFiles would write
	// it; a member that is not, or does not exist, is an error.
	MemberFile(name string) ([]byte, error)
}
