package hgcn

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/sparse"
)

// dataDir is the shared datasets' hgcn folder (testenv.Data: skips without
// it, fails on CI).
func dataDir(t testing.TB) string {
	t.Helper()
	return testenv.Data(t, "hgcn")
}

func TestAirport(t *testing.T) {
	g, err := Load(dataDir(t), "airport", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// networkx counts 18631 edges: 18630 distinct pairs (Edges) plus one
	// self loop, which stays on the diagonal as in networkx's adjacency.
	if g.Nodes() != 3188 || g.Edges() != 18630 || g.FeatureDim() != 4 || g.Classes != 4 {
		t.Fatalf("airport: %d nodes %d edges %d features %d classes", g.Nodes(), g.Edges(), g.FeatureDim(), g.Classes)
	}
	if loops := diagonalEntries(t, g.Adj); len(loops) != 1 {
		t.Fatalf("airport: self loops at %v, want exactly one (networkx counts 18631 = 18630 + 1 edges)", loops)
	}
	counts := make([]int, 4)
	for _, l := range g.Labels {
		counts[l]++
	}
	if !slices.Equal(counts, []int{521, 1443, 999, 225}) {
		t.Fatalf("label counts %v", counts)
	}
	if got := g.DenseFeatures.At(0, 0); got != 0.5142588721377778 {
		t.Fatalf("first feature %v", got)
	}
	train, val, test, err := datasets.HGCNSplit(g.Labels, AirportSplit[0], AirportSplit[1], 1)
	if err != nil {
		t.Fatal(err)
	}
	// m = min(3188-521, 521) = 521; round(0.15·521) = 78 per group.
	if len(val) != 156 || len(test) != 156 || len(train) != 3188-312 {
		t.Fatalf("split %d/%d/%d", len(train), len(val), len(test))
	}
}

func TestDisease(t *testing.T) {
	dir := dataDir(t)
	if _, err := Load(dir, "disease_nc", Options{}); err == nil || !strings.Contains(err.Error(), "disease_nc.feats.npz") {
		if err == nil {
			t.Log("disease_nc.feats.npz present")
		} else {
			t.Fatalf("missing feature file: %v", err)
		}
	}
	g, err := Load(dir, "disease_nc", Options{IdentityFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Nodes() != 1044 || g.Edges() != 1043 || g.Classes != 2 {
		t.Fatalf("disease_nc: %d nodes %d edges %d classes", g.Nodes(), g.Edges(), g.Classes)
	}
	pos := 0
	for _, l := range g.Labels {
		pos += l
	}
	train, val, test, err := datasets.HGCNSplit(g.Labels, DiseaseSplit[0], DiseaseSplit[1], 0)
	if err != nil {
		t.Fatal(err)
	}
	// m = min(211, 833) = 211; val = round(21.1) = 21, test = round(126.6) = 127 per group.
	if pos != 211 || len(val) != 42 || len(test) != 254 || len(train) != 1044-296 {
		t.Fatalf("positives %d, split %d/%d/%d", pos, len(train), len(val), len(test))
	}
	lp, err := Load(dir, "disease_lp", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if lp.Nodes() != 2665 || lp.Edges() != 2664 || lp.FeatureDim() != 11 {
		t.Fatalf("disease_lp: %d nodes %d edges %d features", lp.Nodes(), lp.Edges(), lp.FeatureDim())
	}
}

func TestDiseaseFormatErrors(t *testing.T) {
	write := func(dir, edges string, labels []float64) {
		os.WriteFile(filepath.Join(dir, "d.edges.csv"), []byte(edges), 0o644)
		f, _ := os.Create(filepath.Join(dir, "d.labels.npy"))
		npy.Write(f, npy.Floats64([]int{len(labels)}, labels))
		f.Close()
	}
	// Node names are numbered by first appearance: "7" is node 0.
	dir := t.TempDir()
	write(dir, "7,3\n3,5\n", []float64{1, 0, 0})
	g, err := LoadDisease(dir, "d", Options{IdentityFeatures: true})
	if err != nil {
		t.Fatal(err)
	}
	if g.Adj.At(0, 1) != 1 || g.Adj.At(1, 2) != 1 || g.Adj.At(0, 2) != 0 || g.Labels[0] != 1 {
		t.Fatalf("first-appearance numbering broken: %v", g.Adj.ToDense())
	}
	for _, tc := range []struct {
		edges  string
		labels []float64
		want   string
	}{
		{"0,1\n1;2\n", []float64{0, 1}, "d.edges.csv:2: expected \"u,v\""},
		{"0,1\n", []float64{0, 1, 1}, "3 labels for the 2 nodes"},
		{"0,1\n", []float64{0, 0.5}, "label 0.5 at position 1"},
		{"", []float64{}, "no edges"},
	} {
		dir := t.TempDir()
		write(dir, tc.edges, tc.labels)
		if _, err := LoadDisease(dir, "d", Options{IdentityFeatures: true}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("edges %q: error %v, want %q", tc.edges, err, tc.want)
		}
	}
}

func TestDigitize(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want int
	}{{0.5, 0}, {1, 1}, {8.0 / 7, 2}, {1.2, 2}, {9.0 / 7, 3}, {5, 3}} {
		if got := digitize(tc.x, AirportBins); got != tc.want {
			t.Errorf("digitize(%v) = %d, want %d", tc.x, got, tc.want)
		}
	}
}

func FuzzEdgeCSV(f *testing.F) {
	f.Add([]byte("0,1\n0,2\n2,3\n"))
	f.Add([]byte("a,b\r\nb,c\r\n\n"))
	f.Add([]byte("1;2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.edges.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ids, us, vs, err := readEdgeCSV(p)
		if err != nil {
			if !strings.Contains(err.Error(), p) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(us) != len(vs) {
			t.Fatal("edge ends differ in number")
		}
		for k := range us {
			if us[k] < 0 || us[k] >= len(ids) || vs[k] < 0 || vs[k] >= len(ids) {
				t.Fatalf("edge %d (%d,%d) outside %d nodes", k, us[k], vs[k], len(ids))
			}
		}
		if _, err := datasets.SymmetricFromEdges(len(ids), us, vs); err != nil {
			t.Fatal(err)
		}
	})
}

// diagonalEntries lists the nodes with a stored diagonal entry of a.
func diagonalEntries(t *testing.T, a *sparse.CSR) []int {
	t.Helper()
	var out []int
	for i := 0; i < a.Rows; i++ {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			if int(a.Indices[p]) == i {
				if a.Data[p] != 1 {
					t.Fatalf("diagonal entry %d is %v, want 1", i, a.Data[p])
				}
				out = append(out, i)
			}
		}
	}
	return out
}
