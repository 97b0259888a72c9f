// Package files is the files dataset source: a user's own graph, read from
// the formats people already have — an edge list with feature, label and
// split tables, a PyTorch Geometric Data object saved as .npz, or an OGB
// node-property directory — with no catalogue entry and no Go code. The
// dataset stage reads it with source = "files" and path = the directory or
// file; `hylaflow datasets inspect PATH` shows what the loader sees.
// docs/your-graph.md describes the layouts.
package files

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
)

// Name is the source's name (the dataset stage's source parameter).
const Name = "files"

// Default proportions of the stratified split drawn when the files bring
// none: 60% train, 20% validation, 20% test of each class.
const (
	DefaultPVal  = 0.2
	DefaultPTest = 0.2
)

func init() { datasets.Register(source{}) }

type source struct{}

func (source) Name() string { return Name }

// Files is empty: the files are the user's (FilesFor), not a catalogue's.
func (source) Files(datasets.Request) ([]datasets.File, error) { return nil, nil }

func (source) Generator(string) (string, string) { return "", "" }

// FilesFor lists the files Load reads at req.Root in req's format.
func (source) FilesFor(req datasets.Request) ([]datasets.NamedFile, error) {
	l, err := detect(req.Root, format(req.Params))
	if err != nil {
		return nil, err
	}
	return l.files(), nil
}

func format(p datasets.Params) string {
	if p == nil {
		return FormatAuto
	}
	return p.String("format")
}

// DisplayName is the name reports give the graph at path when the
// pipeline names none: the path's base name without its extension.
func DisplayName(path string) string {
	base := filepath.Base(filepath.Clean(path))
	for _, ext := range []string{".gz", ".npz", ".csv", ".tsv", ".txt"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// Load reads the graph at req.Root (the dataset stage's path).
func (source) Load(ctx context.Context, req datasets.Request) (*datasets.Graph, error) {
	g, _, err := Load(ctx, req.Root, format(req.Params), max(1, req.Workers))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", req.Root, err)
	}
	g.Name = req.Name
	if g.Name == "" {
		g.Name = DisplayName(req.Root)
	}
	return g, nil
}

// OfficialSplit: the files' own split when they bring one (rule given);
// otherwise a stratified draw with DefaultPVal and DefaultPTest.
func (source) OfficialSplit(string) datasets.SplitRule {
	return datasets.SplitRule{Rule: datasets.SplitStratified, PVal: DefaultPVal, PTest: DefaultPTest}
}

// Params: path and format, left out of the cache key at their defaults so
// that the benchmarks' keys stay.
func (source) Params() []datasets.ParamSpec {
	return []datasets.ParamSpec{
		{Name: "path", Kind: datasets.ParamPath, Default: "", OmitDefaultFromKey: true,
			Doc: "the graph's directory or file, relative to the pipeline (edge list + tables, a PyG .npz, or an OGB directory; see docs/your-graph.md)"},
		{Name: "format", Kind: datasets.ParamString, Default: FormatAuto, Enum: Formats, OmitDefaultFromKey: true,
			Doc: "layout at path: auto detects it"},
	}
}
