package reddit

import (
	"context"

	"github.com/hylaflow/hylaflow/datasets"
)

func init() { datasets.Register(source{}) }

// source is the Reddit loader as a datasets.Source: FastGCN's two npz
// files under reddit/, whatever the dataset's name; the split is the given one.
type source struct{}

func (source) Name() string { return "reddit" }

// Files are reddit/reddit.npz and reddit/reddit_adj.npz, both required.
func (source) Files(datasets.Request) ([]datasets.File, error) {
	return []datasets.File{{Path: "reddit/reddit.npz"}, {Path: "reddit/reddit_adj.npz"}}, nil
}

func (source) Generator(string) (string, string) { return "", "" }

// Load reads the two files Files declares (ROOT/reddit/*.npz).
func (s source) Load(_ context.Context, req datasets.Request) (*datasets.Graph, error) {
	req, err := datasets.Resolve(s, req)
	if err != nil {
		return nil, err
	}
	data, err := req.Path("reddit/reddit.npz")
	if err != nil {
		return nil, err
	}
	adj, err := req.Path("reddit/reddit_adj.npz")
	if err != nil {
		return nil, err
	}
	return LoadFiles(data, adj)
}

// OfficialSplit is FastGCN's split, stored in reddit.npz.
func (source) OfficialSplit(string) datasets.SplitRule {
	return datasets.SplitRule{Rule: datasets.SplitGiven}
}

// Params: none; the files are all there is.
func (source) Params() []datasets.ParamSpec { return nil }
