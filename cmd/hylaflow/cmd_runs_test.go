package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/runs"
)

// runsCmdFailPipeline: one good stage and a failing one with a dependent.
const runsCmdFailPipeline = `
stage "value" "a" { values = [1, 2] }
stage "fail" "f" { message = "deliberate failure\nsecond line" }
stage "sum" "all" { in = [stage.value.a, stage.value.a] }
stage "scale" "after" { in = stage.value.a }
`

func TestRunsCmdListAndShow(t *testing.T) {
	file, cdir := cacheCmdSetup(t)
	fail := filepath.Join(filepath.Dir(file), "bad.hcl")
	if err := os.WriteFile(fail, []byte(runsCmdFailPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	cacheCmdMust(t, cli.ExitFailed, "run", fail, "--cache", cdir, "-q", "-j", "1", "--keep-going")

	dirOf := filepath.Dir(file)
	mask := func(s string) string {
		return cacheCmdMask(runsCmdMaskMachine(strings.ReplaceAll(s, dirOf, "DIR")), cdir)
	}
	cacheCmdGolden(t, "runs_list", mask(cacheCmdMust(t, cli.ExitOK, "runs", "--cache", cdir)))
	cacheCmdGolden(t, "runs_show_1", mask(cacheCmdMust(t, cli.ExitOK, "runs", "show", "1", "--cache", cdir)))
	cacheCmdGolden(t, "runs_show_2", mask(cacheCmdMust(t, cli.ExitOK, "runs", "show", "2", "--cache", cdir)))
	cacheCmdGolden(t, "runs_show_last", mask(cacheCmdMust(t, cli.ExitOK, "runs", "show", "--cache", cdir)))

	if got := cacheCmdMust(t, cli.ExitOK, "runs", "list", "-n", "1", "--cache", cdir); strings.Count(got, "\n") != 2 || !strings.Contains(got, "\n3 ") {
		t.Errorf("runs list -n 1:\n%s", got)
	}

	var list []runs.RunJSON
	if err := json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "runs", "list", "--json", "--cache", cdir)), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != 3 || list[0].Status != "failed" || list[1].Status != "ok" ||
		list[1].Ran != 2 || list[1].Cached != 2 || list[2].Ran != 4 || list[2].Args[0] != "run" {
		t.Errorf("runs list --json = %+v", list)
	}
	for _, r := range list {
		st, err := time.Parse(time.RFC3339Nano, r.Start)
		if err != nil || time.Since(st) > time.Hour || r.DurationS <= 0 {
			t.Errorf("run %d: start %q (%v), duration %v s", r.ID, r.Start, err, r.DurationS)
		}
	}

	var d runs.DetailJSON
	if err := json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "runs", "show", "2", "--json", "--cache", cdir)), &d); err != nil {
		t.Fatal(err)
	}
	if p := d.Provenance; p == nil || p.Vars["factor"] != "3" || len(p.Vars) != 1 || len(p.Pipeline.SHA256) != 64 ||
		p.Pipeline.Path != file || p.Cores < 1 || p.Go == "" || p.Host == "" || !slices.Contains([]string{"avx512", "avx2", "generic"}, p.Kernel) {
		t.Errorf("runs show 2 --json provenance = %+v", d.Provenance)
	}
	status := map[string]runs.StageJSON{}
	for _, s := range d.StageList {
		status[s.Address] = s
	}
	if len(d.StageList) != 4 || status["value.a"].Status != "cached" || status["random.r"].Status != "cached" ||
		status["scale.s"].Status != "ran" || !strings.Contains(status["scale.s"].Reason, "factor") ||
		status["sum.all"].Status != "ran" || len(status["sum.all"].Key) != 64 {
		t.Errorf("runs show 2 --json stages = %+v", d.StageList)
	}
	// The metrics of run 2's sum agree with the exported metrics artifact of its key.
	m := status["sum.all"].Metrics
	if m["count"] != 2 || m["length"] != 3 {
		t.Errorf("sum.all metrics %v, want count 2 and length 3", m)
	}

	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"runs", "show", "99"}, cli.ExitUsage, "no run 99"},
		{[]string{"runs", "show", "abc"}, cli.ExitUsage, `run id "abc": want a positive number or "last"`},
		{[]string{"runs", "show", "1", "2"}, cli.ExitUsage, "unexpected arguments 1 2"},
		{[]string{"runs", "list", "-n", "-1"}, cli.ExitUsage, "-n -1: want 0 or more"},
		{[]string{"runs", "--help"}, cli.ExitOK, "Usage: hylaflow runs [list]"},
		{[]string{"runs", "show", "-h"}, cli.ExitOK, "show prints one run"},
	}
	for _, tc := range tests {
		args := append(tc.args, "--cache", cdir)
		code, out, errs := cacheCmdExec(args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("hylaflow %s: exit %d, output %q; want exit %d and %q", strings.Join(args, " "), code, out+errs, tc.code, tc.want)
		}
	}
}

// runsCmdMachineRE matches the provenance lines that name the build and
// the machine, which differ between machines and builds.
var runsCmdMachineRE = regexp.MustCompile(`(?m)^(  (?:hylaflow|revision|go|kernel|blas|host|cores) +).*$`)

// runsCmdMaskMachine replaces the values of the provenance lines that
// name the build and the machine with "*".
func runsCmdMaskMachine(s string) string {
	return runsCmdMachineRE.ReplaceAllString(s, "${1}*")
}

func TestRunsCmdEmpty(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none")
	if got := cacheCmdMust(t, cli.ExitOK, "runs", "--cache", missing); got != "no runs recorded in "+missing+"\n" {
		t.Errorf("runs on a missing cache: %q", got)
	}
	if got := cacheCmdMust(t, cli.ExitOK, "runs", "list", "--json", "--cache", missing); got != "[]\n" {
		t.Errorf("runs --json on a missing cache: %q", got)
	}
	if got := cacheCmdMust(t, cli.ExitFailed, "runs", "show", "--cache", missing); !strings.Contains(got, "no runs recorded in "+missing) {
		t.Errorf("runs show on a missing cache: %q", got)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("runs created %s", missing)
	}
}

// TestRunsCmdCachedMetrics: a fully cached run still shows the sum's metrics
// (read from the stored metrics artifact), equal to those of the first run.
func TestRunsCmdCachedMetrics(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(cacheCmdTestPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q")
	metrics := func(id string) (string, map[string]float64) {
		var d runs.DetailJSON
		if err := json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "runs", "show", id, "--json", "--cache", cdir)), &d); err != nil {
			t.Fatal(err)
		}
		for _, s := range d.StageList {
			if s.Address == "sum.all" {
				return s.Status, s.Metrics
			}
		}
		t.Fatalf("run %s has no sum.all", id)
		return "", nil
	}
	st1, m1 := metrics("1")
	st2, m2 := metrics("2")
	if st1 != "ran" || st2 != "cached" || len(m1) != 4 || m1["count"] != 2 {
		t.Fatalf("run 1: %s %v; run 2: %s %v", st1, m1, st2, m2)
	}
	for k, v := range m1 {
		if m2[k] != v {
			t.Errorf("cached metric %s = %v, first run %v", k, m2[k], v)
		}
	}
	if out := cacheCmdMust(t, cli.ExitOK, "runs", "show", "--cache", cdir); !strings.Contains(out, "metrics:\n  sum.all  count=2  length=3  ") {
		t.Errorf("runs show of the cached run:\n%s", out)
	}
}

// A run recorded before provenance existed shows it as not recorded, and
// null in JSON.
func TestRunsCmdProvenanceNotRecorded(t *testing.T) {
	cdir := filepath.Join(t.TempDir(), "cache")
	c, err := cache.Open(cdir)
	if err != nil {
		t.Fatal(err)
	}
	id, err := c.BeginRun("old", []string{"run", "old.hcl"})
	if err == nil {
		err = c.FinishRun(id, "ok")
	}
	if err == nil {
		err = c.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if out := cacheCmdMust(t, cli.ExitOK, "runs", "show", "--cache", cdir); !strings.Contains(out,
		"\nprovenance:\n  not recorded (the run is older than provenance records)\n") {
		t.Errorf("runs show of a run without provenance:\n%s", out)
	}
	out := cacheCmdMust(t, cli.ExitOK, "runs", "show", "--json", "--cache", cdir)
	var d map[string]any
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if v, ok := d["provenance"]; !ok || v != nil {
		t.Errorf("runs show --json: provenance %v (present %v), want null", v, ok)
	}
}

// runs diff on two real ablation runs of the quickstart (the second with
// -var epochs=50): the provenance names the variable, every table cell
// has both means, the difference and the verdict, and the train stages
// say "param epochs changed 100 → 50". testdata/runs_diff_quickstart.golden
// holds the text with dates and directories masked (go test -update-cache
// rewrites it); the numbers are the same on every machine and kernel path.
func TestRunsCmdDiffQuickstart(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "pipelines", "quickstart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "pipelines"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := testenv.WriteFile(t, filepath.Join(dir, "pipelines"), "quickstart.hcl", string(src))
	cdir := filepath.Join(dir, "cache")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q", "-j", "1")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", cdir, "-q", "-j", "1", "-var", "epochs=50")

	mask := func(s string) string { return cacheCmdMask(strings.ReplaceAll(s, dir, "DIR"), cdir) }
	out := cacheCmdMust(t, cli.ExitOK, "runs", "diff", "1", "2", "--cache", cdir)
	cacheCmdGolden(t, "runs_diff_quickstart", mask(out))
	if last := cacheCmdMust(t, cli.ExitOK, "runs", "diff", "--cache", cdir); last != out {
		t.Errorf("runs diff without runs differs from runs diff 1 2:\n%s", last)
	}

	var d runs.Diff
	if err := json.Unmarshal([]byte(cacheCmdMust(t, cli.ExitOK, "runs", "diff", "1", "2", "--json", "--cache", cdir)), &d); err != nil {
		t.Fatal(err)
	}
	if d.A.ID != 1 || d.B.ID != 2 || len(d.Provenance.Changed) != 1 || d.Provenance.Changed[0] != (runs.FieldChange{Name: "var epochs", A: "", B: "50"}) {
		t.Errorf("runs diff --json: runs %d, %d, provenance %+v", d.A.ID, d.B.ID, d.Provenance)
	}
	if len(d.Tables) != 1 || len(d.Tables[0].Cells) != 3 {
		t.Fatalf("runs diff --json tables: %+v", d.Tables)
	}
	for _, c := range d.Tables[0].Cells {
		if c.A == nil || c.B == nil || c.A.Runs != 3 || c.Delta == nil || c.Bound == nil || *c.Delta != c.B.Mean-c.A.Mean ||
			(c.Verdict == runs.Beyond) != (math.Abs(*c.Delta) > *c.Bound) {
			t.Errorf("cell %s/%s: %+v", c.Dataset, c.Model, c)
		}
	}
	// 9 train instances and the evaluate stage differ; the data, split,
	// normalize, precompute and the 6 samples do not.
	if d.Stages.Same != 10 || len(d.Stages.Changed) != 10 || len(d.Stages.OnlyA)+len(d.Stages.OnlyB) != 0 {
		t.Errorf("runs diff --json stages: %d same, %d changed, only %v %v", d.Stages.Same, len(d.Stages.Changed), d.Stages.OnlyA, d.Stages.OnlyB)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"runs", "diff", "1"}, cli.ExitUsage, "want two runs A and B (or none: the last two), got 1"},
		{[]string{"runs", "diff", "1", "2", "3"}, cli.ExitUsage, "unexpected arguments 1 2 3"},
		{[]string{"runs", "diff", "1", "9"}, cli.ExitUsage, "no run 9"},
		{[]string{"runs", "diff", "x", "2"}, cli.ExitUsage, `run id "x": want a positive number or "last"`},
	} {
		code, out, errs := cacheCmdExec(append(tc.args, "--cache", cdir)...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("hylaflow %s: exit %d, output %q; want exit %d and %q", strings.Join(tc.args, " "), code, out+errs, tc.code, tc.want)
		}
	}
	one := filepath.Join(dir, "one")
	cacheCmdMust(t, cli.ExitOK, "run", file, "--cache", one, "-q", "-j", "1")
	if out := cacheCmdMust(t, cli.ExitFailed, "runs", "diff", "--cache", one); !strings.Contains(out, "1 runs recorded") {
		t.Errorf("runs diff with one run: %q", out)
	}
}
