// Package schema is what the built-in stages agree on about the artifacts
// they exchange: the kinds, the member names and layouts of each kind, and
// the JSON info documents. The artifacts are bundles (package
// artifact/bundle); the engine (runner, cache, registry) never looks inside
// them, so this schema lives beside the stages that define it, and the CLI
// imports it to read results. `hylaflow cache export` users see the member
// names as the keys of numpy.load(...).
package schema

import (
	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
)

// The artifact kinds of the built-in stages.
const (
	KindGraph     artifact.Kind = "graph"            // adjacency, features, labels, split
	KindFeatures  artifact.Kind = "features"         // precomputed S^K X (feature level) or S (node level)
	KindSplit     artifact.Kind = "split"            // train/val/test index sets
	KindSamples   artifact.Kind = "samples"          // random-feature parameters Ω, Λ, B
	KindEmbedding artifact.Kind = "embedding"        // embedding matrix Z
	KindModel     artifact.Kind = "model"            // trained parameters and curves
	KindMetrics                 = bundle.KindMetrics // a run's scalar results (bundle.Metrics reads them)
	KindTable     artifact.Kind = "table"            // aggregated results (markdown/csv/json)
	KindFigure    artifact.Kind = "figure"           // images
	KindValue     artifact.Kind = "value"            // generic values of the generic stages
	KindArray     artifact.Kind = "array"            // one array a command wrote as .npy (member "array")
	KindArrays    artifact.Kind = "arrays"           // the arrays of a .npz a command wrote (members by name)
	KindFile      artifact.Kind = "file"             // one file a command wrote (member: its base name)
)

// Member names and layouts of the built-in artifact kinds:
//
// KindGraph:
//
//	adj       sparse n×n, symmetric, no self loops (raw weights) — or, after
//	          the normalize stage, S = D^-1/2 (A+I) D^-1/2 (Info.Normalization says which)
//	features  dense or sparse n×d node features (absent for featureless graphs)
//	labels    ints n, class of each node, -1 for unlabelled nodes
//	train, val, test   ints, node indices of the split (may be absent before a split stage)
//	info      JSON GraphInfo
//
// KindSplit: train, val, test (ints), info (JSON SplitInfo).
//
// KindFeatures (the precompute stage):
//
//	X         dense n×d, S^K X (feature level; K = 0 gives X itself)
//	X_train   dense n_train×d, S_train^K X_train for inductive runs (rows in
//	          the order of train), computed on the training subgraph only
//	S         sparse n×n normalised adjacency (node level: X̄ = S^{K-1}·S·φ(Z))
//	X_A, X_B, X_cols, X_lo, X_hi
//	          instead of X for a graph without features (identity
//	          features): X[r, b] = ((X_A·X_B)[r, X_cols[b]] − X_lo[b]) /
//	          (X_hi[b] − X_lo[b]), X_A sparse (the kept rows of S^{K-1}),
//	          X_B sparse n×n (S; absent for K ≤ 1, where X_A is the rows
//	          of S^K), X_cols ints, X_lo and X_hi floats (train.FactoredX)
//	labels, train, val, test, info    copied from the graph
//
// KindSamples: omega (dense D×d0: HyLa's boundary points ω, or RFF's Λᵀ),
// lambda (floats D, HyLa only), b (floats D), info (JSON SamplesInfo).
//
// KindEmbedding: Z (dense m×d0), info (JSON).
//
// KindModel: Z (dense), W (dense D×C or d×C), bias (floats C), curves (JSON).
//
// KindMetrics: metrics (JSON map of name → number, plus strings such as dataset/model).
const (
	MemberAdj      = "adj"
	MemberFeatures = "features"
	MemberLabels   = "labels"
	MemberTrain    = "train"
	MemberVal      = "val"
	MemberTest     = "test"
	MemberInfo     = "info"
	MemberX        = "X"
	MemberXTrain   = "X_train"
	MemberS        = "S"
	MemberXA       = "X_A"
	MemberXB       = "X_B"
	MemberXCols    = "X_cols"
	MemberXLo      = "X_lo"
	MemberXHi      = "X_hi"
	MemberOmega    = "omega"
	MemberLambda   = "lambda"
	MemberB        = "b"
	MemberZ        = "Z"
	MemberW        = "W"
	MemberBias     = "bias"
	MemberCurves   = "curves"
	MemberMetrics  = bundle.MemberMetrics
)

// GraphInfo describes a graph artifact (member "info").
type GraphInfo struct {
	Name          string `json:"name"`           // dataset name, e.g. "cora"
	Source        string `json:"source"`         // planetoid|hgcn|reddit|textgcn|synthetic
	Nodes         int    `json:"nodes"`          // n
	Edges         int    `json:"edges"`          // distinct undirected edges (no self loops)
	Classes       int    `json:"classes"`        // number of classes C
	Binary        bool   `json:"binary"`         // two classes trained with sigmoid + BCE (MR)
	Normalization string `json:"normalization"`  // "none" or "sym_self_loops"
	Inductive     bool   `json:"inductive"`      // train on the training subgraph only
	Docs          int    `json:"docs,omitempty"` // text graphs: the first Docs nodes are documents
}

// SplitInfo describes a split (member "info" of KindSplit).
type SplitInfo struct {
	Rule string `json:"rule"` // "planetoid", "hgcn", "given", "textgcn", "random"
	Seed int    `json:"seed"`
}

// SamplesInfo describes random-feature samples (member "info" of KindSamples).
type SamplesInfo struct {
	Kind       string  `json:"kind"`       // "hyla" or "rff"
	Dim        int     `json:"dim"`        // d0
	Features   int     `json:"features"`   // D
	Scale      float64 `json:"scale"`      // standard deviation s of λ (HyLa) or Λ (RFF)
	Convention string  `json:"convention"` // HyLa λ convention: "code" (λ/2) or "paper"
	Seed       uint64  `json:"seed"`
}
