package hgcn

import (
	"context"
	"fmt"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
)

func init() { datasets.Register(source{}) }

// source is the HGCN loader as a datasets.Source: files under hgcn/NAME/,
// the split drawn from the labels with HGCN's rule.
type source struct{}

func (source) Name() string { return "hgcn" }

// Files are Airport's pickle, or Disease's edges, labels and (optional:
// identity_features stands in for it) features.
func (source) Files(req datasets.Request) ([]datasets.File, error) {
	name := req.Name
	if name == "" || strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
		return nil, fmt.Errorf("hgcn: dataset name %q: want a plain name (one of %v)", name, Names)
	}
	if name == "airport" {
		return []datasets.File{{Path: "hgcn/airport/airport.p"}}, nil
	}
	dir := "hgcn/" + name + "/" + name
	return []datasets.File{{Path: dir + ".edges.csv"}, {Path: dir + ".labels.npy"}, {Path: dir + ".feats.npz", Optional: true}}, nil
}

func (source) Generator(string) (string, string) { return "", "" }

// Load reads the files Files declares (under ROOT/hgcn); the parameter
// identity_features replaces a missing Disease feature file by the
// identity.
func (s source) Load(_ context.Context, req datasets.Request) (*datasets.Graph, error) {
	req, err := datasets.Resolve(s, req)
	if err != nil {
		return nil, err
	}
	paths := req.Paths()
	switch {
	case req.Name == "airport" && len(paths) == 1:
		return LoadAirport(paths[0])
	case (req.Name == "disease_nc" || req.Name == "disease_lp") && len(paths) == 3:
		return LoadDiseaseFiles(req.Name, paths[0], paths[1], paths[2], Options{IdentityFeatures: req.Params.Bool("identity_features")})
	}
	return nil, fmt.Errorf("hgcn: unknown dataset %q (want one of %v)", req.Name, Names)
}

// OfficialSplit is HGCN's rule with Disease's (disease_nc, disease_lp) or
// Airport's proportions; other names have none.
func (source) OfficialSplit(name string) datasets.SplitRule {
	switch {
	case name == "airport":
		return datasets.SplitRule{Rule: datasets.SplitHGCN, PVal: AirportSplit[0], PTest: AirportSplit[1]}
	case strings.HasPrefix(name, "disease"):
		return datasets.SplitRule{Rule: datasets.SplitHGCN, PVal: DiseaseSplit[0], PTest: DiseaseSplit[1]}
	}
	return datasets.SplitRule{}
}

// Params: identity_features, HGCN's use_feats=0 for Disease.
func (source) Params() []datasets.ParamSpec {
	return []datasets.ParamSpec{{Name: "identity_features", Kind: datasets.ParamBool, Default: false,
		Doc: "disease: use the identity matrix when NAME.feats.npz is absent (HGCN's use_feats=0)"}}
}
