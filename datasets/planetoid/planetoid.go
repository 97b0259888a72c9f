// Package planetoid loads the Planetoid citation graphs (Cora, Citeseer,
// Pubmed) from their original ind.NAME.* Python pickles, the way Kipf &
// Welling's GCN code does, with the standard split.
package planetoid

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/datasets/pyobj"
	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/nlpodyssey/gopickle/types"
)

// Names lists the Planetoid datasets.
var Names = []string{"cora", "citeseer", "pubmed"}

// Suffixes are the file suffixes of one dataset: ind.NAME.SUFFIX.
var Suffixes = []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"}

// CheckName checks that name can be used in the file names ind.NAME.*:
// letters, digits, '.', '_' and '-', starting with a letter or digit,
// without "..", at most 64 bytes. A name from a pipeline never reaches
// the file system otherwise (no path separators, no traversal).
func CheckName(name string) error {
	ok := name != "" && len(name) <= 64 && !strings.Contains(name, "..")
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		ok = alnum || i > 0 && (c == '.' || c == '_' || c == '-')
	}
	if !ok {
		return fmt.Errorf("planetoid: dataset name %q: want 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit (the files are ind.NAME.x, …; e.g. %s)",
			name, strings.Join(Names, ", "))
	}
	return nil
}

// Files returns the paths of the files of dataset name under dir (the
// planetoid/ folder of the data root). The name must pass CheckName.
func Files(dir, name string) []string {
	out := make([]string, len(Suffixes))
	for i, s := range Suffixes {
		out[i] = filepath.Join(dir, "ind."+name+"."+s)
	}
	return out
}

// Load reads dataset name from dir (the folder holding ind.NAME.*).
//
// Features = vstack(allx, tx) with tx row k moved to graph id test.index[k];
// labels likewise from (ally, ty). Citeseer's test ids that have no tx row
// get zero features and label -1. The adjacency is the undirected graph of
// the adjacency lists as networkx builds it in the official code
// (duplicates merged, a listed self loop kept as a 1 on the diagonal; see
// datasets.NetworkxAdjacency). Split: train =
// the first len(y) nodes, val = the next 500, test = the sorted test.index.
func Load(dir, name string) (*datasets.Graph, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	return LoadPaths(name, Files(dir, name))
}

// LoadPaths is Load on the given files, one per Suffixes entry in that
// order (the Source passes the files it declares).
func LoadPaths(name string, paths []string) (*datasets.Graph, error) {
	if len(paths) != len(Suffixes) {
		return nil, fmt.Errorf("planetoid %s: %d files, want %d (ind.%s.{%s})", name, len(paths), len(Suffixes), name, strings.Join(Suffixes, ","))
	}
	bySuffix := make(map[string]string, len(paths))
	for i, s := range Suffixes {
		bySuffix[s] = paths[i]
	}
	path := func(s string) string { return bySuffix[s] }
	sparseFile := func(s string) (*sparse.CSR, error) {
		v, err := pyobj.LoadFile(path(s))
		if err != nil {
			return nil, err
		}
		m, ok := v.(*pyobj.CSRMatrix)
		if !ok {
			return nil, fmt.Errorf("%s: holds %T, want a scipy csr_matrix", path(s), v)
		}
		c, err := m.CSR()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path(s), err)
		}
		return c, nil
	}
	labelFile := func(s string) (*npy.Array, error) {
		v, err := pyobj.LoadFile(path(s))
		if err != nil {
			return nil, err
		}
		a, ok := v.(*pyobj.NDArray)
		if !ok {
			return nil, fmt.Errorf("%s: holds %T, want a numpy array", path(s), v)
		}
		arr, err := a.Array()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path(s), err)
		}
		if len(arr.Shape) != 2 || arr.Floats == nil {
			return nil, fmt.Errorf("%s: labels of shape %v, want a 2-D one-hot matrix", path(s), arr.Shape)
		}
		return arr, nil
	}
	for _, f := range paths {
		if _, err := os.Stat(f); err != nil {
			return nil, fmt.Errorf("planetoid %s: %w (get the files with `hylaflow datasets fetch %s`)", name, err, name)
		}
	}
	// The eight files are independent: read and decode them concurrently,
	// then report the first error in file order.
	var (
		x, tx, allx *sparse.CSR
		y, ty, ally *npy.Array
		testIdx     []int
		graph       *types.Dict
		errs        [8]error
	)
	jobs := []func() error{
		func() (err error) { x, err = sparseFile("x"); return err },
		func() (err error) { y, err = labelFile("y"); return err },
		func() (err error) { tx, err = sparseFile("tx"); return err },
		func() (err error) { ty, err = labelFile("ty"); return err },
		func() (err error) { allx, err = sparseFile("allx"); return err },
		func() (err error) { ally, err = labelFile("ally"); return err },
		func() (err error) { testIdx, err = readIndex(path("test.index")); return err },
		func() (err error) { graph, err = loadGraphDict(path("graph")); return err },
	}
	parallel.Balanced(context.Background(), len(jobs), 1, len(jobs), func(k, _ int) { errs[k] = jobs[k]() })
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	classes := ally.Shape[1]
	d := allx.Cols
	switch {
	case tx.Cols != d || x.Cols != d:
		return nil, fmt.Errorf("planetoid %s: feature widths differ: allx %d, tx %d, x %d", name, d, tx.Cols, x.Cols)
	case y.Shape[1] != classes || ty.Shape[1] != classes:
		return nil, fmt.Errorf("planetoid %s: label widths differ: ally %d, ty %d, y %d", name, classes, ty.Shape[1], y.Shape[1])
	case allx.Rows != ally.Shape[0] || tx.Rows != ty.Shape[0] || x.Rows != y.Shape[0]:
		return nil, fmt.Errorf("planetoid %s: feature and label row counts differ (allx %d/ally %d, tx %d/ty %d, x %d/y %d)",
			name, allx.Rows, ally.Shape[0], tx.Rows, ty.Shape[0], x.Rows, y.Shape[0])
	case len(testIdx) != tx.Rows:
		return nil, fmt.Errorf("planetoid %s: %d test indices for %d tx rows", name, len(testIdx), tx.Rows)
	case len(testIdx) == 0:
		return nil, fmt.Errorf("planetoid %s: empty test index", name)
	}
	sorted := slices.Clone(testIdx)
	slices.Sort(sorted)
	lo, hi := sorted[0], sorted[len(sorted)-1]
	if lo != allx.Rows {
		return nil, fmt.Errorf("%s: smallest test index %d, want len(allx) = %d", path("test.index"), lo, allx.Rows)
	}
	for k := 1; k < len(sorted); k++ {
		if sorted[k] == sorted[k-1] {
			return nil, fmt.Errorf("%s: test index %d repeated", path("test.index"), sorted[k])
		}
	}
	n := hi + 1 // Citeseer: ids in [lo, hi] without a tx row are isolated nodes
	if n-allx.Rows > 10*tx.Rows {
		return nil, fmt.Errorf("%s: test index range [%d,%d] implausibly wide for %d rows", path("test.index"), lo, hi, tx.Rows)
	}
	// Row of the feature/label source for each node: allx row i for i < len(allx);
	// tx row k for node testIdx[k]; none for the gaps. allx and tx are
	// canonical and every node has at most one source row, so the rows are
	// copied as they are.
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	argmax := func(a *npy.Array, row int) int {
		best, bi := 0.0, -1
		for c := 0; c < classes; c++ {
			if v := a.Floats[row*classes+c]; v > best {
				best, bi = v, c
			}
		}
		return bi
	}
	srcM := make([]*sparse.CSR, n)
	srcRow := make([]int, n)
	for i := 0; i < allx.Rows; i++ {
		srcM[i], srcRow[i] = allx, i
		labels[i] = argmax(ally, i)
	}
	for k, node := range testIdx {
		srcM[node], srcRow[node] = tx, k
		labels[node] = argmax(ty, k)
	}
	feats := &sparse.CSR{Rows: n, Cols: d, Indptr: make([]int, n+1),
		Indices: make([]int32, 0, allx.NNZ()+tx.NNZ()), Data: make([]float64, 0, allx.NNZ()+tx.NNZ())}
	for i, m := range srcM {
		if m != nil {
			lo, hi := m.Indptr[srcRow[i]], m.Indptr[srcRow[i]+1]
			feats.Indices = append(feats.Indices, m.Indices[lo:hi]...)
			feats.Data = append(feats.Data, m.Data[lo:hi]...)
		}
		feats.Indptr[i+1] = len(feats.Data)
	}
	adj, err := graphAdjacency(path("graph"), graph, n)
	if err != nil {
		return nil, err
	}
	nTrain := y.Shape[0]
	if nTrain+500 > allx.Rows {
		return nil, fmt.Errorf("planetoid %s: %d training rows + 500 validation rows exceed the %d rows of allx", name, nTrain, allx.Rows)
	}
	g := &datasets.Graph{
		Name: name, Source: "planetoid", Adj: adj, SparseFeatures: feats,
		Labels: labels, Classes: classes,
		Train: seq(0, nTrain), Val: seq(nTrain, nTrain+500), Test: sorted,
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("planetoid %s: %w", name, err)
	}
	return g, nil
}

func seq(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}

// readIndex reads one non-negative integer per line.
func readIndex(path string) ([]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		v, err := strconv.Atoi(string(t))
		if err != nil || v < 0 || v > 1<<30 {
			return nil, fmt.Errorf("%s:%d: expected a non-negative node index, got %q", path, line, truncate(string(t)))
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	return out, nil
}

func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// loadGraphDict reads the adjacency-list dict {node: [neighbours]}.
func loadGraphDict(path string) (*types.Dict, error) {
	v, err := pyobj.LoadFile(path)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*types.Dict)
	if !ok {
		return nil, fmt.Errorf("%s: holds %T, want a dict of adjacency lists", path, v)
	}
	return d, nil
}

// graphAdjacency is the undirected adjacency of the dict d read from path.
func graphAdjacency(path string, d *types.Dict, n int) (*sparse.CSR, error) {
	var us, vs []int
	for k, e := range *d {
		u, ok := pyobj.AsInt(e.Key)
		if !ok || u < 0 || u >= n {
			return nil, fmt.Errorf("%s: entry %d: key %v is not a node id in [0,%d)", path, k, e.Key, n)
		}
		lst, ok := e.Value.(*types.List)
		if !ok {
			return nil, fmt.Errorf("%s: node %d: neighbours are %T, want a list", path, u, e.Value)
		}
		for _, w := range *lst {
			v, ok := pyobj.AsInt(w)
			if !ok || v < 0 || v >= n {
				return nil, fmt.Errorf("%s: node %d: neighbour %v is not a node id in [0,%d)", path, u, w, n)
			}
			us = append(us, u)
			vs = append(vs, v)
		}
	}
	return datasets.NetworkxAdjacency(n, us, vs)
}
