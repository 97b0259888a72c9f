package planetoid

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
)

func init() { datasets.Register(source{}) }

// source is the Planetoid loader as a datasets.Source: the files are
// planetoid/ind.NAME.* under the data root, the split is the given one.
type source struct{}

func (source) Name() string { return "planetoid" }

// Files are the eight ind.NAME.* pickles, all required.
func (source) Files(name string) ([]datasets.File, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	out := make([]datasets.File, len(Suffixes))
	for i, s := range Suffixes {
		out[i] = datasets.File{Path: "planetoid/ind." + name + "." + s}
	}
	return out, nil
}

func (source) Generator(string) (string, string) { return "", "" }

// Load reads the dataset (its name in lower case) from ROOT/planetoid.
func (source) Load(_ context.Context, req datasets.Request) (*datasets.Graph, error) {
	return Load(filepath.Join(req.Root, "planetoid"), strings.ToLower(req.Name))
}

// OfficialSplit is the Planetoid split the files define (Load sets it).
func (source) OfficialSplit(string) datasets.SplitRule {
	return datasets.SplitRule{Rule: datasets.SplitGiven}
}

// Params: none; the files are all there is.
func (source) Params() []datasets.ParamSpec { return nil }
