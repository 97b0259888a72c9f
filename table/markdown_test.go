package table

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/NAME (go test ./table -update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./table -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test ./table -update rewrites it); got:\n%s", path, got)
	}
}

// TestMembers renders the table.md and table.csv members of a fixture
// table with every kind of cell (below the paper, no runs, one run, a paper
// value without std, no paper value) and compares them with golden files.
func TestMembers(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("testdata", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fixture.md", Markdown(d))
	nopaper := *d
	nopaper.Paper = false
	golden(t, "fixture-nopaper.md", Markdown(&nopaper))
	csv, err := CSV(d)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fixture.csv", csv)
	js, err := Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(js)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(Markdown(again), Markdown(d)) {
		t.Error("Marshal then Parse changes the table")
	}
}

// A caption names the metric once: after a title that does not, and not
// again after one that does (spelt with "-" for "_", validation for val).
func TestCaptionDoesNotRepeatTheMetric(t *testing.T) {
	mean := 80.0
	for _, tc := range []struct{ title, metric, want string }{
		{"Quickstart: synthetic disease tree", "test accuracy",
			"Quickstart: synthetic disease tree — test accuracy (%), mean ± sample std over 3 runs"},
		{"Table 1: node classification, test accuracy (%)", "test accuracy",
			"Table 1: node classification, test accuracy (%) — mean ± sample std over 3 runs"},
		{"Table 1 (right): Reddit, inductive, test micro-F1 (%)", "test micro_f1",
			"Table 1 (right): Reddit, inductive, test micro-F1 (%) — mean ± sample std over 3 runs"},
		{"HyLa-GCN runs: validation accuracy (%) of the early-stopped model", "val accuracy",
			"HyLa-GCN runs: validation accuracy (%) of the early-stopped model — mean ± sample std over 3 runs"},
		// The title does not say which test metric: the caption does.
		{"Table 1: test accuracy (%)", "test_best_val accuracy",
			"Table 1: test accuracy (%) — test_best_val accuracy (%), mean ± sample std over 3 runs"},
		{"Validation runs", "test accuracy", "Validation runs — test accuracy (%), mean ± sample std over 3 runs"},
		{"", "test accuracy", "Results — test accuracy (%), mean ± sample std over 3 runs"},
	} {
		d := Doc{Title: tc.title, Metric: tc.metric, Cells: []Cell{{Dataset: "cora", Model: "sgc", Runs: 3, Mean: &mean}}}
		if got := d.Caption(); got != tc.want {
			t.Errorf("Caption(%q, %q) = %q, want %q", tc.title, tc.metric, got, tc.want)
		}
	}
}
