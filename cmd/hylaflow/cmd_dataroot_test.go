package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
)

// TestDataRootFromPipelineRepo: with no $HYLAFLOW_DATA, a pipeline in a
// clone finds shared/datasets beside the clone whatever the working
// directory (here the package's, which has no ../shared/datasets), the
// way the cache is found; the run's provenance records the root and the
// dataset's fingerprint, and runs diff shows a changed data file.
func TestDataRootFromPipelineRepo(t *testing.T) {
	shared := testenv.Data(t)
	base := t.TempDir()
	clone := filepath.Join(base, "clone")
	data := filepath.Join(base, "shared", "datasets")
	for _, d := range []string{filepath.Join(clone, ".git"), filepath.Join(clone, "mypipes"), filepath.Join(data, "planetoid")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"x", "y", "tx", "ty", "allx", "ally", "graph", "test.index"} {
		b, err := os.ReadFile(filepath.Join(shared, "planetoid", "ind.cora."+s))
		if err != nil {
			t.Fatal(err)
		}
		testenv.WriteFile(t, filepath.Join(data, "planetoid"), "ind.cora."+s, string(b))
	}
	file := testenv.WriteFile(t, filepath.Join(clone, "mypipes"), "cora.hcl", `stage "dataset" "cora" {
  source = "planetoid"
  name   = "Cora"
}
`)
	t.Setenv("HYLAFLOW_DATA", "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cdir := filepath.Join(base, "cache")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q", "-j", "1")
	show := cacheCmdMust(t, cli.ExitOK, "runs", "show", "1", "--cache", cdir)
	fp := regexp.MustCompile(`data dataset\.cora +` + regexp.QuoteMeta(data) + ` fingerprint ([0-9a-f]{64})\n`).FindStringSubmatch(show)
	if fp == nil {
		t.Fatalf("runs show lacks the data root and fingerprint of dataset.cora:\n%s", show)
	}
	// The test index lists its first two nodes the other way round (the
	// same size, the same split): the stage runs again, and runs diff
	// names the changed fingerprint.
	index := filepath.Join(data, "planetoid", "ind.cora.test.index")
	b, _ := os.ReadFile(index)
	lines := strings.SplitN(string(b), "\n", 3)
	lines[0], lines[1] = lines[1], lines[0]
	if err := os.WriteFile(index, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := cacheCmdMust(t, cli.ExitOK, "plan", file, "--cache", cdir); !strings.Contains(out, "RUN  dataset.cora  input data changed") {
		t.Errorf("plan after a data change:\n%s", out)
	}
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q", "-j", "1")
	diff := cacheCmdMust(t, cli.ExitOK, "runs", "diff", "1", "2", "--cache", cdir)
	if !strings.Contains(diff, "data dataset.cora") || !strings.Contains(diff, fp[1]) {
		t.Errorf("runs diff does not show the data change:\n%s", diff)
	}
}
