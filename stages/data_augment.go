package stages

import (
	"context"
	"fmt"
	"math"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

// ---------------------------------------------------------------- augment
//
// HGCN (Chami et al. 2019) augments Airport's four node features with
// structural ones before training its models (`augment` in HGCN's
// utils/data_utils.py, called for Airport only): the node degree, taken as
// the column sums of the unnormalised adjacency matrix (no self loops added,
// the sum truncated to an integer), capped at 5 and one-hot encoded (6
// columns, degree 0 to ≥ 5), and a constant column of ones. HGCN appends
// them after its feature normalisation (row normalisation by default), so in
// a pipeline this stage comes after normalize. The paper's SGC/GCN/HGCN
// numbers for Airport are HGCN's, i.e. measured on these 4 + 7 features.
//
// The degree here is computed from the raw adjacency of the input graph
// (member adj before normalisation, adj_raw after). hylaflow's loaders drop
// self loops, which HGCN's networkx adjacency counts once; on Airport the one
// node with a self loop has degree 6 without it, so its one-hot is the same.

// dataAugmentMaxDegree bounds the max_degree parameter (columns of the one-hot).
const dataAugmentMaxDegree = 1 << 16

func dataAugmentType() *registry.Type {
	return &registry.Type{
		Name:    "augment",
		Version: "1",
		Doc: "Appends HGCN's structural features to a graph's node features (HGCN's augment, used for Airport): " +
			"the one-hot of the node degree capped at max_degree (max_degree + 1 columns; the degree is the column " +
			"sum of the unnormalised adjacency, truncated to an integer) and, with constant, a column of ones. " +
			"HGCN appends them after normalising the features, so connect the graph of a normalize stage. " +
			"Dense features stay dense, sparse stay sparse; everything else of the graph is passed through.",
		Params: []registry.Param{
			{Name: "max_degree", Type: registry.Int, Range: registry.AtLeast(0), Default: 5, Doc: "degrees above this share the last one-hot column (HGCN: 5)"},
			{Name: "constant", Type: registry.Bool, Default: true, Doc: "append a column of ones (HGCN: yes)"},
		},
		Inputs:  []registry.Input{{Name: "graph", Kind: schema.KindGraph, Doc: "graph with node features (from a dataset or normalize stage)"}},
		Outputs: []registry.Output{{Name: dataOutGraph, Kind: schema.KindGraph, Doc: "the graph with max_degree + 1 (+ 1) feature columns appended"}},
		Run:     dataRunAugment,
	}
}

func dataRunAugment(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	in, err := dataOneInput(job, "graph")
	if err != nil {
		return nil, fmt.Errorf("augment: %w", err)
	}
	info, err := dataInfo(in)
	if err != nil {
		return nil, fmt.Errorf("augment: graph input: %w", err)
	}
	maxDeg := job.Params.Int("max_degree")
	if maxDeg < 0 || maxDeg > dataAugmentMaxDegree {
		return nil, fmt.Errorf("augment: max_degree = %d, want 0..%d", maxDeg, dataAugmentMaxDegree)
	}
	adj, err := learnRawAdjacency(in)
	if err != nil {
		return nil, fmt.Errorf("augment: %w", err)
	}
	deg, err := dataAugmentDegrees(adj)
	if err != nil {
		return nil, fmt.Errorf("augment: graph %s: %w", info.Name, err)
	}
	feats, ok := in.Member(schema.MemberFeatures)
	if !ok {
		return nil, fmt.Errorf("augment: graph %s has no node features to augment (load it with features, or identity_features = true)", info.Name)
	}
	extra := maxDeg + 1
	if job.Params.Bool("constant") {
		extra++
	}
	out := dataCopy(in, schema.KindGraph)
	switch x := feats.(type) {
	case *mat.Dense:
		y, err := dataAugmentDense(x, deg, maxDeg, extra)
		if err != nil {
			return nil, fmt.Errorf("augment: graph %s: %w", info.Name, err)
		}
		out.SetDense(schema.MemberFeatures, y)
	case *sparse.CSR:
		y, err := dataAugmentSparse(x, deg, maxDeg, extra)
		if err != nil {
			return nil, fmt.Errorf("augment: graph %s: %w", info.Name, err)
		}
		out.SetSparse(schema.MemberFeatures, y)
	default:
		return nil, fmt.Errorf("augment: graph %s: features member is %T, want a dense or sparse matrix", info.Name, feats)
	}
	job.Logf("augment %s: %d feature columns appended (degree one-hot 0..%d%s)", info.Name, extra, maxDeg,
		map[bool]string{true: ", constant", false: ""}[extra > maxDeg+1])
	return map[string]artifact.Artifact{dataOutGraph: out}, ctx.Err()
}

// dataAugmentDegrees returns the column sums of the unnormalised adjacency
// truncated to integers (numpy's astype(int) of HGCN's np.sum(adj, axis=0)).
// Weights must be finite and ≥ 0.
func dataAugmentDegrees(adj *sparse.CSR) ([]int, error) {
	if err := adj.Validate(); err != nil {
		return nil, fmt.Errorf("adjacency: %w", err)
	}
	if adj.Rows != adj.Cols {
		return nil, fmt.Errorf("adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	sums := make([]float64, adj.Cols)
	for i := 0; i < adj.Rows; i++ {
		for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
			w := adj.Data[k]
			if !(w >= 0) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("adjacency entry (%d, %d) = %v, want a finite weight ≥ 0", i, adj.Indices[k], w)
			}
			sums[adj.Indices[k]] += w
		}
	}
	deg := make([]int, len(sums))
	for j, s := range sums {
		if s > math.MaxInt32 {
			return nil, fmt.Errorf("degree of node %d is %g, too large", j, s)
		}
		deg[j] = int(s) // truncation toward zero, as numpy's astype(int)
	}
	return deg, nil
}

// dataAugmentDense returns [x | onehot(min(deg, maxDeg)) | 1] (the constant
// column when extra = maxDeg + 2).
func dataAugmentDense(x *mat.Dense, deg []int, maxDeg, extra int) (*mat.Dense, error) {
	r, c := x.Dims()
	if x.IsEmpty() {
		r, c = 0, 0
	}
	if r != len(deg) {
		return nil, fmt.Errorf("features have %d rows for %d nodes of the adjacency", r, len(deg))
	}
	if r == 0 {
		return nil, fmt.Errorf("graph has no nodes")
	}
	y := mat.NewDense(r, c+extra, nil)
	for i := 0; i < r; i++ {
		row := y.RawRowView(i)
		copy(row, x.RawRowView(i))
		row[c+min(deg[i], maxDeg)] = 1
		if extra > maxDeg+1 {
			row[c+maxDeg+1] = 1
		}
	}
	return y, nil
}

// dataAugmentSparse is dataAugmentDense for CSR features.
func dataAugmentSparse(x *sparse.CSR, deg []int, maxDeg, extra int) (*sparse.CSR, error) {
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("features: %w", err)
	}
	if x.Rows != len(deg) {
		return nil, fmt.Errorf("features have %d rows for %d nodes of the adjacency", x.Rows, len(deg))
	}
	if x.Rows == 0 {
		return nil, fmt.Errorf("graph has no nodes")
	}
	cols := x.Cols + extra
	if cols > math.MaxInt32 {
		return nil, fmt.Errorf("features have %d columns, too many to augment", x.Cols)
	}
	perRow := extra - maxDeg // one-hot entry + constant
	y := &sparse.CSR{Rows: x.Rows, Cols: cols, Indptr: make([]int, x.Rows+1),
		Indices: make([]int32, 0, x.NNZ()+perRow*x.Rows), Data: make([]float64, 0, x.NNZ()+perRow*x.Rows)}
	for i := 0; i < x.Rows; i++ {
		lo, hi := x.Indptr[i], x.Indptr[i+1]
		y.Indices = append(y.Indices, x.Indices[lo:hi]...)
		y.Data = append(y.Data, x.Data[lo:hi]...)
		y.Indices = append(y.Indices, int32(x.Cols+min(deg[i], maxDeg)))
		y.Data = append(y.Data, 1)
		if extra > maxDeg+1 {
			y.Indices = append(y.Indices, int32(x.Cols+maxDeg+1))
			y.Data = append(y.Data, 1)
		}
		y.Indptr[i+1] = len(y.Data)
	}
	return y, nil
}
