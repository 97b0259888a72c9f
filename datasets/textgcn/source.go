package textgcn

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
)

func init() { datasets.Register(source{}) }

// source is the TextGCN corpora as a datasets.Source. A corpus is loaded
// as a graph in one of three views (the dataset stage's view parameter):
// transductive, the doc+word corpus graph without features, whose first
// Docs nodes are the documents (Graph.Docs); inductive, the documents alone
// without edges and with their TF-IDF rows as features; inductive_corpus,
// the corpus graph built from the training documents alone with the test
// documents attached one way (Corpus.InductiveCorpusGraph).
type source struct{}

func (source) Name() string { return "textgcn" }

// FileName maps a user's spelling of a corpus (r8, R8, Ohsumed, …) to the
// base name of its files (R8, R52, ohsumed, mr); other names are kept.
func FileName(name string) string {
	switch strings.ToLower(name) {
	case "r8":
		return "R8"
	case "r52":
		return "R52"
	case "mr":
		return "mr"
	case "ohsumed":
		return "ohsumed"
	}
	return name
}

// Files are the meta file (required), TextGCN's cleaned corpus and the raw
// corpus: Load reads the cleaned one when it exists, else cleans the raw
// one, so each of the two is optional on its own and one of them is
// needed (AnyOf "corpus").
func (source) Files(req datasets.Request) ([]datasets.File, error) {
	name := req.Name
	if name == "" || strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
		return nil, fmt.Errorf("textgcn: invalid corpus name %q (want R8, R52, ohsumed or mr)", name)
	}
	n := FileName(name)
	return []datasets.File{{Path: "textgcn/" + n + ".txt"},
		{Path: "textgcn/corpus/" + n + ".clean.txt", Optional: true, AnyOf: "corpus"},
		{Path: "textgcn/corpus/" + n + ".txt", Optional: true, AnyOf: "corpus"}}, nil
}

func (source) Generator(string) (string, string) { return "", "" }

// Load reads the corpus from ROOT/textgcn with the parameters seed,
// val_fraction, window, min_freq and clean (zero values: TextGCN's) and
// returns the graph of the parameter view ("" or transductive, inductive).
func (s source) Load(_ context.Context, req datasets.Request) (*datasets.Graph, error) {
	req, err := datasets.Resolve(s, req)
	if err != nil {
		return nil, err
	}
	paths := req.Paths() // meta, cleaned corpus, raw corpus: Files' order
	if len(paths) != 3 {
		return nil, fmt.Errorf("textgcn %s: %d declared files, want 3", req.Name, len(paths))
	}
	p := req.Params
	c, err := LoadFiles(FileName(req.Name), paths[0], paths[1], paths[2], Options{
		Seed: p.Int("seed"), ValFraction: p.Float("val_fraction"), Window: p.Int("window"),
		MinFreq: p.Int("min_freq"), Clean: p.Bool("clean"),
	})
	if err != nil {
		return nil, err
	}
	return c.Graph(p.String("view"))
}

// Graph returns the corpus as a graph in view "inductive",
// "inductive_corpus" or (any other value) "transductive"; see the
// package's source type.
func (c *Corpus) Graph(view string) (*datasets.Graph, error) {
	if c.DocWord == nil || len(c.Labels) != c.Docs {
		return nil, fmt.Errorf("textgcn %s: corpus without doc-word matrix or labels", c.Name)
	}
	g := &datasets.Graph{Name: c.Name, Source: "textgcn", Classes: len(c.Classes), Binary: len(c.Classes) == 2,
		Train: slices.Clone(c.Train), Val: slices.Clone(c.Val), Test: slices.Clone(c.Test)}
	switch view {
	case ViewInductiveCorpus:
		return c.InductiveCorpusGraph()
	case "inductive":
		g.Adj = &sparse.CSR{Rows: c.Docs, Cols: c.Docs, Indptr: make([]int, c.Docs+1)}
		g.SparseFeatures = c.DocWord
		g.Labels = slices.Clone(c.Labels)
		g.Inductive = true
	default:
		adj := c.Adjacency()
		if adj == nil {
			return nil, fmt.Errorf("textgcn %s: no corpus graph", c.Name)
		}
		g.Adj = adj
		g.Docs = c.Docs
		g.Labels = make([]int, adj.Rows)
		for i := range g.Labels {
			g.Labels[i] = -1
		}
		copy(g.Labels, c.Labels)
	}
	return g, g.Validate()
}

// OfficialSplit is TextGCN's: the meta file's train/test with a seeded
// validation draw from the training documents (Load sets it).
func (source) OfficialSplit(string) datasets.SplitRule {
	return datasets.SplitRule{Rule: datasets.SplitGiven}
}

// Params: the validation draw, the corpus graph's construction and the
// view Load returns.
func (source) Params() []datasets.ParamSpec {
	return []datasets.ParamSpec{
		{Name: "seed", Kind: datasets.ParamInt, Default: 0, Min: datasets.Bound(0), Doc: "seed of the validation draw"},
		{Name: "view", Kind: datasets.ParamString, Default: "transductive", Enum: []string{"transductive", "inductive", "inductive_corpus"},
			Doc: "transductive = the doc+word corpus graph without features (node level); inductive = documents only, TF-IDF rows as features, no edges; inductive_corpus = the corpus graph of the training documents alone, test documents joined one way to its words (inductive TextGCN)"},
		{Name: "val_fraction", Kind: datasets.ParamFloat, Default: 0.1, Min: datasets.Bound(0), Below: datasets.Bound(1), Doc: "fraction of training documents held out for validation"},
		{Name: "window", Kind: datasets.ParamInt, Default: 20, Min: datasets.Bound(1), Doc: "PMI sliding window"},
		{Name: "min_freq", Kind: datasets.ParamInt, Default: 5, Min: datasets.Bound(0), Doc: "words rarer than this are removed when cleaning"},
		{Name: "clean", Kind: datasets.ParamBool, Default: false, Doc: "clean the raw corpus instead of reading corpus/NAME.clean.txt"},
	}
}
