package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

var inspectUpdate = flag.Bool("update-inspect", false, "rewrite testdata/inspect/*.golden")

// inspectGolden compares got with testdata/inspect/NAME.golden.
func inspectGolden(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join(dir, name+".golden")
	if *inspectUpdate {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -run Inspect -update-inspect after a deliberate change):\n%s", path, got)
	}
}

// TestDatasetsInspect: inspect on the example graph graph.hcl runs by
// default, as text and JSON, and a bad file exits 3 naming file and line.
func TestDatasetsInspect(t *testing.T) {
	example, err := filepath.Abs(filepath.Join("..", "..", "testdata", "graph-example"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := filepath.Abs(filepath.Join("testdata", "inspect"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(example))
	code, out, errs := runCmdDispatch("datasets", "inspect", "graph-example")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	inspectGolden(t, golden, "example", out)
	code, out, errs = runCmdDispatch("datasets", "inspect", "--json", "--format", "edgelist", "graph-example")
	if code != cli.ExitOK {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	inspectGolden(t, golden, "example.json", out)

	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "edges.csv"), []byte("a,b\nb,c,d,e\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = runCmdDispatch("datasets", "inspect", bad)
	if code != cli.ExitInvalid || !strings.Contains(errs, "edges.csv:2: 4 columns, want 2 like the first edge line") {
		t.Errorf("bad edges: exit %d, stderr %q; want %d and the file:line", code, errs, cli.ExitInvalid)
	}
	if code, _, _ := runCmdDispatch("datasets", "inspect"); code != cli.ExitUsage {
		t.Errorf("no PATH: exit %d, want %d", code, cli.ExitUsage)
	}
}

// TestPlanNamesChangedFile: editing one of a files dataset's files reruns
// the dataset stage, and plan says which file changed.
func TestPlanNamesChangedFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "mine")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(data, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("edges.csv", "a,b\nb,c\nc,d\n")
	write("labels.csv", "a,x\nb,y\nc,x\nd,y\n")
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(`pipeline "p" {}
stage "dataset" "mine" {
  source = "files"
  path   = "mine"
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	if code, _, errs := runCmdDispatch("run", "-q", "--cache", cdir, file); code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	write("labels.csv", "a,x\nb,y\nc,y\nd,y\n")
	code, out, errs := runCmdDispatch("plan", "--cache", cdir, file)
	if code != cli.ExitOK || !strings.Contains(out, "file labels.csv changed") {
		t.Errorf("plan after editing labels.csv: exit %d\n%s%s", code, out, errs)
	}
	if err := os.Remove(filepath.Join(data, "edges.csv")); err != nil {
		t.Fatal(err)
	}
	code, out, errs = runCmdDispatch("plan", "--cache", cdir, file)
	if code == cli.ExitOK || !strings.Contains(out+errs, "holds no graph") {
		t.Errorf("plan without edges.csv: exit %d\n%s%s", code, out, errs)
	}
}
