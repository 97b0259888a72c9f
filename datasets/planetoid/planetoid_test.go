package planetoid

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/testenv"
)

// dataDir is the shared datasets' planetoid folder (testenv.Data: skips
// without it, fails on CI).
func dataDir(t testing.TB) string {
	t.Helper()
	return testenv.Data(t, "planetoid")
}

// The paper's statistics (nodes, classes, features) and the distinct
// undirected edge counts the loader builds. The paper's 5429/4732/44338
// count the raw adjacency-list entries / 2, including duplicates and self loops.
func TestPaperStatistics(t *testing.T) {
	dir := dataDir(t)
	for _, tc := range []struct {
		name                         string
		nodes, edges, feats, classes int
		train, val, test, unlabelled int
		nnz                          int
		firstTest                    int
		loops                        int // nodes whose adjacency list holds themselves
	}{
		{"cora", 2708, 5278, 1433, 7, 140, 500, 1000, 0, 49216, 1708, 0},
		{"citeseer", 3327, 4552, 3703, 6, 120, 500, 1000, 15, 105165, 2312, 124},
		{"pubmed", 19717, 44324, 500, 3, 60, 500, 1000, 0, 988031, 18717, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if testing.Short() && tc.name == "pubmed" {
				t.Skip("pubmed in -short mode")
			}
			g, err := Load(dir, tc.name)
			if err != nil {
				t.Fatal(err)
			}
			if g.Nodes() != tc.nodes || g.Edges() != tc.edges || g.FeatureDim() != tc.feats || g.Classes != tc.classes {
				t.Fatalf("got %d nodes, %d edges, %d features, %d classes", g.Nodes(), g.Edges(), g.FeatureDim(), g.Classes)
			}
			if len(g.Train) != tc.train || len(g.Val) != tc.val || len(g.Test) != tc.test {
				t.Fatalf("split %d/%d/%d", len(g.Train), len(g.Val), len(g.Test))
			}
			if g.SparseFeatures.NNZ() != tc.nnz {
				t.Errorf("features have %d non-zeros, want %d", g.SparseFeatures.NNZ(), tc.nnz)
			}
			if g.Test[0] != tc.firstTest || !slices.IsSorted(g.Test) {
				t.Errorf("test index starts at %d (want %d) or is unsorted", g.Test[0], tc.firstTest)
			}
			un := 0
			for i, l := range g.Labels {
				if l < 0 {
					un++
					if g.SparseFeatures.Indptr[i+1] != g.SparseFeatures.Indptr[i] {
						t.Errorf("unlabelled node %d has features", i)
					}
				}
			}
			if un != tc.unlabelled {
				t.Errorf("%d unlabelled nodes, want %d", un, tc.unlabelled)
			}
			if !g.Adj.IsSymmetric() {
				t.Error("adjacency not symmetric")
			}
			// networkx keeps a listed self loop as a 1 on the diagonal
			// (counted independently from ind.NAME.graph with Python's pickle).
			loops := 0
			for i := 0; i < g.Adj.Rows; i++ {
				switch v := g.Adj.At(i, i); v {
				case 0:
				case 1:
					loops++
				default:
					t.Fatalf("diagonal entry %d is %v, want 0 or 1", i, v)
				}
			}
			if loops != tc.loops {
				t.Errorf("%d self loops on the diagonal, want %d", loops, tc.loops)
			}
		})
	}
}

func TestCoraLabelCounts(t *testing.T) {
	g, err := Load(dataDir(t), "cora")
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, g.Classes)
	for _, l := range g.Labels {
		counts[l]++
	}
	if want := []int{351, 217, 418, 818, 426, 298, 180}; !slices.Equal(counts, want) {
		t.Fatalf("class counts %v, want %v", counts, want)
	}
}

func TestCorruptFiles(t *testing.T) {
	src := dataDir(t)
	for _, tc := range []struct {
		file    string
		corrupt func([]byte) []byte
		want    string
	}{
		{"ind.cora.allx", func(b []byte) []byte { return b[:len(b)/2] }, "ind.cora.allx: byte"},
		{"ind.cora.graph", func(b []byte) []byte { return b[:100] }, "ind.cora.graph: byte"},
		{"ind.cora.test.index", func(b []byte) []byte { return append([]byte("x17\n"), b...) }, "ind.cora.test.index:1"},
		{"ind.cora.test.index", func(b []byte) []byte { return b[:len(b)-5] }, "test indices for 1000 tx rows"},
		{"ind.cora.y", func(b []byte) []byte { return nil }, "ind.cora.y"},
	} {
		dir := t.TempDir()
		for _, f := range Files(src, "cora") {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(f) == tc.file {
				b = tc.corrupt(b)
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Load(dir, "cora"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s corrupted: error %v, want it to contain %q", tc.file, err, tc.want)
		}
	}
	if _, err := Load(t.TempDir(), "cora"); err == nil || !strings.Contains(err.Error(), "hylaflow datasets fetch cora") {
		t.Errorf("missing files: %v", err)
	}
}

// Issue 19 item 7: a dataset name is checked before it is used in a path.
func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"cora", true}, {"Citeseer", true}, {"nell.0.001", true}, {"my_set-2", true},
		{"", false}, {"../../etc/passwd", false}, {"a/b", false}, {"..", false}, {"a..b", false},
		{".hidden", false}, {"-flag", false}, {"a b", false}, {"a\x00b", false}, {"a\\b", false},
		{strings.Repeat("x", 65), false}, {strings.Repeat("x", 64), true},
	} {
		err := CheckName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "cora, citeseer, pubmed") {
			t.Errorf("CheckName(%q): %v, want the known names", tc.name, err)
		}
	}
	dir := t.TempDir()
	if _, err := Load(dir, "../../x"); err == nil || !strings.Contains(err.Error(), `dataset name "../../x"`) {
		t.Errorf("Load with a traversing name: %v", err)
	}
}
