package artifact

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// A Codec reads the encoded artifacts of one format.
type Codec struct {
	// Name names the format in errors and listings, e.g. "bundle".
	Name string
	// Magic is the non-empty prefix every encoding of the format starts with.
	Magic string
	// Decode reads an artifact from the size bytes of r. name (usually a
	// file's path) identifies the data in errors, which say where the data
	// is bad and what was expected. Decode must not panic on bad input.
	Decode func(r io.ReaderAt, size int64, name string) (Artifact, error)
	// Shapes, if set, returns the shapes of the arrays an encoding holds,
	// by member name, reading as little as it can (no array data). Memory
	// estimates use it; it must not panic on bad input.
	Shapes func(r io.ReaderAt, size int64) (map[string][]int, error)
}

var (
	codecsMu sync.RWMutex
	codecs   []Codec
)

// ErrUnknownFormat is returned (wrapped) by Decode for data that no
// registered codec recognises.
var ErrUnknownFormat = errors.New("unknown artifact format")

// RegisterCodec makes a format decodable by Decode. Formats call it from an
// init function. It panics if c has no name, magic or Decode, or if its name
// or magic is already registered: two formats must be told apart by their
// first bytes.
func RegisterCodec(c Codec) {
	if c.Name == "" || c.Magic == "" || c.Decode == nil {
		panic(fmt.Sprintf("artifact: RegisterCodec(%q): name, magic and Decode are required", c.Name))
	}
	codecsMu.Lock()
	defer codecsMu.Unlock()
	for _, o := range codecs {
		if o.Name == c.Name {
			panic(fmt.Sprintf("artifact: codec %q registered twice", c.Name))
		}
		if strings.HasPrefix(c.Magic, o.Magic) || strings.HasPrefix(o.Magic, c.Magic) {
			panic(fmt.Sprintf("artifact: codecs %q and %q have overlapping magic %q and %q", o.Name, c.Name, o.Magic, c.Magic))
		}
	}
	codecs = append(codecs, c)
}

// Codecs returns the names of the registered codecs in sorted order.
func Codecs() []string {
	codecsMu.RLock()
	defer codecsMu.RUnlock()
	names := make([]string, len(codecs))
	for i, c := range codecs {
		names[i] = c.Name
	}
	sort.Strings(names)
	return names
}

// Encode writes a's bytes (a.Encode); a nil artifact is an error.
func Encode(w io.Writer, a Artifact) error {
	if a == nil {
		return errors.New("artifact: Encode: nil artifact")
	}
	return a.Encode(w)
}

// Decode reads an artifact from the size bytes of r with the registered
// codec whose magic the bytes start with. name (usually the file's path)
// identifies the data in errors. Data no codec recognises is an error that
// wraps ErrUnknownFormat.
func Decode(r io.ReaderAt, size int64, name string) (Artifact, error) {
	codecsMu.RLock()
	cs := codecs
	codecsMu.RUnlock()
	longest := 0
	for _, c := range cs {
		longest = max(longest, len(c.Magic))
	}
	head := make([]byte, min(int64(longest), max(size, 0)))
	n, err := r.ReadAt(head, 0)
	if n < len(head) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("artifact %s: reading the first %d bytes: %w", name, len(head), err)
	}
	for _, c := range cs {
		if strings.HasPrefix(string(head), c.Magic) {
			return c.Decode(r, size, name)
		}
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("artifact %s: %w: no codec is registered (the program links no artifact format)", name, ErrUnknownFormat)
	}
	return nil, fmt.Errorf("artifact %s: %w: %d bytes starting %q, which no registered codec (%s) reads",
		name, ErrUnknownFormat, size, head, strings.Join(Codecs(), ", "))
}

// Shapes returns the shapes of the arrays in the size bytes of r, by
// member name, when the format's codec can tell them cheaply; nil when it
// cannot or the data is not readable.
func Shapes(r io.ReaderAt, size int64) map[string][]int {
	codecsMu.RLock()
	cs := codecs
	codecsMu.RUnlock()
	for _, c := range cs {
		head := make([]byte, min(int64(len(c.Magic)), max(size, 0)))
		if n, _ := r.ReadAt(head, 0); n == len(head) && string(head) == c.Magic && c.Shapes != nil {
			if m, err := c.Shapes(r, size); err == nil {
				return m
			}
			return nil
		}
	}
	return nil
}
