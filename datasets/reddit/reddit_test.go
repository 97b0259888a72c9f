package reddit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/datasets/synthetic"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// The real Reddit files are too large to keep with the datasets, so the
// loader is tested on files in FastGCN's format written here.
func TestRoundTripFastGCNFormat(t *testing.T) {
	g, err := synthetic.GenerateSBM(context.Background(), synthetic.SBMOptions{Nodes: 600, Edges: 3000, Features: 7, Classes: 5, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := Write(dir, g); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !sparse.Equal(got.Adj, g.Adj) {
		t.Fatal("adjacency differs after the FastGCN round trip (upper triangle + symmetrisation)")
	}
	if !mat.Equal(got.DenseFeatures, g.DenseFeatures) || !slices.Equal(got.Labels, g.Labels) {
		t.Fatal("features or labels differ")
	}
	if !slices.Equal(got.Train, g.Train) || !slices.Equal(got.Val, g.Val) || !slices.Equal(got.Test, g.Test) || !got.Inductive {
		t.Fatal("split differs or graph not inductive")
	}
	if got.Classes != 5 {
		t.Fatalf("classes = %d", got.Classes)
	}
}

func TestMalformed(t *testing.T) {
	g, err := synthetic.GenerateSBM(context.Background(), synthetic.SBMOptions{Nodes: 50, Edges: 100, Features: 3, Classes: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(map[string]*npy.Array)
		want   string
	}{
		{"index out of range", func(m map[string]*npy.Array) { m["train_index"].Ints[0] = 50 }, "train_index[0] = 50 outside [0,50)"},
		{"length mismatch", func(m map[string]*npy.Array) {
			m["y_val"] = npy.Ints64([]int{1}, []int64{0})
		}, "labels in y_val"},
		{"feature rows", func(m map[string]*npy.Array) { m["feats"] = npy.Floats64([]int{2, 3}, make([]float64, 6)) }, "feats has 2 rows"},
		{"duplicate node", func(m map[string]*npy.Array) {
			m["test_index"].Ints[0] = m["train_index"].Ints[0]
			m["y_test"].Ints[0] = m["y_train"].Ints[0]
		}, "appears twice"},
	} {
		dir := t.TempDir()
		if err := Write(dir, g); err != nil {
			t.Fatal(err)
		}
		ar, err := npy.OpenArchive(filepath.Join(dir, "reddit.npz"))
		if err != nil {
			t.Fatal(err)
		}
		arrays := map[string]*npy.Array{}
		for _, n := range ar.Names() {
			a, err := ar.Array(n)
			if err != nil {
				t.Fatal(err)
			}
			arrays[n] = a
		}
		ar.Close()
		tc.mutate(arrays)
		if err := npy.WriteArchive(filepath.Join(dir, "reddit.npz"), arrays); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Load(t.TempDir()); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing files: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		next := u.Unwrap()
		if next == nil {
			return err
		}
		err = next
	}
}
