package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

// TestPublishEndToEnd runs a small real pipeline with publish blocks: plan
// lists what would be published, a cold run and a cached run (after the
// directory was removed) both write the files, mode 0644, inside the
// directories named relative to the pipeline file, and a disabled block
// writes nothing.
func TestPublishEndToEnd(t *testing.T) {
	root := t.TempDir()
	pipes := filepath.Join(root, "pipes")
	if err := os.Mkdir(pipes, 0o755); err != nil {
		t.Fatal(err)
	}
	src := `variable "figures" {
  type    = bool
  default = false
}

stage "dataset" "tree" {
  source = "synthetic"
  name   = "disease"
  nodes  = 120
}

stage "split" "tree" {
  graph = stage.dataset.tree
  rule  = "hgcn"
}

stage "normalize" "tree" {
  graph = stage.dataset.tree
}

stage "precompute" "tree" {
  graph = stage.normalize.tree
  split = stage.split.tree
  k     = 2
}

stage "train" "sgc" {
  for_each = toset([0, 1])
  features = stage.precompute.tree
  model    = "sgc"
  epochs   = 3
  seed     = each.value
}

stage "evaluate" "tree" {
  runs       = stage.train.sgc
  compare_to = "none"
}

publish "../results" {
  from = [stage.evaluate.tree, stage.train.sgc["1"].model]

  file "accuracy.png" {
    from   = stage.evaluate.tree
    member = "chart.png"
  }
}

publish "../figures" {
  enabled = var.figures

  file "chart.png" {
    from   = stage.evaluate.tree
    member = "chart.png"
  }
}
`
	file := filepath.Join(pipes, "p.hcl")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(root, "cache")
	results := filepath.Join(root, "results")
	do := func(args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := app.Dispatch(args, &stdout, &stderr); code != cli.ExitOK {
			t.Fatalf("hylaflow %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	out, _ := do("plan", "--cache", cacheDir, file)
	for _, want := range []string{
		"publish " + results + "/: evaluate.tree/, train.sgc-1.model/, accuracy.png (evaluate.tree chart.png)",
		"publish " + filepath.Join(root, "figures") + "/: chart.png (evaluate.tree chart.png) (disabled)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(results); err == nil {
		t.Fatal("plan published")
	}
	wantFiles := []string{
		"accuracy.png",
		"evaluate.tree/chart.png", "evaluate.tree/table.csv", "evaluate.tree/table.json", "evaluate.tree/table.md",
		"train.sgc-1.model/curves.json", "train.sgc-1.model/model.npz",
	}
	for i, when := range []string{"cold", "cached"} {
		if i == 1 {
			if err := os.RemoveAll(results); err != nil {
				t.Fatal(err)
			}
		}
		out, _ := do("run", "-j", "1", "--cache", cacheDir, file)
		if !strings.Contains(out, "published 7 files to "+results) {
			t.Errorf("%s run: output lacks the published line:\n%s", when, out)
		}
		var got []string
		err := filepath.Walk(results, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(results, p)
			got = append(got, filepath.ToSlash(rel))
			if runtime.GOOS != "windows" && info.Mode().Perm() != 0o644 {
				t.Errorf("%s run: %s has mode %v, want 0644", when, rel, info.Mode().Perm())
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(wantFiles, " ") {
			t.Errorf("%s run published %v, want %v", when, got, wantFiles)
		}
		chart, _ := os.ReadFile(filepath.Join(results, "evaluate.tree", "chart.png"))
		acc, _ := os.ReadFile(filepath.Join(results, "accuracy.png"))
		if len(chart) < 100 || !bytes.HasPrefix(chart, []byte("\x89PNG")) || !bytes.Equal(chart, acc) {
			t.Errorf("%s run: chart.png (%d bytes) and accuracy.png (%d bytes) should be the same PNG", when, len(chart), len(acc))
		}
		md, _ := os.ReadFile(filepath.Join(results, "evaluate.tree", "table.md"))
		if !strings.Contains(string(md), "sgc") {
			t.Errorf("%s run: table.md = %q", when, md)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "figures")); err == nil {
		t.Error("a disabled publish block wrote its directory")
	}
	do("run", "-j", "1", "-q", "--cache", cacheDir, "-var", "figures=true", file)
	if b, err := os.ReadFile(filepath.Join(root, "figures", "chart.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("enabled figures block: %v", err)
	}
}
