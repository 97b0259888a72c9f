// Package datasets holds what the dataset loaders share: the loaded Graph,
// the Source registry, the catalogue of known benchmarks, the default data
// root, splits, graph statistics, file fingerprints and the fetcher. The
// loaders live in sub-packages (planetoid, hgcn, reddit, synthetic,
// textgcn), each registering a Source in its init function; datasets/all
// imports them all. Stages and the CLI reach a loader only through
// SourceOf or SourceFor, so adding a benchmark is one source package, its
// catalogue entries in catalog.go and one import in datasets/all; the
// conformance test in datasets/all checks every registered source.
package datasets

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Graph is a node-classification dataset.
type Graph struct {
	Name   string
	Source string // the name of the registered Source that loaded it
	// Adj is the n×n symmetric adjacency without self loops (weights as loaded).
	Adj *sparse.CSR
	// Exactly one of SparseFeatures and DenseFeatures is set (n×d), or
	// neither for a featureless graph.
	SparseFeatures *sparse.CSR
	DenseFeatures  *mat.Dense
	Labels         []int // class per node, -1 for unlabelled nodes
	Classes        int
	// The split, when the dataset defines one (Planetoid, Reddit); nil otherwise.
	Train, Val, Test []int
	Inductive        bool // train on the training subgraph only (Reddit)
	Binary           bool
	// EdgeCount, when positive, is the number of distinct undirected edges
	// of Adj as its builder knows it (a generator that makes Adj symmetric
	// without self loops: NNZ/2); Edges returns it instead of counting.
	EdgeCount int
	Docs      int // text graphs: the first Docs nodes are documents
}

// Nodes returns the number of nodes.
func (g *Graph) Nodes() int { return g.Adj.Rows }

// Edges returns the number of distinct undirected edges (self loops
// excluded): EdgeCount if set, else CountEdges(Adj).
func (g *Graph) Edges() int {
	if g.EdgeCount > 0 {
		return g.EdgeCount
	}
	return CountEdges(g.Adj)
}

// FeatureDim returns the number of feature columns (0 if featureless).
func (g *Graph) FeatureDim() int {
	switch {
	case g.SparseFeatures != nil:
		return g.SparseFeatures.Cols
	case g.DenseFeatures != nil:
		_, c := g.DenseFeatures.Dims()
		return c
	}
	return 0
}

// Validate checks the shapes and indices of g.
func (g *Graph) Validate() error {
	if g.Adj == nil {
		return errors.New("graph has no adjacency")
	}
	n := g.Adj.Rows
	if g.Adj.Cols != n {
		return fmt.Errorf("adjacency is %dx%d, not square", g.Adj.Rows, g.Adj.Cols)
	}
	if err := g.Adj.Validate(); err != nil {
		return fmt.Errorf("adjacency: %w", err)
	}
	if g.SparseFeatures != nil && g.SparseFeatures.Rows != n {
		return fmt.Errorf("features have %d rows for %d nodes", g.SparseFeatures.Rows, n)
	}
	if g.DenseFeatures != nil {
		if r, _ := g.DenseFeatures.Dims(); r != n {
			return fmt.Errorf("features have %d rows for %d nodes", r, n)
		}
	}
	if len(g.Labels) != n {
		return fmt.Errorf("%d labels for %d nodes", len(g.Labels), n)
	}
	for i, l := range g.Labels {
		if l < -1 || l >= g.Classes {
			return fmt.Errorf("label %d of node %d outside [-1,%d)", l, i, g.Classes)
		}
	}
	for _, s := range []struct {
		name string
		idx  []int
	}{{"train", g.Train}, {"val", g.Val}, {"test", g.Test}} {
		for k, i := range s.idx {
			if i < 0 || i >= n {
				return fmt.Errorf("%s index %d at position %d outside [0,%d)", s.name, i, k, n)
			}
		}
	}
	return nil
}

// CountEdges returns the number of distinct unordered pairs {i,j}, i≠j, with
// a stored entry in a (either direction). Rows that are not sorted or hold
// a column twice are put in canonical form first.
func CountEdges(a *sparse.CSR) int {
	if a.CheckSorted() != nil {
		a = a.Canonical()
	}
	return countEdgesSorted(a)
}

// countEdgesSorted is CountEdges for rows with strictly increasing columns,
// without building the transpose: every entry (i, j) above the diagonal is
// one pair, and an entry (i, j) below it is a further pair unless row j
// holds i (binary search). Row blocks run in parallel; the sum of the
// blocks' counts does not depend on how many run at once.
func countEdgesSorted(a *sparse.CSR) int {
	const block = 4096
	blocks := (a.Rows + block - 1) / block
	counts := make([]int, blocks)
	workers := max(1, min(runtime.GOMAXPROCS(0), blocks, a.NNZ()>>16))
	parallel.Balanced(context.Background(), a.Rows, block, workers, func(lo, hi int) {
		c := 0
		for i := lo; i < hi; i++ {
			for _, j := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
				switch {
				case int(j) > i:
					c++
				case int(j) < i:
					if _, found := slices.BinarySearch(a.Indices[a.Indptr[j]:a.Indptr[j+1]], int32(i)); !found {
						c++
					}
				}
			}
		}
		counts[lo/block] = c
	})
	total := 0
	for _, c := range counts {
		total += c
	}
	return total
}

// SymmetricFromEdges builds a symmetric 0/1 adjacency from an edge list,
// ignoring self loops and merging duplicates.
func SymmetricFromEdges(n int, us, vs []int) (*sparse.CSR, error) {
	return symmetricFromEdges(n, us, vs, false)
}

// NetworkxAdjacency builds the adjacency networkx gives for the undirected
// graph of an edge list (nx.adjacency_matrix of an nx.Graph without edge
// weights): symmetric, duplicates merged, every entry 1, and a self loop
// kept as a 1 on the diagonal. The official HyLa and HGCN code build the
// Planetoid and Airport graphs this way and then add I, so a node with a
// self loop in the files weighs itself twice in S = D^-1/2 (A+I) D^-1/2
// (Citeseer has 124 such nodes, Pubmed 3, Airport 1, Cora none).
func NetworkxAdjacency(n int, us, vs []int) (*sparse.CSR, error) {
	return symmetricFromEdges(n, us, vs, true)
}

func symmetricFromEdges(n int, us, vs []int, loops bool) (*sparse.CSR, error) {
	ri := make([]int, 0, 2*len(us))
	ci := make([]int, 0, 2*len(us))
	for k := range us {
		switch {
		case us[k] != vs[k]:
			ri = append(ri, us[k], vs[k])
			ci = append(ci, vs[k], us[k])
		case loops:
			ri = append(ri, us[k])
			ci = append(ci, vs[k])
		}
	}
	a, err := sparse.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		return nil, err
	}
	for k := range a.Data {
		a.Data[k] = 1
	}
	return a, nil
}

// HGCNSplit implements HGCN's split rule: with the seed, shuffle the nodes
// with label != 0 ("positive") and those with label == 0 ("negative")
// separately; m = min(#pos, #neg), n_val = round(pVal·m), n_test =
// round(pTest·m); val = the first n_val of each group, test = the next n_test
// of each group, train = the rest. Unlabelled nodes (-1) are left out.
func HGCNSplit(labels []int, pVal, pTest float64, seed uint64) (train, val, test []int, err error) {
	if pVal < 0 || pTest < 0 || pVal+pTest > 1 {
		return nil, nil, nil, fmt.Errorf("split proportions val=%v test=%v must be non-negative and sum to at most 1", pVal, pTest)
	}
	var pos, neg []int
	for i, l := range labels {
		switch {
		case l > 0:
			pos = append(pos, i)
		case l == 0:
			neg = append(neg, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6867636e)) // "hgcn"
	rng.Shuffle(len(pos), func(i, j int) { pos[i], pos[j] = pos[j], pos[i] })
	rng.Shuffle(len(neg), func(i, j int) { neg[i], neg[j] = neg[j], neg[i] })
	m := min(len(pos), len(neg))
	nv := roundHalfEven(pVal * float64(m))
	nt := min(roundHalfEven(pTest*float64(m)), m-nv)
	val = append(slices.Clone(pos[:nv]), neg[:nv]...)
	test = append(slices.Clone(pos[nv:nv+nt]), neg[nv:nv+nt]...)
	train = append(slices.Clone(pos[nv+nt:]), neg[nv+nt:]...)
	return train, val, test, nil
}

// RandomSplit shuffles the labelled nodes with the seed and cuts them into
// train/val/test with the given proportions (test and val rounded, train the rest).
func RandomSplit(labels []int, pVal, pTest float64, seed uint64) (train, val, test []int, err error) {
	if pVal < 0 || pTest < 0 || pVal+pTest > 1 {
		return nil, nil, nil, fmt.Errorf("split proportions val=%v test=%v must be non-negative and sum to at most 1", pVal, pTest)
	}
	var idx []int
	for i, l := range labels {
		if l >= 0 {
			idx = append(idx, i)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x72616e64)) // "rand"
	rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	nv := roundHalfEven(pVal * float64(len(idx)))
	nt := min(roundHalfEven(pTest*float64(len(idx))), len(idx)-nv)
	val = slices.Clone(idx[:nv])
	test = slices.Clone(idx[nv : nv+nt])
	train = slices.Clone(idx[nv+nt:])
	return train, val, test, nil
}

// StratifiedSplit draws a split that keeps each class's share: with the
// seed, the labelled nodes of each class are shuffled separately and
// n_val = round(pVal·n_c) of them go to validation, n_test = round(pTest·n_c)
// to test and the rest to training; each part is returned in increasing
// node order. Unlabelled nodes (-1) are left out.
func StratifiedSplit(labels []int, pVal, pTest float64, seed uint64) (train, val, test []int, err error) {
	if pVal < 0 || pTest < 0 || pVal+pTest > 1 {
		return nil, nil, nil, fmt.Errorf("split proportions val=%v test=%v must be non-negative and sum to at most 1", pVal, pTest)
	}
	var byClass [][]int
	for i, l := range labels {
		if l < 0 {
			continue
		}
		for len(byClass) <= l {
			byClass = append(byClass, nil)
		}
		byClass[l] = append(byClass[l], i)
	}
	rng := rand.New(rand.NewPCG(seed, 0x7374726174)) // "strat"
	for _, idx := range byClass {
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		nv := roundHalfEven(pVal * float64(len(idx)))
		nt := min(roundHalfEven(pTest*float64(len(idx))), len(idx)-nv)
		val = append(val, idx[:nv]...)
		test = append(test, idx[nv:nv+nt]...)
		train = append(train, idx[nv+nt:]...)
	}
	slices.Sort(train)
	slices.Sort(val)
	slices.Sort(test)
	return train, val, test, nil
}

// roundHalfEven rounds like Python 3's round().
func roundHalfEven(x float64) int {
	f := float64(int(x))
	d := x - f
	switch {
	case d > 0.5:
		return int(f) + 1
	case d < 0.5:
		return int(f)
	}
	if int(f)%2 == 0 {
		return int(f)
	}
	return int(f) + 1
}
