package planetoid

import (
	"context"

	"github.com/hylaflow/hylaflow/datasets"
)

func init() { datasets.Register(source{}) }

// source is the Planetoid loader as a datasets.Source: the files are
// planetoid/ind.NAME.* under the data root, the split is the given one.
type source struct{}

func (source) Name() string { return "planetoid" }

// Files are the eight ind.NAME.* pickles, all required, in Suffixes order.
func (source) Files(req datasets.Request) ([]datasets.File, error) {
	name := req.Name
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

// Load reads the files Files declares (ROOT/planetoid/ind.NAME.*).
func (s source) Load(_ context.Context, req datasets.Request) (*datasets.Graph, error) {
	req, err := datasets.Resolve(s, req)
	if err != nil {
		return nil, err
	}
	paths := req.Paths()
	return LoadPaths(req.Name, paths)
}

// OfficialSplit is the Planetoid split the files define (Load sets it).
func (source) OfficialSplit(string) datasets.SplitRule {
	return datasets.SplitRule{Rule: datasets.SplitGiven}
}

// Params: none; the files are all there is.
func (source) Params() []datasets.ParamSpec { return nil }
