package bundle

import "github.com/hylaflow/hylaflow/artifact"

// Kinds and member names for the tests, as the built-in stages use them
// (package stages/schema, which imports this package, defines them).
const (
	KindGraph    artifact.Kind = "graph"
	KindFeatures artifact.Kind = "features"
	KindModel    artifact.Kind = "model"
	KindTable    artifact.Kind = "table"
	KindFigure   artifact.Kind = "figure"
	KindValue    artifact.Kind = "value"

	MemberAdj      = "adj"
	MemberFeatures = "features"
	MemberInfo     = "info"
	MemberLabels   = "labels"
	MemberS        = "S"
	MemberTrain    = "train"
	MemberX        = "X"
)

// GraphInfo is the graph stages' JSON info document (stages/schema.GraphInfo).
type GraphInfo struct {
	Name          string `json:"name"`
	Source        string `json:"source"`
	Nodes         int    `json:"nodes"`
	Edges         int    `json:"edges"`
	Classes       int    `json:"classes"`
	Binary        bool   `json:"binary"`
	Normalization string `json:"normalization"`
	Inductive     bool   `json:"inductive"`
	Docs          int    `json:"docs,omitempty"`
}
