package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var tableTextUpdate = flag.Bool("update-tables", false, "rewrite the golden files in testdata/tables")

// runCmdTestDir is the package directory (tests that change directory
// find testdata through it).
var runCmdTestDir, _ = os.Getwd()

// TestTableText renders table.json documents (written like the evaluate
// stage's) and compares with testdata/tables/NAME.golden: the wide layout
// with paper and Δ rows, the long layout when the wide one is too wide for
// 80 columns, missing cells, mixed run counts, an empty table.
func TestTableText(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wide     bool // the wide (model × dataset) layout is expected
		contains []string
	}{
		{"quickstart", true, []string{"| hyla-sgc | 84.3 ± 1.3", "mean ± std over 3 runs"}},
		{"table1", true, []string{"|   paper  | 91.3 ± 0.6", "| -3.2 ✗", "| no runs", "Δ = result − paper"}},
		{"wide", false, []string{"| reddit   | hyla-sgc | 2    | 80.1 ± 1.0 | 81.0 ± 0.5 | -0.9 ✓ |", "| r52      | sgc      | 2    | 80.1 ± 1.0 | —"}},
		{"search", true, []string{"val accuracy (%), mean ± std over 1–2 runs", "| s=1 lr_e=1 lr_c=0.3   | 76.4 ± 1.0 |"}},
		{"empty", false, []string{"Results — test accuracy", "(no cells)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join("testdata", "tables", tc.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := tableTextWrite(&b, doc); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			golden := filepath.Join("testdata", "tables", tc.name+".golden")
			if *tableTextUpdate {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update-tables once)", err)
			}
			if got != string(want) {
				t.Errorf("differs from %s; got:\n%s\nwant:\n%s", golden, got, want)
			}
			for _, s := range tc.contains {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
			if isWide := strings.Contains(got, "\n| model "); isWide != tc.wide {
				t.Errorf("wide layout %v, want %v:\n%s", isWide, tc.wide, got)
			}
			for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if n := utf8.RuneCountInString(line); n > tableTextWidth && i > 0 {
					t.Errorf("line %d has %d columns, more than %d: %q", i+1, n, tableTextWidth, line)
				}
			}
		})
	}
	if err := tableTextWrite(&bytes.Buffer{}, []byte(`{"cells": 3}`)); err == nil || !strings.Contains(err.Error(), "table.json") {
		t.Errorf("malformed table.json: error %v, want one naming table.json", err)
	}
}

var tableTextDurRE = regexp.MustCompile(`\b\d+(\.\d+)?(ms|s|µs)\b`)

// runCmdTail returns run's stdout (the tables and the run line; progress
// and the summary go to stderr), durations masked, after checking that
// stderr ends with the summary.
func runCmdTail(t *testing.T, stdout, stderr string) string {
	t.Helper()
	if !strings.Contains(stderr, "nothing to do:") && !strings.Contains(stderr, " stages: ") {
		t.Errorf("no summary line on stderr:\n%s", stderr)
	}
	return tableTextDurRE.ReplaceAllString(stdout, "DUR")
}

// TestRunCmdTablesAndCacheLocation runs a pipeline kept in a repository's
// subdirectory, without --cache or $HYLAFLOW_CACHE: from the repository
// root, the cache is made at the root; from the subdirectory, the same
// cache is found and nothing recomputes; report from there writes to the
// root's report/. Both runs end with the evaluate tables (golden file
// testdata/tables/run.golden), -q leaves them out.
func TestRunCmdTablesAndCacheLocation(t *testing.T) {
	t.Setenv("HYLAFLOW_CACHE", "")
	root := t.TempDir()
	for _, d := range []string{".git", "pipelines"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runCmdWrite(t, filepath.Join(root, "pipelines"), "p.hcl", reportTestPipeline)

	t.Chdir(root)
	code, stdout, stderr := runCmdDispatch("run", "-j", "1", "pipelines/p.hcl")
	if code != exitOK {
		t.Fatalf("run from the root: exit %d: %s", code, stderr)
	}
	if st, err := os.Stat(filepath.Join(root, ".hylaflow", "index.db")); err != nil || st.Size() == 0 {
		t.Fatalf("no cache at the repository root: %v", err)
	}
	cold := runCmdTail(t, stdout, stderr)

	t.Chdir(filepath.Join(root, "pipelines"))
	code, stdout, stderr = runCmdDispatch("run", "p.hcl")
	if code != exitOK {
		t.Fatalf("run from pipelines/: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "pipelines", ".hylaflow")); err == nil {
		t.Errorf("run from pipelines/ made a second cache there")
	}
	cached := runCmdTail(t, stdout, stderr)
	got := "== cold, from the repository root\n" + cold + "== cached, from pipelines/\n" + cached
	path := filepath.Join(runCmdTestDir, "testdata", "tables", "run.golden")
	if *tableTextUpdate {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update-tables once)", err)
	}
	if got != string(want) {
		t.Errorf("run output differs from %s; got:\n%s\nwant:\n%s", path, got, want)
	}

	code, stdout, stderr = runCmdDispatch("run", "-q", "p.hcl")
	if code != exitOK || strings.Contains(stdout, "±") || strings.Contains(stdout, "cache ../.hylaflow") {
		t.Errorf("run -q: exit %d (%s), tables or cache line printed:\n%s", code, stderr, stdout)
	}

	code, stdout, stderr = runCmdDispatch("report")
	if code != exitOK {
		t.Fatalf("report from pipelines/: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"evaluate.all/table.md", "evaluate.each-hyla/chart.png"} {
		if _, err := os.Stat(filepath.Join(root, "report", filepath.FromSlash(f))); err != nil {
			t.Errorf("report did not write %s at the repository root: %v", f, err)
		}
		if !strings.Contains(stdout, "  "+f+"\n") {
			t.Errorf("report's listing lacks %s:\n%s", f, stdout)
		}
	}
	if !strings.Contains(stdout, "files of run 3 into ../report:") {
		t.Errorf("report's listing does not name ../report and run 3:\n%s", stdout)
	}
}
