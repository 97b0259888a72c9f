package files_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/files"
	"github.com/hylaflow/hylaflow/datasets/files/filestest"
	"github.com/hylaflow/hylaflow/datasets/planetoid"
	"github.com/hylaflow/hylaflow/internal/testenv"
)

// sameGraph checks that got is want with got's node k being want's node
// of(k): the same adjacency entries, features, labels and split.
func sameGraph(t *testing.T, got, want *datasets.Graph, of func(k int) int) {
	t.Helper()
	n := want.Nodes()
	if got.Nodes() != n || got.Edges() != want.Edges() || got.Classes != want.Classes || got.FeatureDim() != want.FeatureDim() {
		t.Fatalf("got %d nodes, %d edges, %d classes, %d features; want %d, %d, %d, %d",
			got.Nodes(), got.Edges(), got.Classes, got.FeatureDim(), n, want.Edges(), want.Classes, want.FeatureDim())
	}
	inv := make([]int, n)
	seen := make([]bool, n)
	for k := range n {
		i := of(k)
		if i < 0 || i >= n || seen[i] {
			t.Fatalf("node %d maps to %d: not a permutation", k, i)
		}
		seen[i], inv[i] = true, k
	}
	a, b := got.Adj, want.Adj
	if a.NNZ() != b.NNZ() {
		t.Fatalf("adjacency has %d entries, want %d", a.NNZ(), b.NNZ())
	}
	for k := range n {
		i := of(k)
		var cols []int
		for p := a.Indptr[k]; p < a.Indptr[k+1]; p++ {
			cols = append(cols, of(int(a.Indices[p])))
			if a.Data[p] != 1 {
				t.Fatalf("entry (%d,%d) = %v, want 1", k, a.Indices[p], a.Data[p])
			}
		}
		slices.Sort(cols)
		var wantCols []int
		for p := b.Indptr[i]; p < b.Indptr[i+1]; p++ {
			wantCols = append(wantCols, int(b.Indices[p]))
		}
		if !slices.Equal(cols, wantCols) {
			t.Fatalf("node %d (graph node %d): neighbours %v, want %v", k, i, cols, wantCols)
		}
		if got.Labels[k] != want.Labels[i] {
			t.Fatalf("node %d: label %d, want %d", k, got.Labels[k], want.Labels[i])
		}
		gr, wr := denseRow(got, k), denseRow(want, i)
		if !slices.Equal(gr, wr) {
			t.Fatalf("node %d: features differ", k)
		}
	}
	parts := func(g *datasets.Graph, m func(int) int) [3][]int {
		var out [3][]int
		for p, part := range [][]int{g.Train, g.Val, g.Test} {
			for _, i := range part {
				out[p] = append(out[p], m(i))
			}
			slices.Sort(out[p])
		}
		return out
	}
	if gp, wp := parts(got, of), parts(want, func(i int) int { return i }); !slices.Equal(gp[0], wp[0]) || !slices.Equal(gp[1], wp[1]) || !slices.Equal(gp[2], wp[2]) {
		t.Fatalf("split %d/%d/%d differs from %d/%d/%d", len(gp[0]), len(gp[1]), len(gp[2]), len(wp[0]), len(wp[1]), len(wp[2]))
	}
}

func denseRow(g *datasets.Graph, i int) []float64 {
	if g.DenseFeatures != nil {
		return g.DenseFeatures.RawRowView(i)
	}
	x := g.SparseFeatures
	r := make([]float64, x.Cols)
	for p := x.Indptr[i]; p < x.Indptr[i+1]; p++ {
		r[x.Indices[p]] = x.Data[p]
	}
	return r
}

// TestCoraThreeLayouts is the done-when: Cora exported into each
// layout (string ids, shuffled nodes and edges, gzip, headers) loads to
// the Planetoid loader's graph: the same edges, features, labels, split.
func TestCoraThreeLayouts(t *testing.T) {
	want, err := planetoid.Load(testenv.Data(t, "planetoid"), "cora")
	if err != nil {
		t.Fatal(err)
	}
	ex := filestest.New(want, 1)
	dir := t.TempDir()
	if err := ex.EdgeList(filepath.Join(dir, "edgelist")); err != nil {
		t.Fatal(err)
	}
	if err := ex.PyG(filepath.Join(dir, "pyg", "cora.npz")); err != nil {
		t.Fatal(err)
	}
	if err := ex.OGB(filepath.Join(dir, "ogb")); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, s := range ex.Names {
		byName[s] = i
	}
	for _, tc := range []struct {
		path, format string
		of           func(info *files.Info) func(int) int
	}{
		{"edgelist", files.FormatEdgeList, func(info *files.Info) func(int) int {
			return func(k int) int { return byName[info.NodeNames[k]] }
		}},
		{"pyg/cora.npz", files.FormatPyG, func(*files.Info) func(int) int { return func(k int) int { return ex.Perm[k] } }},
		{"pyg", files.FormatPyG, func(*files.Info) func(int) int { return func(k int) int { return ex.Perm[k] } }},
		{"ogb", files.FormatOGB, func(*files.Info) func(int) int { return func(k int) int { return ex.Perm[k] } }},
	} {
		t.Run(tc.path, func(t *testing.T) {
			for _, format := range []string{files.FormatAuto, tc.format} {
				g, info, err := files.Load(context.Background(), filepath.Join(dir, tc.path), format, 2)
				if err != nil {
					t.Fatal(err)
				}
				if info.Format != tc.format {
					t.Errorf("format %s detected as %s", format, info.Format)
				}
				sameGraph(t, g, want, tc.of(info))
			}
		})
	}
}
