package synthetic

import (
	"context"
	"fmt"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/hgcn"
)

func init() { datasets.Register(source{}) }

// source is the generators as a datasets.Source: no files; disease (or
// synthetic_disease) is GenerateDisease, sbm (synthetic_sbm) GenerateSBM.
type source struct{}

func (source) Name() string { return "synthetic" }

// Files: none, the datasets are generated.
func (source) Files(datasets.Request) ([]datasets.File, error) { return nil, nil }

// Generator names the disease generator and its DiseaseVersion, so that a
// new generator changes the disease graphs' keys. The SBM graph's keys
// stay those of its parameters.
func (source) Generator(name string) (string, string) {
	if isDisease(name) {
		return "synthetic disease", DiseaseVersion
	}
	return "", ""
}

func isDisease(name string) bool {
	switch strings.ToLower(name) {
	case "disease", "synthetic_disease":
		return true
	}
	return false
}

// Load generates the graph from the parameters seed, nodes, features and
// (SBM) edges and classes; zero values take the generators' defaults.
func (source) Load(ctx context.Context, req datasets.Request) (*datasets.Graph, error) {
	p := req.Params
	seed := uint64(p.Int("seed"))
	switch strings.ToLower(req.Name) {
	case "disease", "synthetic_disease":
		return GenerateDisease(DiseaseOptions{Nodes: p.Int("nodes"), Features: p.Int("features"), Seed: seed})
	case "sbm", "synthetic_sbm":
		return GenerateSBM(ctx, SBMOptions{Nodes: p.Int("nodes"), Edges: p.Int("edges"),
			Features: p.Int("features"), Classes: p.Int("classes"), Seed: seed, Workers: req.Workers})
	}
	return nil, fmt.Errorf("unknown synthetic dataset %q (want disease or sbm)", req.Name)
}

// OfficialSplit: the disease tree takes HGCN's Disease split; the SBM graph
// carries its own.
func (source) OfficialSplit(name string) datasets.SplitRule {
	if isDisease(name) {
		return datasets.SplitRule{Rule: datasets.SplitHGCN, PVal: hgcn.DiseaseSplit[0], PTest: hgcn.DiseaseSplit[1]}
	}
	return datasets.SplitRule{Rule: datasets.SplitGiven}
}

// Params: the generators' seed and sizes; zero takes their defaults.
func (source) Params() []datasets.ParamSpec {
	zero := datasets.Bound(0)
	return []datasets.ParamSpec{
		{Name: "seed", Kind: datasets.ParamInt, Default: 0, Min: zero, Doc: "generator seed"},
		{Name: "nodes", Kind: datasets.ParamInt, Default: 0, Min: zero, Doc: "number of nodes (0 = 1044 for disease, 232965 for sbm)"},
		{Name: "edges", Kind: datasets.ParamInt, Default: 0, Min: zero, Doc: "sbm's distinct edges to aim for (0 = 11,606,919)"},
		{Name: "features", Kind: datasets.ParamInt, Default: 0, Min: zero, Doc: "feature columns (0 = 16 for disease, 602 for sbm)"},
		{Name: "classes", Kind: datasets.ParamInt, Default: 0, Min: zero, Doc: "sbm's number of classes (0 = 41)"},
	}
}
