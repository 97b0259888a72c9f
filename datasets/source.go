package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hylaflow/hylaflow/internal/filedigest"
)

// A Source is a family of datasets that share a file layout and a loader
// (Planetoid's pickles, HGCN's files, a generator, …). Each source package
// registers its Source with Register in an init function, the way
// database/sql drivers register; stages and the CLI find it with SourceOf
// and never name a source themselves. Adding a benchmark is one source
// package, one catalogue entry (catalog.go) and one blank import in
// datasets/all.
//
// How results present a dataset — its display name in figures, its column
// in result tables and that column's place, its key in the paper's tables,
// the metric its papers report (Reddit's micro-F1) — is the Meta of its
// catalogue entry (meta.go; MetaOf reads it, and the evaluate, train and
// visualisation stages ask nothing else). A source needs no method for it:
// its entries set Meta, and a dataset outside the catalogue (a user's graph
// of the files source) is shown by its own name, scored by accuracy, with
// no paper value, after the paper's columns.
type Source interface {
	// Name is the source's name: the dataset stage's source parameter and
	// the catalogue entries' Source.
	Name() string
	// Files returns the files Load reads for req, relative to the data
	// root and slash-separated, in a fixed order (the order the
	// fingerprint hashes them). req.Name is already in the catalogue's
	// spelling (Resolve calls Files); a source may also read req.Params
	// (a source whose files are named by parameters lists those). The
	// list is the one source of truth for the data a dataset depends on:
	// Resolve stores it in Request.Files, Load opens those files through
	// Request.Path and no other, and Fingerprint hashes exactly those. A
	// file the loader can do without is Optional; files that stand in for
	// each other share an AnyOf group, of which at least one must exist.
	// The catalogue entries of the source list these files (see
	// CheckEntryFiles). An error means the request cannot name one of the
	// source's datasets (e.g. it would not give a safe file name).
	Files(req Request) ([]File, error)
	// Generator names the code that produces dataset name when no file
	// identifies it, with its version ("synthetic disease", "2"), so that
	// a new generator changes the fingerprint; "", "" when the files (or
	// nothing, for a generator whose output is pinned by its parameters)
	// identify the dataset.
	Generator(name string) (gen, version string)
	// Load reads (or generates) the dataset the request names. It starts
	// with Resolve (a no-op on a resolved request) and opens only the
	// files of req.Files, through req.Path.
	Load(ctx context.Context, req Request) (*Graph, error)
	// OfficialSplit is the split the benchmark's papers use for dataset
	// name (the Graph's Name as Load sets it).
	OfficialSplit(name string) SplitRule
	// Params declares the parameters Load reads from Request.Params (nil:
	// none); the dataset stage offers the union over every source
	// (SourceParams), so a new parameter needs no change elsewhere.
	Params() []ParamSpec
}

// A PathSource is a Source whose files are wherever the user says rather
// than a catalogue's (the files source: a user's graph): Request.Root is
// then the user's path, a directory or one file, and Name only the name
// reports show. Files and the catalogue do not apply to it; Fingerprint
// and FingerprintOf hash what FilesFor lists.
type PathSource interface {
	Source
	// FilesFor returns the files Load(req) reads — exactly those, as paths
	// (req.Root joined), in the order it reads them — with the name each
	// has in messages (its path relative to req.Root, or its base name).
	// A path that holds no dataset, or a file that cannot be read, is an
	// error: the fingerprint never hashes a "missing" placeholder.
	FilesFor(req Request) ([]NamedFile, error)
}

// NamedFile is a file a PathSource reads: where it is and what messages
// call it.
type NamedFile struct {
	Path string // the file on disk
	Name string // relative to the user's path, slash-separated
}

// Request is what Source.Load reads.
type Request struct {
	// Root is the data root (holding planetoid/, hgcn/, …); unused by
	// generators.
	Root string
	// Name is the dataset's name: as the pipeline or the user spells it,
	// and in the catalogue's spelling once Resolve has run.
	Name string
	// Params are the dataset stage's parameters (seed, identity_features,
	// view, …); every source reads the ones it declares in Source.Params.
	Params Params
	// Workers bounds the goroutines a generator uses (0: one).
	Workers int
	// Files are the files Source.Files declares for this request, set by
	// Resolve: what Load may open and what Fingerprint hashes.
	Files []File
	// resolved is set by Resolve.
	resolved bool
}

// Resolve prepares req for src's Load and for Fingerprint: it puts the
// dataset's name into the catalogue's spelling (Canonical) before any
// path is built, then stores the files src declares for it in req.Files.
// A resolved request is returned unchanged.
func Resolve(src Source, req Request) (Request, error) {
	if req.resolved {
		return req, nil
	}
	req.Name = Canonical(src.Name(), req.Name)
	files, err := src.Files(req)
	if err != nil {
		return req, err
	}
	req.Files, req.resolved = files, true
	return req, nil
}

// Paths returns the file system paths of every file the request declares,
// in their declared order: what a loader that reads them all opens.
func (r Request) Paths() []string {
	paths := make([]string, len(r.Files))
	for i, f := range r.Files {
		paths[i] = filepath.Join(r.Root, filepath.FromSlash(f.Path))
	}
	return paths
}

// Path returns the file system path of rel (slash-separated, relative to
// the data root) for a loader, or an error when rel is not among the
// files the request declares: a loader opens nothing the fingerprint
// does not cover.
func (r Request) Path(rel string) (string, error) {
	for _, f := range r.Files {
		if f.Path == rel {
			return filepath.Join(r.Root, filepath.FromSlash(rel)), nil
		}
	}
	return "", fmt.Errorf("dataset %s: %s is not among the files its source declares (%s): "+
		"a loader opens only declared files, so that the fingerprint covers them", r.Name, rel, filePaths(r.Files))
}

// Canonical returns name in the spelling of the catalogue entry of source
// it matches (its name or an alias, ignoring case), or name unchanged
// when the catalogue has no such entry.
func Canonical(source, name string) string {
	if e, ok := LookupIn(source, name); ok {
		return e.Name
	}
	return name
}

// Params are load parameters by name: the dataset stage's parameters.
// registry.Values satisfies it; so does Options.
type Params interface {
	String(name string) string
	Int(name string) int
	Float(name string) float64
	Bool(name string) bool
}

// Options are Params from a map: a name that is not set (or holds another
// type) reads as the zero value, which every source takes as its default.
type Options map[string]any

// String returns the string option name, "" if unset.
func (o Options) String(name string) string { s, _ := o[name].(string); return s }

// Int returns the int option name, 0 if unset.
func (o Options) Int(name string) int { v, _ := o[name].(int); return v }

// Float returns the float option name, 0 if unset.
func (o Options) Float(name string) float64 { v, _ := o[name].(float64); return v }

// Bool returns the bool option name, false if unset.
func (o Options) Bool(name string) bool { v, _ := o[name].(bool); return v }

// Split rules of SplitRule.Rule.
const (
	// SplitGiven: the dataset ships its own split (Graph.Train/Val/Test).
	SplitGiven = "given"
	// SplitHGCN: HGCNSplit on the labels with SplitRule.PVal and PTest.
	SplitHGCN = "hgcn"
	// SplitStratified: StratifiedSplit on the labels with SplitRule.PVal
	// and PTest (a user's graph without a split of its own).
	SplitStratified = "stratified"
)

// SplitRule is a dataset's official split.
type SplitRule struct {
	Rule        string  // SplitGiven, SplitHGCN or SplitStratified
	PVal, PTest float64 // SplitHGCN: validation and test proportions
}

// Proportions returns the official validation and test proportions, and
// whether the rule has them (it draws the split from the labels).
func (r SplitRule) Proportions() (pVal, pTest float64, ok bool) {
	return r.PVal, r.PTest, r.Rule == SplitHGCN || r.Rule == SplitStratified
}

var (
	sourcesMu sync.RWMutex
	sources   = map[string]Source{}
)

// Register makes a source available by its name. It is meant for the init
// function of the source's package, and panics (a programming error) when
// the source is nil, has no name or a source of that name is registered.
func Register(s Source) {
	if s == nil {
		panic("datasets: Register of a nil source")
	}
	name := s.Name()
	if name == "" {
		panic("datasets: Register of a source without a name")
	}
	sourcesMu.Lock()
	defer sourcesMu.Unlock()
	if _, dup := sources[name]; dup {
		panic("datasets: Register called twice for source " + name)
	}
	sources[name] = s
}

// RegisterForTest registers s and adds entries to the catalogue (after the
// built-in ones) until the returned function is called; tests use it to
// show that a new source needs nothing else. It panics like Register.
func RegisterForTest(s Source, entries ...Entry) (unregister func()) {
	Register(s)
	extraMu.Lock()
	extra = append(extra, entries...)
	extraMu.Unlock()
	return func() {
		sourcesMu.Lock()
		delete(sources, s.Name())
		sourcesMu.Unlock()
		extraMu.Lock()
		extra = slices.DeleteFunc(extra, func(e Entry) bool { return e.Source == s.Name() })
		extraMu.Unlock()
	}
}

// SourceOf returns the registered source called name.
func SourceOf(name string) (Source, bool) {
	sourcesMu.RLock()
	defer sourcesMu.RUnlock()
	s, ok := sources[name]
	return s, ok
}

// Sources returns the names of the registered sources, sorted.
func Sources() []string {
	sourcesMu.RLock()
	defer sourcesMu.RUnlock()
	out := make([]string, 0, len(sources))
	for n := range sources {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ErrUnknownSource is returned for a source name nothing registered.
var ErrUnknownSource = errors.New("unknown dataset source")

// SourceFor returns the registered source of catalogue entry e.
func SourceFor(e Entry) (Source, error) {
	s, ok := SourceOf(e.Source)
	if !ok {
		return nil, fmt.Errorf("dataset %s: %w %q (registered: %s)", e.Name, ErrUnknownSource, e.Source, strings.Join(Sources(), ", "))
	}
	return s, nil
}

// Fingerprint identifies the dataset req names (Resolve is applied
// first): the generator and its version when src names one, then each
// declared file's path within the root and the SHA-256 of its contents.
// Contents rather than modification times, so that a fresh copy or a
// re-download of the same files keeps every result built on them. An
// absent Optional file is recorded as missing (the loader does without
// it, deterministically); a required file that is missing, not a regular
// file, unreadable or not of its declared size, and an AnyOf group with
// no file present, are errors: a constant hash would let changed data
// keep its key. For a PathSource it is FingerprintOf(src, req).
func Fingerprint(src Source, req Request) (string, error) {
	if ps, ok := src.(PathSource); ok {
		if req.Params == nil {
			req.Params = Options{}
		}
		return FingerprintOf(ps, req)
	}
	req, err := Resolve(src, req)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	if gen, version := src.Generator(req.Name); gen != "" {
		fmt.Fprintf(h, "%s generator\x00%s\n", gen, version)
	}
	present := map[string]bool{} // AnyOf groups with a file present
	var errs []error
	for _, f := range req.Files {
		path := filepath.Join(req.Root, filepath.FromSlash(f.Path))
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) && (f.Optional || f.AnyOf != ""):
			fmt.Fprintf(h, "%s\x00missing\n", f.Path)
			continue
		case errors.Is(err, fs.ErrNotExist):
			errs = append(errs, fmt.Errorf("%s: missing", path))
			continue
		case err != nil:
			errs = append(errs, err)
			continue
		case !st.Mode().IsRegular():
			errs = append(errs, fmt.Errorf("%s: not a regular file", path))
			continue
		case f.Size > 0 && st.Size() != f.Size:
			errs = append(errs, fmt.Errorf("%s: wrong size: %d bytes, want %d", path, st.Size(), f.Size))
			continue
		}
		sum, err := filedigest.Sum(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if f.AnyOf != "" {
			present[f.AnyOf] = true
		}
		fmt.Fprintf(h, "%s\x00%s\n", f.Path, sum)
	}
	for _, f := range req.Files {
		if f.AnyOf != "" && !present[f.AnyOf] {
			var group []File
			for _, g := range req.Files {
				if g.AnyOf == f.AnyOf {
					group = append(group, g)
				}
			}
			errs = append(errs, fmt.Errorf("none of %s exists under %s (one is needed)", filePaths(group), req.Root))
			present[f.AnyOf] = true // once per group
		}
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("dataset %s (%s): %w", req.Name, src.Name(), errors.Join(errs...))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FingerprintParts identifies what a PathSource reads for req: the
// SHA-256 of each file FilesFor lists, by the file's name ("file
// labels.csv" → "sha256:HEX"). The dataset stage joins them with
// registry.JoinFingerprint, so that plan names the file that changed.
func FingerprintParts(src PathSource, req Request) (map[string]string, error) {
	files, err := src.FilesFor(req)
	if err != nil {
		return nil, err
	}
	parts := make(map[string]string, len(files))
	for _, f := range files {
		sum, err := filedigest.Sum(f.Path)
		if err != nil {
			return nil, fmt.Errorf("dataset fingerprint: %w", err)
		}
		parts["file "+f.Name] = "sha256:" + sum
	}
	return parts, nil
}

// FingerprintOf is FingerprintParts as one string: a line "NAME VALUE"
// per part, in name order.
func FingerprintOf(src PathSource, req Request) (string, error) {
	parts, err := FingerprintParts(src, req)
	if err != nil {
		return "", err
	}
	names := make([]string, 0, len(parts))
	for n := range parts {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", n, parts[n])
	}
	return b.String(), nil
}

// CheckEntryFiles checks that a catalogue entry lists the files its source
// reads: every file the source requires, only files the source reads, and
// none marked Optional that the source requires.
func CheckEntryFiles(e Entry) error {
	src, err := SourceFor(e)
	if err != nil {
		return err
	}
	need, err := src.Files(Request{Name: e.Name})
	if err != nil {
		return fmt.Errorf("dataset %s: %w", e.Name, err)
	}
	reads := map[string]File{}
	for _, f := range need {
		reads[f.Path] = f
	}
	listed := map[string]bool{}
	var errs []error
	for _, f := range e.Files {
		listed[f.Path] = true
		nf, ok := reads[f.Path]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("dataset %s: catalogue lists %s, which source %s does not read", e.Name, f.Path, e.Source))
		case f.Optional && !nf.Optional:
			errs = append(errs, fmt.Errorf("dataset %s: catalogue marks %s optional, source %s requires it", e.Name, f.Path, e.Source))
		}
	}
	for _, f := range need {
		if !f.Optional && !listed[f.Path] {
			errs = append(errs, fmt.Errorf("dataset %s: source %s requires %s, which the catalogue does not list", e.Name, e.Source, f.Path))
		}
	}
	return errors.Join(errs...)
}
