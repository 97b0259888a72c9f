package files_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets/files"
	"github.com/hylaflow/hylaflow/datasets/npy"
)

var update = flag.Bool("update", false, "rewrite testdata/errors.golden")

// npyFile encodes one array as a .npy file's bytes.
func npyFile(t testing.TB, a *npy.Array) string {
	var b bytes.Buffer
	if err := npy.Write(&b, a); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// npzFile writes the arrays as an .npz archive and returns its bytes.
func npzFile(t testing.TB, arrays map[string]*npy.Array) string {
	p := filepath.Join(t.TempDir(), "a.npz")
	if err := npy.WriteArchive(p, arrays); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func bools(v ...int64) *npy.Array {
	return &npy.Array{Shape: []int{len(v)}, Kind: 'b', ItemSize: 1, Ints: v}
}

// TestBadInput: every kind of bad input the issue lists gives an error
// naming the file, the line (text) or member (npz) and what was expected;
// testdata/errors.golden holds the messages (go test -update rewrites it).
func TestBadInput(t *testing.T) {
	ring := "a,b\nb,c\nc,a\n"
	edgeIdx := npy.Ints64([]int{2, 3}, []int64{0, 1, 2, 1, 2, 0})
	cases := []struct {
		name  string
		files map[string]string
	}{
		{"edge to an unknown id", map[string]string{"edges.csv": "a,b\nb,zed\n", "labels.csv": "a,x\nb,y\n"}},
		{"edge to a row past the features", map[string]string{"edges.csv": "0 1\n1 5\n", "features.npy": npyFile(t, npy.Floats64([]int{2, 1}, []float64{1, 2}))}},
		{"wrong column count", map[string]string{"edges.csv": "1,2\n2,3,4,5\n"}},
		{"wrong column count, names", map[string]string{"edges.csv": "a,b\nb\n"}},
		{"one column", map[string]string{"edges.csv": "a\nb\n"}},
		{"non-numeric weight", map[string]string{"edges.tsv": "1\t2\t0.5\n2\t3\tabc\n"}},
		{"negative weight", map[string]string{"edges.txt": "1 2 0.5\n2 3 -1\n"}},
		{"non-numeric feature", map[string]string{"edges.csv": ring, "features.csv": "id,f0,f1\na,0.5,1\nb,x,1\nc,0,0\n"}},
		{"NaN feature in csv", map[string]string{"edges.csv": ring, "features.csv": "a,0.5,1\nb,nan,1\nc,0,0\n"}},
		{"Inf feature in npy", map[string]string{"edges.csv": "0,1\n1,2\n", "features.npy": npyFile(t, npy.Floats64([]int{3, 2}, []float64{1, 2, 3, math.Inf(1), 5, 6}))}},
		{"ragged features", map[string]string{"edges.csv": ring, "features.csv": "a,0.5,1\nb,1\nc,0,0\n"}},
		{"label file missing a node", map[string]string{"edges.csv": ring, "features.csv": "a,1\nb,1\nc,1\n", "labels.csv": "id,label\na,x\nb,y\n"}},
		{"label file with another node", map[string]string{"edges.csv": ring, "features.csv": "a,1\nb,1\nc,1\n", "labels.csv": "a,x\nb,y\nc,x\nd,y\n"}},
		{"labels.npy of another length", map[string]string{"edges.csv": "0,1\n", "features.npy": npyFile(t, npy.Floats64([]int{2, 1}, []float64{1, 2})), "labels.npy": npyFile(t, npy.Ints64([]int{3}, []int64{0, 1, 0}))}},
		{"labels.npy not integral", map[string]string{"edges.csv": "0,1\n", "labels.npy": npyFile(t, npy.Floats64([]int{2}, []float64{0, 0.5}))}},
		{"empty edge file", map[string]string{"edges.csv": ""}},
		{"edge file of comments", map[string]string{"edges.csv": "# nothing\n\n"}},
		{"header and no edge", map[string]string{"edges.csv": "src,dst\n"}},
		{"empty label file", map[string]string{"edges.csv": ring, "labels.csv": "\n"}},
		{"overlapping split", map[string]string{"edges.csv": ring, "labels.csv": "a,x\nb,y\nc,x\n", "train.txt": "a\nb\n", "val.txt": "c\n", "test.txt": "b\n"}},
		{"split naming an unknown id", map[string]string{"edges.csv": ring, "labels.csv": "a,x\nb,y\nc,x\n", "split.csv": "id,split\na,train\nb,val\nq,test\n"}},
		{"split of an unknown part", map[string]string{"edges.csv": ring, "labels.csv": "a,x\nb,y\nc,x\n", "split.csv": "a,train\nb,dev\nc,holdout\n"}},
		{"split without validation", map[string]string{"edges.csv": ring, "labels.csv": "a,x\nb,y\nc,x\n", "split.csv": "a,train\nb,train\nc,test\n"}},
		{"split on an unlabelled node", map[string]string{"edges.csv": ring, "labels.csv": "a,x\nb,\nc,x\n", "split.csv": "a,train\nb,val\nc,test\n"}},
		{"npz without edge_index", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"y": npy.Ints64([]int{3}, []int64{0, 1, 0})})}},
		{"npz edge_index not 2 x E", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": npy.Ints64([]int{3, 2}, []int64{0, 1, 1, 2, 2, 0})})}},
		{"npz y of another length than x", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": edgeIdx,
			"x": npy.Floats64([]int{3, 1}, []float64{1, 2, 3}), "y": npy.Ints64([]int{4}, []int64{0, 1, 0, 1})})}},
		{"npz edge past x", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": npy.Ints64([]int{2, 2}, []int64{0, 1, 1, 7}),
			"x": npy.Floats64([]int{3, 1}, []float64{1, 2, 3})})}},
		{"npz NaN in x", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": edgeIdx,
			"x": npy.Floats64([]int{3, 1}, []float64{1, math.NaN(), 3})})}},
		{"npz mask of another length", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": edgeIdx, "y": npy.Ints64([]int{3}, []int64{0, 1, 0}),
			"train_mask": bools(1, 0, 0), "val_mask": bools(0, 1), "test_mask": bools(0, 0, 1)})}},
		{"npz overlapping masks", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": edgeIdx, "y": npy.Ints64([]int{3}, []int64{0, 1, 0}),
			"train_mask": bools(1, 1, 0), "val_mask": bools(0, 1, 0), "test_mask": bools(0, 0, 1)})}},
		{"npz two masks of three", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": edgeIdx, "y": npy.Ints64([]int{3}, []int64{0, 1, 0}),
			"train_mask": bools(1, 0, 0), "test_mask": bools(0, 0, 1)})}},
		{"npz x_ members of another shape", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{"edge_index": edgeIdx,
			"x_data": npy.Floats64([]int{2}, []float64{1, 1}), "x_indices": npy.Ints64([]int{2}, []int64{0, 0}),
			"x_indptr": npy.Ints64([]int{3}, []int64{0, 1, 2}), "x_shape": npy.Ints64([]int{2}, []int64{3, 1})})}},
		{"npz a billion nodes named by one edge", map[string]string{"g.npz": npzFile(t, map[string]*npy.Array{
			"edge_index": npy.Ints64([]int{2, 1}, []int64{0, 1_000_000_000})})}},
		{"not an npz", map[string]string{"g.npz": "PK not a zip"}},
		{"ogb node count beyond its data", map[string]string{"raw/edge.csv": "0,1\n", "raw/num-node-list.csv": "1000000000\n"}},
		{"ogb labels of another length", map[string]string{"raw/edge.csv": "0,1\n1,2\n", "raw/node-feat.csv": "1\n2\n3\n", "raw/node-label.csv": "0\n1\n"}},
		{"ogb overlapping split", map[string]string{"raw/edge.csv": "0,1\n1,2\n", "raw/node-label.csv": "0\n1\n0\n",
			"split/s/train.csv": "0\n", "split/s/valid.csv": "1\n", "split/s/test.csv": "2\n0\n"}},
		{"ogb split past the nodes", map[string]string{"raw/edge.csv": "0,1\n1,2\n", "raw/node-label.csv": "0\n1\n0\n",
			"split/s/train.csv": "0\n", "split/s/valid.csv": "1\n", "split/s/test.csv": "3\n"}},
	}
	var golden strings.Builder
	for _, c := range cases {
		dir := t.TempDir()
		for name, text := range c.files {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		g, _, err := files.Load(context.Background(), dir, "auto", 2)
		if err == nil {
			t.Errorf("%s: loaded a graph of %d nodes, want an error", c.name, g.Nodes())
			continue
		}
		msg := strings.ReplaceAll(err.Error(), dir, "DIR")
		fmt.Fprintf(&golden, "%s\n\t%s\n", c.name, msg)
	}
	path := filepath.Join("testdata", "errors.golden")
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if golden.String() != string(want) {
		t.Errorf("messages differ from %s (go test -update after a deliberate change):\n%s", path, golden.String())
	}
}
