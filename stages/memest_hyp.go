package stages

import (
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// Memory estimates of the hyperbolic stages (hnn, hgcn, lgcn, linkpred;
// learning_hyp.go), in the pattern of memest.go: the graph decoded with
// the copies training makes (D^-1(A+I) and the transposes the sparse
// products keep), 3× the inputs' size, plus the arrays of one epoch on the
// tape. Every hyperbolic layer leaves about hypNodeArrays n×(dim+1)
// float64 arrays on the tape (values and gradients of the hyperbolic maps,
// the aggregation, the activation, the products with the dropped-out
// weights), counted twice for the collector's headroom (GOGC = 100 lets
// the heap grow to twice the live data before it frees the previous
// epoch's); HGCN's Shallow classifier on pretrained embeddings has no
// hyperbolic layer and about hypShallowArrays. Link prediction adds, per
// training pair (every training edge and as many negatives), the gathered
// rows, their Möbius difference, distance and gradients: about
// hypPairArrays rows of dim+1 float64, also counted twice. The number of
// edges is not in the inputs' shapes (a sparse matrix's stored shape is
// rows × cols): it is bounded by the inputs' size (12 stored bytes per
// adjacency entry, two entries per edge) and by an average degree of
// hypMaxDegree, twice Table 1's densest graph (Pubmed, 4.5). HGCN with
// attention (use_att) adds, per layer, about hypEdgeArrays float64 per
// stored entry of D^-1(A+I) (the edge scores, their sigmoids, the weights
// and their gradients), also counted twice.
//
// Measured peak RSS (`/usr/bin/time -v hylaflow run --force STAGE` with
// its inputs cached, 20 epochs, Pubmed with row-normalised features, a
// 14.9 MB graph input, table1.hcl's settings): hnn 312 MiB
// (estimate 516 MiB), hgcn 436 MiB (516), lgcn 320 MiB (516), linkpred
// 849 MiB (1,394), hgcn on linkpred's embeddings 180 MiB (242);
// TestMemHypPubmed keeps these figures.
const (
	hypNodeArrays    = 80
	hypShallowArrays = 25
	hypPairArrays    = 12
	hypMaxDegree     = 9
	hypEdgeArrays    = 8
)

// hypNodes returns the number of nodes of the graph input (0 if unknown).
func hypNodes(in map[string][]registry.InputSize) int64 {
	graphs := in["graph"]
	if len(graphs) != 1 {
		return 0
	}
	adj := graphs[0].Shapes[schema.MemberAdj]
	if len(adj) != 2 {
		return 0
	}
	return int64(adj[0])
}

// memHyp is hnn's, hgcn's and lgcn's estimate: layers−1 hyperbolic
// layers, or HGCN's Shallow classifier when an embeddings input is
// connected.
func memHyp(p registry.Values, in map[string][]registry.InputSize) int64 {
	base := 3*memInputBytes(in) + memBase
	n := hypNodes(in)
	if n == 0 {
		return base
	}
	row := n * int64(p.Int("dim")+1) * 8
	if len(in["embeddings"]) > 0 {
		return base + 2*hypShallowArrays*row
	}
	layers := int64(max(p.Int("layers")-1, 1))
	est := base + 2*hypNodeArrays*layers*row
	if att, ok := p["use_att"].(bool); ok && att {
		entries := 2*min(memInputBytes(in)/24, hypMaxDegree*n/2) + n // the edges both ways and the self-loops
		est += 2 * hypEdgeArrays * layers * entries * 8
	}
	return est
}

// memLinkPred is linkpred's: layers hyperbolic layers and the training
// pairs.
func memLinkPred(p registry.Values, in map[string][]registry.InputSize) int64 {
	base := 3*memInputBytes(in) + memBase
	n := hypNodes(in)
	if n == 0 {
		return base
	}
	width := int64(p.Int("dim")+1) * 8
	edges := min(memInputBytes(in)/24, hypMaxDegree*n/2)
	pairs := 2 * int64(float64(edges)*max(0, 1-p.Float("val_prop")-p.Float("test_prop")))
	return base + 2*hypNodeArrays*int64(max(p.Int("layers"), 1))*n*width + 2*hypPairArrays*pairs*width
}
