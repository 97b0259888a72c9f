package files_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/files"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/sparse"
)

// fuzzLoad writes the files into a fresh directory and loads it: any
// outcome but a panic or an invalid graph is fine.
func fuzzLoad(t *testing.T, contents map[string][]byte) {
	dir := t.TempDir()
	for name, b := range contents {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, _, err := files.Load(context.Background(), dir, "auto", 2)
	if err != nil {
		return
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("loaded an invalid graph: %v", err)
	}
	if !g.Adj.IsSymmetric() {
		t.Fatal("loaded an asymmetric adjacency")
	}
}

// FuzzEdgeListCSV: arbitrary edge, feature and label tables.
func FuzzEdgeListCSV(f *testing.F) {
	f.Add([]byte("src,dst\na,b\nb,c\n"), []byte("a,1,2\nb,3,4\nc,5,6\n"), []byte("a,x\nb,y\nc,\n"))
	f.Add([]byte("0 1 0.5\n1 2 2\n# c\n2 2 1\n"), []byte(""), []byte("0,1\n1,0\n2,-1\n"))
	f.Add([]byte("1\t2\n2\t3\n3\t1\n1\t2\n"), []byte("id\tf\n1\t0.1\n2\tnan\n3\t1e400\n"), []byte("id\tlabel\n1\t0\n2\t1\n3\t1\n"))
	f.Add([]byte("\"a\",\"b\"\r\n07,7\r\n"), []byte(""), []byte(""))
	f.Fuzz(func(t *testing.T, edges, features, labels []byte) {
		c := map[string][]byte{"edges.csv": edges}
		if len(features) > 0 {
			c["features.csv"] = features
		}
		if len(labels) > 0 {
			c["labels.csv"] = labels
		}
		fuzzLoad(t, c)
	})
}

// FuzzPyGNPZ: arbitrary bytes as a PyG-style .npz archive, seeded with
// valid archives.
func FuzzPyGNPZ(f *testing.F) {
	valid := npzFile(f, map[string]*npy.Array{"edge_index": npy.Ints64([]int{2, 3}, []int64{0, 1, 2, 1, 2, 0}),
		"x": npy.Floats64([]int{3, 2}, []float64{1, 0, 0, 1, 1, 1}), "y": npy.Ints64([]int{3}, []int64{0, 1, -1}),
		"train_mask": bools(1, 0, 0), "val_mask": bools(0, 1, 0), "test_mask": bools(0, 0, 0)})
	f.Add([]byte(valid))
	f.Add([]byte(npzFile(f, map[string]*npy.Array{"edge_index": npy.Ints64([]int{2, 1}, []int64{0, 4}),
		"x_data": npy.Floats64([]int{1}, []float64{2}), "x_indices": npy.Ints64([]int{1}, []int64{0}),
		"x_indptr": npy.Ints64([]int{6}, []int64{0, 1, 1, 1, 1, 1}), "x_shape": npy.Ints64([]int{2}, []int64{5, 1})})))
	f.Fuzz(func(t *testing.T, b []byte) {
		fuzzLoad(t, map[string][]byte{"g.npz": b})
	})
}

// TestWorkersGiveSameGraph: the parallel edge reader and adjacency
// builder give the same bits for any number of workers (weights merged by
// their maximum, duplicates and reverse listings included).
func TestWorkersGiveSameGraph(t *testing.T) {
	dir := t.TempDir()
	var b []byte
	for k := range 300_000 {
		u, v := (k*7919)%5003, (k*104729)%5003
		b = append(b, []byte(fmt.Sprintf("%d %d %d.5\n", u, v, k%13+1))...)
	}
	if err := os.WriteFile(filepath.Join(dir, "edges.txt"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var ref *datasets.Graph
	for _, workers := range []int{1, 2, 3, 8} {
		g, _, err := files.Load(context.Background(), dir, "auto", workers)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = g
			if g.Nodes() != 5003 || !g.Adj.IsSymmetric() {
				t.Fatalf("%d nodes, symmetric %v", g.Nodes(), g.Adj.IsSymmetric())
			}
			continue
		}
		if !sparse.Equal(g.Adj, ref.Adj) {
			t.Errorf("%d workers: another adjacency than with 1", workers)
		}
	}
}
