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

// TestPlanReasonsSamePipeline: plan explains a stage that runs against the
// last run of the same pipeline, never against another pipeline's stage at
// the same address. A new pipeline that shares the quickstart's addresses
// (and its cache) is "never run" where its keys are new, and "cached from
// another pipeline" where the quickstart stored them; once it ran, a
// change is explained against its own values. Before, the first plan of
// the new pipeline said "param epochs changed 100 → 50": the quickstart's.
func TestPlanReasonsSamePipeline(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "pipelines", "quickstart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	quick := testenv.WriteFile(t, dir, "quickstart.hcl", string(src))
	mine := testenv.WriteFile(t, dir, "mine.hcl", strings.Replace(string(src), `pipeline "quickstart" {`, `pipeline "mine" {`, 1))
	cdir := filepath.Join(dir, "cache")
	cacheCmdMust(t, cli.ExitOK, "run", quick, "--cache", cdir, "-q", "-j", "1")

	plan := cacheCmdMust(t, cli.ExitOK, "plan", mine, "--cache", cdir, "-var", "epochs=50")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^RUN +train\.hyla\["0"\] +never run$`),
		regexp.MustCompile(`(?m)^CACHED +dataset\.disease +cached from another pipeline$`),
	} {
		if !want.MatchString(plan) {
			t.Errorf("plan of a new pipeline lacks %s:\n%s", want, plan)
		}
	}
	if strings.Contains(plan, "changed 100 → 50") {
		t.Errorf("plan of a new pipeline explains against the quickstart:\n%s", plan)
	}
	cacheCmdMust(t, cli.ExitOK, "run", mine, "--cache", cdir, "-q", "-j", "1", "-var", "epochs=50")
	plan = cacheCmdMust(t, cli.ExitOK, "plan", mine, "--cache", cdir, "-var", "epochs=60")
	if !regexp.MustCompile(`(?m)^RUN +train\.hyla\["0"\] +param epochs changed 50 → 60$`).MatchString(plan) ||
		!regexp.MustCompile(`(?m)^CACHED +dataset\.disease$`).MatchString(plan) {
		t.Errorf("plan after the pipeline ran:\n%s", plan)
	}
	// The quickstart's own history is its own.
	plan = cacheCmdMust(t, cli.ExitOK, "plan", quick, "--cache", cdir, "-var", "epochs=60")
	if !regexp.MustCompile(`(?m)^RUN +train\.hyla\["0"\] +param epochs changed 100 → 60$`).MatchString(plan) {
		t.Errorf("plan of the quickstart:\n%s", plan)
	}
}

// TestOnlyFlag: plan and run --only take the named stages and what they
// need upstream, nothing else; an unknown pattern is a usage error naming
// the pipeline's stages.
func TestOnlyFlag(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "pipelines", "quickstart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "quickstart.hcl", string(src))
	cdir := filepath.Join(dir, "cache")
	plan := cacheCmdMust(t, cli.ExitOK, "plan", file, "--cache", cdir, "--only", `train.sgc["1"]`)
	var addrs []string
	for _, line := range strings.Split(strings.TrimSpace(plan), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && (f[0] == "RUN" || f[0] == "CACHED") {
			addrs = append(addrs, f[1])
		}
	}
	if strings.Join(addrs, " ") != `dataset.disease normalize.disease split.disease precompute.disease train.sgc["1"]` {
		t.Errorf("plan --only train.sgc[\"1\"]: %v\n%s", addrs, plan)
	}
	out := cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-j", "1", "--only", "train.sgc*")
	if !strings.Contains(out, "7 stages: 7 ran, 0 cached") {
		t.Errorf("run --only: %s", out)
	}
	if got := cacheCmdMust(t, cli.ExitOK, "plan", file, "--cache", cdir, "--only", "train.sgc"); !strings.Contains(got, "nothing to do") {
		t.Errorf("plan --only train.sgc after run --only train.sgc*:\n%s", got)
	}
	got := cacheCmdMust(t, cli.ExitUsage, "run", file, "--cache", cdir, "--only", "train.cora")
	if !strings.Contains(got, "--only train.cora: no stage or instance of") || !strings.Contains(got, "train.hyla, ") {
		t.Errorf("run --only of an unknown stage: %s", got)
	}
}

// TestCacheExportNoCache: outside any clone, with no .hylaflow anywhere
// above, cache export says no cache was found instead of naming a cache
// directory that does not exist.
func TestCacheExportNoCache(t *testing.T) {
	t.Setenv("HYLAFLOW_CACHE", "")
	t.Chdir(t.TempDir())
	got := cacheCmdMust(t, cli.ExitFailed, "cache", "export", "abcd", "m.json")
	if !strings.Contains(got, "no cache found: no .hylaflow directory in the working directory or above it") ||
		strings.Contains(got, ".hylaflow:") {
		t.Errorf("cache export without a cache: %s", got)
	}
}
