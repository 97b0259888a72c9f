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
