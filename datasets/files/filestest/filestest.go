// Package filestest writes a loaded graph into the files source's three
// layouts (edge list + tables, PyG-style npz, OGB directory) the way a
// user's export would: node ids renamed, node and edge order shuffled,
// gzip, headers. Tests use it to check that every layout loads back to
// the same graph, and to make fixtures for pipelines/graph.hcl.
package filestest

import (
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/sparse"
)

// Export is a graph with its nodes renamed and reordered: file node k is
// graph node Perm[k]; an edge appears once, in a shuffled order and
// direction.
type Export struct {
	G       *datasets.Graph
	Perm    []int    // file order → graph node
	Inv     []int    // graph node → file order
	Names   []string // string id of graph node i
	Classes []string // class names (class c is Classes[c]; sorted like c)
	edges   [][2]int // graph nodes, each undirected pair (and self loop) once
}

// New prepares the export of g with the seed's permutation. Node names
// are "n" + a number that does not follow the graph's order; class names
// sort like the classes.
func New(g *datasets.Graph, seed uint64) *Export {
	rng := rand.New(rand.NewPCG(seed, 7))
	n := g.Nodes()
	e := &Export{G: g, Perm: rng.Perm(n), Inv: make([]int, n), Names: make([]string, n)}
	for k, i := range e.Perm {
		e.Inv[i] = k
	}
	for i := range n {
		e.Names[i] = fmt.Sprintf("paper-%d", 7919*e.Inv[i]+13)
	}
	for c := range g.Classes {
		e.Classes = append(e.Classes, fmt.Sprintf("class_%02d", c))
	}
	a := g.Adj
	for i := range n {
		for _, j := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
			if int(j) >= i {
				if rng.IntN(2) == 0 || int(j) == i {
					e.edges = append(e.edges, [2]int{i, int(j)})
				} else {
					e.edges = append(e.edges, [2]int{int(j), i})
				}
			}
		}
	}
	rng.Shuffle(len(e.edges), func(x, y int) { e.edges[x], e.edges[y] = e.edges[y], e.edges[x] })
	return e
}

func create(path string, gz bool) (io.Writer, func() error, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	if !gz {
		return f, f.Close, nil
	}
	z := gzip.NewWriter(f)
	return z, func() error {
		if err := z.Close(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}, nil
}

func writeText(path string, gz bool, fill func(w io.Writer)) error {
	w, done, err := create(path, gz)
	if err != nil {
		return err
	}
	fill(w)
	return done()
}

// dense returns graph node i's feature row.
func (e *Export) row(i int) []float64 {
	switch {
	case e.G.DenseFeatures != nil:
		return e.G.DenseFeatures.RawRowView(i)
	case e.G.SparseFeatures != nil:
		x := e.G.SparseFeatures
		r := make([]float64, x.Cols)
		for p := x.Indptr[i]; p < x.Indptr[i+1]; p++ {
			r[x.Indices[p]] = x.Data[p]
		}
		return r
	}
	return nil
}

func ff(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// EdgeList writes dir/edges.csv.gz (header "src,dst", string ids),
// features.csv (header, rows in file order), labels.csv (class names) and,
// when the graph has a split, split.csv.
func (e *Export) EdgeList(dir string) error {
	if err := writeText(filepath.Join(dir, "edges.csv.gz"), true, func(w io.Writer) {
		fmt.Fprintln(w, "src,dst")
		for _, p := range e.edges {
			fmt.Fprintf(w, "%s,%s\n", e.Names[p[0]], e.Names[p[1]])
		}
	}); err != nil {
		return err
	}
	if e.G.FeatureDim() > 0 {
		if err := writeText(filepath.Join(dir, "features.csv"), false, func(w io.Writer) {
			cols := []string{"id"}
			for j := range e.G.FeatureDim() {
				cols = append(cols, fmt.Sprintf("f%d", j))
			}
			fmt.Fprintln(w, strings.Join(cols, ","))
			for _, i := range e.Perm {
				var b strings.Builder
				b.WriteString(e.Names[i])
				for _, v := range e.row(i) {
					b.WriteByte(',')
					b.WriteString(ff(v))
				}
				fmt.Fprintln(w, b.String())
			}
		}); err != nil {
			return err
		}
	}
	if err := writeText(filepath.Join(dir, "labels.csv"), false, func(w io.Writer) {
		fmt.Fprintln(w, "id,label")
		for _, i := range e.Perm {
			l := ""
			if c := e.G.Labels[i]; c >= 0 {
				l = e.Classes[c]
			}
			fmt.Fprintf(w, "%s,%s\n", e.Names[i], l)
		}
	}); err != nil {
		return err
	}
	if e.G.Train == nil {
		return nil
	}
	return writeText(filepath.Join(dir, "split.csv"), false, func(w io.Writer) {
		fmt.Fprintln(w, "id,split")
		for p, part := range [][]int{e.G.Train, e.G.Val, e.G.Test} {
			for _, i := range part {
				fmt.Fprintf(w, "%s,%s\n", e.Names[i], []string{"train", "val", "test"}[p])
			}
		}
	})
}

// PyG writes path as np.savez would from a PyG Data object: edge_index
// with both directions of every edge (as PyG stores undirected graphs),
// x as a scipy CSR's members x_data, x_indices, x_indptr, x_shape, y and
// the boolean masks when the graph has a split. Node k is graph node Perm[k].
func (e *Export) PyG(path string) error {
	var src, dst []int64
	for _, p := range e.edges {
		u, v := int64(e.Inv[p[0]]), int64(e.Inv[p[1]])
		src, dst = append(src, u), append(dst, v)
		if u != v {
			src, dst = append(src, v), append(dst, u)
		}
	}
	n := e.G.Nodes()
	arrays := map[string]*npy.Array{"edge_index": npy.Ints64([]int{2, len(src)}, append(src, dst...))}
	y := make([]int64, n)
	for k, i := range e.Perm {
		y[k] = int64(e.G.Labels[i])
	}
	arrays["y"] = npy.Ints64([]int{n}, y)
	if e.G.FeatureDim() > 0 {
		var ri, ci []int
		var vals []float64
		for k, i := range e.Perm {
			for j, v := range e.row(i) {
				if v != 0 {
					ri, ci, vals = append(ri, k), append(ci, j), append(vals, v)
				}
			}
		}
		x, err := sparse.FromCOO(n, e.G.FeatureDim(), ri, ci, vals)
		if err != nil {
			return err
		}
		for name, a := range npy.SparseArrays(x) {
			if name != "format" {
				arrays["x_"+name] = a
			}
		}
	}
	if e.G.Train != nil {
		for p, part := range [][]int{e.G.Train, e.G.Val, e.G.Test} {
			m := make([]int64, n)
			for _, i := range part {
				m[e.Inv[i]] = 1
			}
			arrays[[]string{"train_mask", "val_mask", "test_mask"}[p]] = &npy.Array{Shape: []int{n}, Kind: 'b', ItemSize: 1, Ints: m}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return npy.WriteArchive(path, arrays)
}

// OGB writes dir as an OGB node-property dataset: raw/edge.csv.gz,
// raw/num-node-list.csv.gz, raw/node-feat.csv.gz, raw/node-label.csv.gz and,
// with a split, split/given/{train,valid,test}.csv.gz (row numbers = Inv).
func (e *Export) OGB(dir string) error {
	n := e.G.Nodes()
	files := []struct {
		name string
		fill func(w io.Writer)
	}{
		{"raw/edge.csv.gz", func(w io.Writer) {
			for _, p := range e.edges {
				fmt.Fprintf(w, "%d,%d\n", e.Inv[p[0]], e.Inv[p[1]])
			}
		}},
		{"raw/num-node-list.csv.gz", func(w io.Writer) { fmt.Fprintln(w, n) }},
		{"raw/node-label.csv.gz", func(w io.Writer) {
			for _, i := range e.Perm {
				if l := e.G.Labels[i]; l >= 0 {
					fmt.Fprintln(w, l)
				} else {
					fmt.Fprintln(w, "nan")
				}
			}
		}},
	}
	if e.G.FeatureDim() > 0 {
		files = append(files, struct {
			name string
			fill func(w io.Writer)
		}{"raw/node-feat.csv.gz", func(w io.Writer) {
			for _, i := range e.Perm {
				r := e.row(i)
				s := make([]string, len(r))
				for j, v := range r {
					s[j] = ff(v)
				}
				fmt.Fprintln(w, strings.Join(s, ","))
			}
		}})
	}
	if e.G.Train != nil {
		for p, part := range [][]int{e.G.Train, e.G.Val, e.G.Test} {
			files = append(files, struct {
				name string
				fill func(w io.Writer)
			}{"split/given/" + []string{"train", "valid", "test"}[p] + ".csv.gz", func(w io.Writer) {
				for _, i := range part {
					fmt.Fprintln(w, e.Inv[i])
				}
			}})
		}
	}
	for _, f := range files {
		if err := writeText(filepath.Join(dir, filepath.FromSlash(f.name)), true, f.fill); err != nil {
			return err
		}
	}
	return nil
}
