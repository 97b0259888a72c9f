package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
)

var tableTextUpdate = flag.Bool("update-tables", false, "rewrite testdata/tables/run.golden")

// runCmdTestDir is the package directory (tests that change directory
// find testdata through it).
var runCmdTestDir, _ = os.Getwd()

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
	testenv.WriteFile(t, filepath.Join(root, "pipelines"), "p.hcl", reportTestPipeline)

	t.Chdir(root)
	code, stdout, stderr := runCmdDispatch("run", "-j", "1", "pipelines/p.hcl")
	if code != cli.ExitOK {
		t.Fatalf("run from the root: exit %d: %s", code, stderr)
	}
	if st, err := os.Stat(filepath.Join(root, ".hylaflow", "index.db")); err != nil || st.Size() == 0 {
		t.Fatalf("no cache at the repository root: %v", err)
	}
	cold := runCmdTail(t, stdout, stderr)

	t.Chdir(filepath.Join(root, "pipelines"))
	code, stdout, stderr = runCmdDispatch("run", "p.hcl")
	if code != cli.ExitOK {
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
	if code != cli.ExitOK || strings.Contains(stdout, "±") || strings.Contains(stdout, "cache ../.hylaflow") {
		t.Errorf("run -q: exit %d (%s), tables or cache line printed:\n%s", code, stderr, stdout)
	}

	code, stdout, stderr = runCmdDispatch("report")
	if code != cli.ExitOK {
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
