package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
)

var namesUpdate = flag.Bool("update-names", false, "rewrite testdata/names/hints.golden")

// An unknown --force or --only name is a usage error (exit 2) that helps:
// a name that starts stage blocks (train → train.hyla, train.rff,
// train.sgc) or is their NAME lists them, a near miss suggests the nearest
// stage or instance, and a name like nothing lists the pipeline's stages
// (golden testdata/names/hints.golden, on the quickstart pipeline).
func TestUnknownStageNameHints(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "pipelines", "quickstart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "quickstart.hcl", string(src))
	cdir := filepath.Join(dir, "cache")
	var got strings.Builder
	for _, args := range [][]string{
		{"run", "--force", "train"},
		{"plan", "--force", "train"},
		{"plan", "--force", "trian.hyla"},
		{"plan", "--force", "train.hyla[0]"},
		{"plan", "--force", "hyla"},
		{"plan", "--force", "nosuch", "--force", "sampel.rff"},
		{"run", "--only", "train"},
		{"plan", "--only", "train.sg"},
		{"plan", "--only", "nosuch*"},
	} {
		full := append(append([]string{}, args[0], file, "--cache", cdir), args[1:]...)
		code, out, errs := mainTestRun(full...)
		if code != cli.ExitUsage || out != "" {
			t.Errorf("hylaflow %s: exit %d (want %d), stdout %q", strings.Join(args, " "), code, cli.ExitUsage, out)
		}
		got.WriteString("$ hylaflow " + strings.Join(args, " ") + "\n")
		got.WriteString(strings.ReplaceAll(errs, file, "quickstart.hcl") + "\n")
	}
	golden := filepath.Join("testdata", "names", "hints.golden")
	if *namesUpdate {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("hints differ from %s (go test -run TestUnknownStageNameHints -update-names):\n%s", golden, got.String())
	}
}
