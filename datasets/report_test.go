package datasets_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
)

// reportRing is a source that exists only in this test: dataset NAME reads
// report/NAME.txt (one label a or b per node) and makes a ring.
type reportRing struct{}

func (reportRing) Name() string { return "reportfake" }
func (reportRing) Files(name string) ([]datasets.File, error) {
	return []datasets.File{{Path: "report/" + name + ".txt"}}, nil
}
func (reportRing) Generator(string) (string, string) { return "", "" }
func (reportRing) Load(_ context.Context, req datasets.Request) (*datasets.Graph, error) {
	data, err := os.ReadFile(filepath.Join(req.Root, "report", req.Name+".txt"))
	if err != nil {
		return nil, err
	}
	var labels []int
	for _, l := range strings.Fields(string(data)) {
		labels = append(labels, map[string]int{"a": 0, "b": 1}[l])
	}
	n := len(labels)
	us, vs := make([]int, n), make([]int, n)
	for i := range us {
		us[i], vs[i] = i, (i+1)%n
	}
	adj, err := datasets.SymmetricFromEdges(n, us, vs)
	if err != nil {
		return nil, err
	}
	g := &datasets.Graph{Name: req.Name, Source: "reportfake", Adj: adj, Labels: labels, Classes: 2,
		DenseFeatures: sparse.Identity(n).ToDense()}
	return g, g.Validate()
}
func (reportRing) OfficialSplit(string) datasets.SplitRule {
	return datasets.SplitRule{Rule: datasets.SplitHGCN, PVal: 0.25, PTest: 0.25}
}
func (reportRing) Params() []datasets.ParamSpec { return nil }

// What `datasets list` and `datasets info` print of a registered source's
// dataset, before and after its file is present.
func TestCatalogAndInfo(t *testing.T) {
	entry := datasets.Entry{Name: "report_ring", Source: "reportfake", Doc: "a test ring",
		Files: []datasets.File{{Path: "report/report_ring.txt"}}, Expected: datasets.Stats{Nodes: 8, Edges: 8, Features: 8, Classes: 2}}
	defer datasets.RegisterForTest(reportRing{}, entry)()
	root := t.TempDir()
	t.Setenv("HYLAFLOW_DATA", root)
	row := func() string {
		var b bytes.Buffer
		datasets.WriteCatalog(&b)
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "report_ring ") {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no report_ring row in\n%s", b.String())
		return ""
	}
	if got, want := row(), "report_ring reportfake 8 8 8 2 missing 1 of 1 (hylaflow datasets fetch report_ring)"; got != want {
		t.Errorf("list row %q, want %q", got, want)
	}
	var b bytes.Buffer
	if err := datasets.WriteInfo(context.Background(), &b, entry, ""); err == nil ||
		!strings.Contains(err.Error(), "report_ring: files missing under ") || !strings.Contains(err.Error(), "report/report_ring.txt; get them with `hylaflow datasets fetch report_ring`") {
		t.Errorf("info without the file: %v", err)
	}

	if err := os.MkdirAll(filepath.Join(root, "report"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "report", "report_ring.txt"), []byte("a b a b a b a b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := row(), "report_ring reportfake 8 8 8 2 present in "+root; got != want {
		t.Errorf("list row %q, want %q", got, want)
	}
	var found bool
	for _, j := range datasets.CatalogJSON() {
		if j.Name == "report_ring" {
			found = true
			if !j.Present || j.Root != root || j.Fetch != "" || len(j.Files) != 1 || !j.Files[0].Present || j.BuiltIn {
				t.Errorf("JSON entry %+v", j)
			}
		}
	}
	if !found {
		t.Error("no report_ring in CatalogJSON")
	}
	b.Reset()
	if err := datasets.WriteInfo(context.Background(), &b, entry, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"report_ring (reportfake): a test ring\n", "root:       " + root + "\n", "nodes:      8\nedges:      8 (distinct undirected, no self loops)\nfeatures:   8\nclasses:    2\n",
		"labels:     [4 4]\n", "(HGCN rule, p_val 0.25, p_test 0.25)\n", "hyperbolicity: δ ≈ "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("info lacks %q:\n%s", want, b.String())
		}
	}
}
