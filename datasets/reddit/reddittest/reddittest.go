// Package reddittest writes a tiny graph in FastGCN's Reddit format (the
// files the reddit source reads), for tests that need Reddit's files:
// the real ones are not distributed (hylaflow datasets fetch reddit).
package reddittest

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/reddit"
	"gonum.org/v1/gonum/mat"
)

// Nodes is the size of the graph Write writes.
const Nodes = 6

// Graph is the graph Write writes: a ring of Nodes nodes with two feature
// columns (i and √i), three classes in turn, and the split 3 train, 1
// validation, 2 test.
func Graph(tb testing.TB) *datasets.Graph {
	tb.Helper()
	us, vs := make([]int, Nodes), make([]int, Nodes)
	for i := range us {
		us[i], vs[i] = i, (i+1)%Nodes
	}
	adj, err := datasets.SymmetricFromEdges(Nodes, us, vs)
	if err != nil {
		tb.Fatal(err)
	}
	x := mat.NewDense(Nodes, 2, nil)
	for i := range Nodes {
		x.Set(i, 0, float64(i))
		x.Set(i, 1, math.Sqrt(float64(i)))
	}
	return &datasets.Graph{Name: "reddit", Source: "reddit", Adj: adj, DenseFeatures: x, Labels: []int{0, 1, 2, 0, 1, 2}, Classes: 3,
		Train: []int{0, 1, 2}, Val: []int{3}, Test: []int{4, 5}}
}

// Write writes Graph into root/reddit as the reddit source reads it
// (reddit.npz, reddit_adj.npz) and returns the paths of the files written.
func Write(tb testing.TB, root string) []string {
	tb.Helper()
	dir := filepath.Join(root, "reddit")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := reddit.Write(dir, Graph(tb)); err != nil {
		tb.Fatal(err)
	}
	return []string{filepath.Join(dir, "reddit.npz"), filepath.Join(dir, "reddit_adj.npz")}
}
