// Package reddit loads the Reddit dataset in FastGCN's format: reddit.npz
// (feats, y_train, y_val, y_test, train_index, val_index, test_index, as
// written by FastGCN's transformRedditGraph2NPZ.py) and reddit_adj.npz (a
// scipy sparse adjacency holding each edge once).
package reddit

import (
	"fmt"
	"path/filepath"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Files returns the two files under dir.
func Files(dir string) []string {
	return []string{filepath.Join(dir, "reddit.npz"), filepath.Join(dir, "reddit_adj.npz")}
}

// Load reads reddit.npz and reddit_adj.npz from dir. The adjacency is made
// symmetric (A + Aᵀ, as FastGCN does), binary and loop-free; labels come from
// y_* at the positions *_index (other nodes get -1); the split is the given
// one and the graph is marked inductive. Features are returned as stored;
// the normalize stage standardises them per column with the training rows'
// statistics, as FastGCN does.
func Load(dir string) (*datasets.Graph, error) {
	return LoadFiles(filepath.Join(dir, "reddit.npz"), filepath.Join(dir, "reddit_adj.npz"))
}

// LoadFiles is Load on the given reddit.npz and reddit_adj.npz (the
// Source passes the files it declares).
func LoadFiles(dataPath, adjPath string) (*datasets.Graph, error) {
	raw, err := npy.ReadSparseFile(adjPath)
	if err != nil {
		return nil, fmt.Errorf("reddit: %w (FastGCN's reddit_adj.npz; see `hylaflow datasets info reddit`)", err)
	}
	if raw.Rows != raw.Cols {
		return nil, fmt.Errorf("%s: adjacency is %dx%d, not square", adjPath, raw.Rows, raw.Cols)
	}
	n := raw.Rows
	var us, vs []int
	for i := 0; i < n; i++ {
		for p := raw.Indptr[i]; p < raw.Indptr[i+1]; p++ {
			if raw.Data[p] != 0 {
				us = append(us, i)
				vs = append(vs, int(raw.Indices[p]))
			}
		}
	}
	adj, err := datasets.SymmetricFromEdges(n, us, vs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", adjPath, err)
	}
	ar, err := npy.OpenArchive(dataPath)
	if err != nil {
		return nil, fmt.Errorf("reddit: %w", err)
	}
	defer ar.Close()
	fa, err := ar.Array("feats")
	if err != nil {
		return nil, err
	}
	if len(fa.Shape) != 2 || fa.Floats == nil {
		return nil, fmt.Errorf("%s: feats has kind %q shape %v, want a 2-D numeric array", dataPath, fa.Kind, fa.Shape)
	}
	if fa.Shape[0] != n {
		return nil, fmt.Errorf("%s: feats has %d rows, the adjacency in %s has %d nodes", dataPath, fa.Shape[0], adjPath, n)
	}
	var feats *mat.Dense
	if n > 0 && fa.Shape[1] > 0 {
		feats = mat.NewDense(n, fa.Shape[1], fa.Floats)
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = -1
	}
	classes := 0
	part := func(which string) ([]int, error) {
		idx, err := intArray(ar, dataPath, which+"_index")
		if err != nil {
			return nil, err
		}
		ys, err := ar.Array("y_" + which)
		if err != nil {
			return nil, err
		}
		if ys.Ints == nil && ys.Floats == nil {
			return nil, fmt.Errorf("%s: y_%s is not numeric", dataPath, which)
		}
		var y []int
		switch len(ys.Shape) {
		case 1: // class ids
			y = make([]int, ys.Shape[0])
			for k, v := range ys.Floats {
				if v != float64(int(v)) || v < 0 || v > 1<<20 {
					return nil, fmt.Errorf("%s: y_%s[%d] = %v is not a class id", dataPath, which, k, v)
				}
				y[k] = int(v)
			}
		case 2: // one-hot rows
			y = make([]int, ys.Shape[0])
			c := ys.Shape[1]
			for k := range y {
				y[k] = -1
				for j := 0; j < c; j++ {
					if ys.Floats[k*c+j] != 0 {
						y[k] = j
						break
					}
				}
				if y[k] < 0 {
					return nil, fmt.Errorf("%s: y_%s row %d is all zero", dataPath, which, k)
				}
			}
		default:
			return nil, fmt.Errorf("%s: y_%s has shape %v", dataPath, which, ys.Shape)
		}
		if len(y) != len(idx) {
			return nil, fmt.Errorf("%s: %d labels in y_%s for %d entries of %s_index", dataPath, len(y), which, len(idx), which)
		}
		for k, i := range idx {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("%s: %s_index[%d] = %d outside [0,%d)", dataPath, which, k, i, n)
			}
			if labels[i] >= 0 && labels[i] != y[k] {
				return nil, fmt.Errorf("%s: node %d has labels %d and %d", dataPath, i, labels[i], y[k])
			}
			labels[i] = y[k]
			classes = max(classes, y[k]+1)
		}
		return idx, nil
	}
	train, err := part("train")
	if err != nil {
		return nil, err
	}
	val, err := part("val")
	if err != nil {
		return nil, err
	}
	test, err := part("test")
	if err != nil {
		return nil, err
	}
	seen := make([]uint8, n)
	for s, idx := range [][]int{train, val, test} {
		for _, i := range idx {
			if seen[i] != 0 {
				return nil, fmt.Errorf("%s: node %d appears twice in the split (second time in %s)", dataPath, i, []string{"train", "val", "test"}[s])
			}
			seen[i] = 1
		}
	}
	g := &datasets.Graph{Name: "reddit", Source: "reddit", Adj: adj, DenseFeatures: feats, Labels: labels,
		Classes: classes, Train: train, Val: val, Test: test, Inductive: true}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("reddit: %w", err)
	}
	return g, nil
}

func intArray(ar *npy.Archive, path, name string) ([]int, error) {
	a, err := ar.Array(name)
	if err != nil {
		return nil, err
	}
	if a.Ints == nil || len(a.Shape) != 1 {
		return nil, fmt.Errorf("%s: %s has kind %q shape %v, want 1-D integers", path, name, a.Kind, a.Shape)
	}
	out := make([]int, len(a.Ints))
	for i, v := range a.Ints {
		out[i] = int(v)
	}
	return out, nil
}

// Write stores g in FastGCN's format under dir (used by tests and by
// `datasets` tooling to export generated graphs). Only the upper triangle of
// the adjacency is written, like FastGCN's converter.
func Write(dir string, g *datasets.Graph) error {
	n := g.Nodes()
	var ri, ci []int
	for i := 0; i < n; i++ {
		for p := g.Adj.Indptr[i]; p < g.Adj.Indptr[i+1]; p++ {
			if j := int(g.Adj.Indices[p]); j > i {
				ri = append(ri, i)
				ci = append(ci, j)
			}
		}
	}
	upper, err := sparse.FromCOO(n, n, ri, ci, nil)
	if err != nil {
		return err
	}
	if err := npy.WriteArchive(filepath.Join(dir, "reddit_adj.npz"), npy.SparseArrays(upper)); err != nil {
		return err
	}
	if g.DenseFeatures == nil {
		return fmt.Errorf("reddit: Write needs dense features")
	}
	_, d := g.DenseFeatures.Dims()
	arrays := map[string]*npy.Array{
		"feats": npy.Floats64([]int{n, d}, mat.DenseCopyOf(g.DenseFeatures).RawMatrix().Data),
	}
	for name, idx := range map[string][]int{"train": g.Train, "val": g.Val, "test": g.Test} {
		ix := make([]int64, len(idx))
		ys := make([]int64, len(idx))
		for k, i := range idx {
			ix[k] = int64(i)
			ys[k] = int64(g.Labels[i])
		}
		arrays[name+"_index"] = npy.Ints64([]int{len(ix)}, ix)
		arrays["y_"+name] = npy.Ints64([]int{len(ys)}, ys)
	}
	return npy.WriteArchive(filepath.Join(dir, "reddit.npz"), arrays)
}
