package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

// TestStaticChecks runs validate and plan on small pipelines of the real
// stage library: a misspelt dataset name and out-of-range parameters fail
// validate with the attribute's line, and plan warns about a dataset whose
// files are missing, naming them and a fetch command that knows the name.
func TestStaticChecks(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	typo := write("typo.hcl", `stage "dataset" "cora" {
  source = "planetoid"
  name   = "corra"
}
`)
	ranges := write("ranges.hcl", `stage "sample" "s" {
  dim      = 0
  features = 100
}
stage "train" "t" {
  model    = "sgc"
  features = stage.precompute.p
  epochs   = 0
}
stage "dataset" "d" {
  source = "synthetic"
  name   = "disease"
}
stage "precompute" "p" {
  graph = stage.dataset.d
}
`)
	cora := write("cora.hcl", `stage "dataset" "cora" {
  source = "planetoid"
  name   = "cora"
}
`)
	empty := t.TempDir()
	t.Setenv("HYLAFLOW_DATA", empty)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	cases := []struct {
		args   []string
		code   int
		stderr []string
	}{
		{[]string{"validate", typo}, cli.ExitInvalid, []string{"typo.hcl:3:", `unknown dataset "corra" for source "planetoid"; did you mean "cora"?`}},
		{[]string{"plan", "--cache", filepath.Join(dir, "cache"), typo}, cli.ExitInvalid, []string{`did you mean "cora"?`}},
		{[]string{"validate", ranges}, cli.ExitInvalid, []string{"ranges.hcl:2:", `"dim" of stage type "sample" must be between 1 and 4096, got 0`,
			"ranges.hcl:8:", `"epochs" of stage type "train" must be between 1 and 1000000, got 0`}},
		{[]string{"validate", cora}, cli.ExitOK, nil},
		// Missing files: a warning that names every root tried and how to
		// get them, then no plan (a key made without the data would stay
		// the same when the data arrives or changes).
		{[]string{"plan", "--cache", filepath.Join(dir, "cache"), cora}, cli.ExitFailed, []string{"warning: Missing data files", "cora.hcl:1:",
			"Dataset cora: no data root holds its files; roots tried: " + empty + " ($HYLAFLOW_DATA): 8 missing: planetoid/ind.cora.x",
			"(user cache): 8 missing", "`hylaflow datasets fetch cora`",
			"hylaflow plan: dataset.cora: fingerprint of the data it reads: dataset cora (planetoid): no data root holds its files"}},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := app.Dispatch(c.args, &stdout, &stderr)
		if code != c.code {
			t.Errorf("hylaflow %s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), code, c.code, stdout.String(), stderr.String())
		}
		for _, want := range c.stderr {
			if !strings.Contains(stderr.String()+stdout.String(), want) {
				t.Errorf("hylaflow %s: output lacks %q:\n%s%s", strings.Join(c.args, " "), want, stdout.String(), stderr.String())
			}
		}
		if c.args[0] == "validate" && strings.Contains(stderr.String(), "Missing data files") {
			t.Errorf("validate warned about data files; only plan and run look at the machine:\n%s", stderr.String())
		}
	}
	// datasets fetch knows every name the warning suggests.
	var stdout, stderr bytes.Buffer
	if code := app.Dispatch([]string{"datasets", "fetch", "--from", empty, "--dest", t.TempDir(), "cora"}, &stdout, &stderr); strings.Contains(stderr.String(), "unknown dataset") {
		t.Errorf("datasets fetch cora: exit %d: %s", code, stderr.String())
	}
}
