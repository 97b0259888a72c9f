package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/internal/cli"
)

// TestDatasetsCmdListJSON: datasets list --json against a data root that
// holds Cora's files only: its field names (the stable schema), Cora
// present, Citeseer missing with the fetch command, the generated graphs
// built in.
func TestDatasetsCmdListJSON(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HYLAFLOW_DATA", root)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Chdir(t.TempDir()) // no ../shared/datasets
	cora, ok := datasets.Lookup("cora")
	if !ok {
		t.Fatal("no cora in the catalogue")
	}
	for _, f := range cora.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, f.Size); err != nil { // Present checks sizes, not digests
			t.Fatal(err)
		}
	}
	code, out, errs := runCmdDispatch("datasets", "list", "--json")
	if code != cli.ExitOK {
		t.Fatalf("datasets list --json: exit %d: %s", code, errs)
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("not a JSON array: %v\n%s", err, out)
	}
	if len(raw) != len(datasets.Catalog()) {
		t.Fatalf("%d entries, want the catalogue's %d", len(raw), len(datasets.Catalog()))
	}
	var keys []string
	for k := range raw[0] {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := "built_in doc fetch files name paper present root source stats"; strings.Join(keys, " ") != want {
		t.Errorf("entry fields %q, want %q", strings.Join(keys, " "), want)
	}
	var list []datasets.CatalogEntryJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	by := map[string]datasets.CatalogEntryJSON{}
	for i, e := range list {
		by[e.Name] = e
		if e.Name != datasets.Catalog()[i].Name {
			t.Errorf("entry %d is %s, want catalogue order (%s)", i, e.Name, datasets.Catalog()[i].Name)
		}
	}
	c := by["cora"]
	if !c.Present || c.Root != root || c.Fetch != "" || c.BuiltIn || len(c.Files) != len(cora.Files) || c.Stats.Nodes != 2708 || c.Paper.Edges != 5429 {
		t.Errorf("cora: %+v", c)
	}
	for _, f := range c.Files {
		if !f.Present || f.Size == 0 || len(f.SHA256) != 64 {
			t.Errorf("cora file %+v", f)
		}
	}
	s := by["citeseer"]
	if s.Present || s.Root != root || s.Fetch != "hylaflow datasets fetch citeseer" || len(s.Files) == 0 || s.Files[0].Present {
		t.Errorf("citeseer: %+v", s)
	}
	g := by["synthetic_disease"]
	if !g.BuiltIn || !g.Present || g.Root != "" || g.Files == nil || len(g.Files) != 0 || g.Fetch != "" {
		t.Errorf("synthetic_disease: %+v", g)
	}
	if code, _, errs := runCmdDispatch("datasets", "list", "extra"); code != cli.ExitUsage || !strings.Contains(errs, "takes no arguments") {
		t.Errorf("datasets list extra: exit %d, %q", code, errs)
	}
}

// A dataset file of the wrong size (a truncated download) is reported as
// such by datasets list, text and JSON, in the words plan uses for the
// same file — not as missing.
func TestDatasetsCmdListWrongSize(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HYLAFLOW_DATA", root)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir) // no ../shared/datasets
	cora, ok := datasets.Lookup("cora")
	if !ok {
		t.Fatal("no cora in the catalogue")
	}
	short := cora.Files[len(cora.Files)-1]
	for _, f := range cora.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		size := f.Size
		if f.Path == short.Path {
			size-- // truncated by a byte
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := fmt.Sprintf("%s (wrong size: %d bytes, want %d)", short.Path, short.Size-1, short.Size)

	code, out, errs := runCmdDispatch("datasets", "list")
	if code != cli.ExitOK {
		t.Fatalf("datasets list: exit %d: %s", code, errs)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "cora ") {
			line = l
		}
	}
	if !strings.Contains(line, want) || strings.Contains(line, "missing") || !strings.Contains(line, "hylaflow datasets fetch cora") {
		t.Errorf("datasets list, cora's row %q: want %q, not missing, and the fetch command", line, want)
	}

	code, out, errs = runCmdDispatch("datasets", "list", "--json")
	if code != cli.ExitOK {
		t.Fatalf("datasets list --json: exit %d: %s", code, errs)
	}
	var list []datasets.CatalogEntryJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if e.Name != "cora" {
			continue
		}
		for _, f := range e.Files {
			wantProblem := ""
			if f.Path == short.Path {
				wantProblem = fmt.Sprintf("wrong size: %d bytes, want %d", short.Size-1, short.Size)
			}
			if f.Present != (wantProblem == "") || f.Problem != wantProblem {
				t.Errorf("cora file %s: present %v, problem %q; want %q", f.Path, f.Present, f.Problem, wantProblem)
			}
		}
	}

	code, _, errs = runCmdDispatch("datasets", "info", "cora")
	if code == cli.ExitOK || !strings.Contains(errs, want) || strings.Contains(errs, "missing") {
		t.Errorf("datasets info cora: exit %d, stderr %q; want %q, not missing", code, errs, want)
	}

	// plan says the same of the same file.
	file := filepath.Join(dir, "cora.hcl")
	if err := os.WriteFile(file, []byte("stage \"dataset\" \"cora\" {\n  source = \"planetoid\"\n  name   = \"cora\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out, errs = runCmdDispatch("plan", file, "--cache", filepath.Join(dir, "cache"))
	if !strings.Contains(out+errs, want) {
		t.Errorf("plan does not say %q:\n%s%s", want, out, errs)
	}
}
