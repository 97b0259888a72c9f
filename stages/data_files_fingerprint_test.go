package stages

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/files/filestest"
	"github.com/hylaflow/hylaflow/datasets/synthetic"
	"github.com/hylaflow/hylaflow/registry"
)

// TestDataKeyFollowsEveryByteOfFiles: for a `files` source (the user's own
// graph, docs/your-graph.md) in each of its layouts — an edge list with
// its node tables (features, labels, split), a PyG-style .npz, an OGB
// directory — flipping one byte of any file the source reads (the first,
// the middle and the last) changes the dataset stage's cache key, and
// restoring the file restores the key. It needs no shared data (the graph
// is generated), so it runs in CI with go test ./....
func TestDataKeyFollowsEveryByteOfFiles(t *testing.T) {
	g, err := synthetic.GenerateDisease(synthetic.DiseaseOptions{Nodes: 120, Features: 4, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	for i := range g.Nodes() { // a split, so that the edge list has a split.csv
		switch {
		case i%5 < 3:
			g.Train = append(g.Train, i)
		case i%5 == 3:
			g.Val = append(g.Val, i)
		default:
			g.Test = append(g.Test, i)
		}
	}
	src, ok := datasets.SourceOf("files")
	if !ok {
		t.Fatal("no files source registered")
	}
	ps, ok := src.(datasets.PathSource)
	if !ok {
		t.Fatal("the files source is not a PathSource")
	}
	ex := filestest.New(g, 5)
	dir := t.TempDir()
	past := time.Now().Add(-time.Hour) // old enough for the digest memo
	for _, tc := range []struct {
		layout, path string
		write        func(string) error
		files        []string // what the source must read, by name
	}{
		{"edge list", "edgelist", ex.EdgeList, []string{"edges.csv.gz", "features.csv", "labels.csv", "split.csv"}},
		{"pyg", "graph.npz", ex.PyG, []string{"graph.npz"}},
		{"ogb", "ogb", ex.OGB, nil},
	} {
		t.Run(tc.layout, func(t *testing.T) {
			path := filepath.Join(dir, tc.path)
			if err := tc.write(path); err != nil {
				t.Fatal(err)
			}
			params := registry.Values{"source": "files", "path": path}
			st, _ := Default().Lookup("dataset")
			full, err := st.Complete(params) // the parameters the stage reads, defaults filled in
			if err != nil {
				t.Fatal(err)
			}
			read, err := ps.FilesFor(datasets.Request{Root: path, Params: full})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, f := range read {
				names = append(names, f.Name)
				if err := os.Chtimes(f.Path, past, past); err != nil {
					t.Fatal(err)
				}
			}
			for _, want := range tc.files {
				if !slices.Contains(names, want) {
					t.Errorf("the source reads %v, not %s", names, want)
				}
			}
			if len(read) < max(1, len(tc.files)) || tc.layout == "ogb" && len(read) < 4 {
				t.Fatalf("the source reads %v: too few files for the %s layout", names, tc.layout)
			}
			key := func() string {
				t.Helper()
				k, err := dataKey(t, params)
				if err != nil {
					t.Fatal(err)
				}
				return k
			}
			before := key()
			for _, f := range read {
				data, err := os.ReadFile(f.Path)
				if err != nil {
					t.Fatal(err)
				}
				for _, i := range []int{0, len(data) / 2, len(data) - 1} {
					flipped := slices.Clone(data)
					flipped[i] ^= 0x20
					dataWrite(t, filepath.Dir(f.Path), filepath.Base(f.Path), flipped, time.Now())
					if key() == before {
						t.Errorf("key unchanged after byte %d of %s (%d bytes) changed", i, f.Name, len(data))
					}
				}
				dataWrite(t, filepath.Dir(f.Path), filepath.Base(f.Path), data, past)
			}
			if again := key(); again != before {
				t.Errorf("files restored: key %s, want %s", again, before)
			}
		})
	}
}
