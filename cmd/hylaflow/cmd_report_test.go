package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/runreport"
)

// reportTestPipeline trains HyLa-SGC and SGC for two seeds on a small
// synthetic disease tree and evaluates them twice (one plain, one for_each
// instance, to check directory names of instance addresses).
const reportTestPipeline = `
variable "seeds" { default = [0, 1] }
stage "dataset" "d" {
  source = "synthetic"
  name   = "disease"
  nodes  = 200
  seed   = 3
}
stage "split" "d" {
  graph = stage.dataset.d
  rule  = "hgcn"
}
stage "normalize" "d" { graph = stage.dataset.d }
stage "precompute" "d" {
  graph = stage.normalize.d
  split = stage.split.d
  k     = 2
}
stage "sample" "h" {
  for_each = toset(var.seeds)
  dim      = 4
  features = 20
  seed     = each.value
}
stage "train" "h" {
  for_each = toset(var.seeds)
  features = stage.precompute.d
  samples  = stage.sample.h[each.key]
  epochs   = 3
  seed     = each.value
}
stage "train" "s" {
  for_each = toset(var.seeds)
  features = stage.precompute.d
  model    = "sgc"
  epochs   = 3
  seed     = each.value
}
stage "evaluate" "all" {
  runs       = [stage.train.h, stage.train.s]
  compare_to = "none"
  title      = "Report test"
}
stage "evaluate" "each" {
  for_each = toset(["hyla"])
  runs     = stage.train.h
  title    = "Report test, HyLa only"
}
`

func reportTestDispatch(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := app.Dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestReportCmd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(reportTestPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	if code, _, errs := reportTestDispatch("run", "-q", "--cache", cdir, file); code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", code, errs)
	}

	out := filepath.Join(dir, "rep")
	code, stdout, errs := reportTestDispatch("report", "--cache", cdir, "--out", out)
	if code != cli.ExitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	for _, sub := range []string{"evaluate.all", `evaluate.each-hyla`} {
		for _, f := range []string{"table.md", "table.csv", "table.json", "chart.png"} {
			st, err := os.Stat(filepath.Join(out, sub, f))
			if err != nil || st.Size() == 0 {
				t.Errorf("report did not write %s/%s: %v", sub, f, err)
			}
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "evaluate.all", "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, string(md)) {
		t.Errorf("stdout does not hold evaluate.all's table.md:\n%s", stdout)
	}
	for _, want := range []string{"# Report test", "hyla-sgc", "sgc", "# Report test, HyLa only"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// The JSON table holds both models with two runs each.
	var tab struct {
		Cells []struct {
			Model string `json:"model"`
			Runs  int    `json:"runs"`
		} `json:"cells"`
	}
	js, err := os.ReadFile(filepath.Join(out, "evaluate.all", "table.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &tab); err != nil {
		t.Fatal(err)
	}
	runs := map[string]int{}
	for _, c := range tab.Cells {
		runs[c.Model] += c.Runs
	}
	if runs["hyla-sgc"] != 2 || runs["sgc"] != 2 {
		t.Errorf("table.json runs per model = %v, want hyla-sgc 2, sgc 2", runs)
	}

	// The timing view of run 1 (everything computed): one row per train
	// stage, total = own time + the time of its dependencies, none flagged.
	code, stdoutT, errs := reportTestDispatch("report", "1", "--timing", "--cache", cdir, "--out", out)
	if code != cli.ExitOK {
		t.Fatalf("report --timing: exit %d: %s", code, errs)
	}
	var timing struct {
		Runs []runreport.Timing `json:"runs"`
	}
	tj, err := os.ReadFile(filepath.Join(out, "timing", "timing.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(tj, &timing); err != nil {
		t.Fatal(err)
	}
	if len(timing.Runs) != 4 {
		t.Fatalf("timing rows %d, want 4 (2 seeds × 2 models)", len(timing.Runs))
	}
	for _, r := range timing.Runs {
		if len(r.CachedUpstream) != 0 || r.UpstreamSec <= 0 || r.TrainSec <= 0 ||
			math.Abs(r.TotalSec-r.TrainSec-r.UpstreamSec) > 1e-9 || !(r.Test >= 0 && r.Test <= 100) {
			t.Errorf("timing row %+v", r)
		}
	}
	for _, f := range []string{"timing.md", "timing.csv", "timing.png"} {
		if st, err := os.Stat(filepath.Join(out, "timing", f)); err != nil || st.Size() == 0 {
			t.Errorf("no timing/%s: %v", f, err)
		}
	}
	if !strings.Contains(stdoutT, "# Training time including precompute (run 1)") || strings.Contains(stdoutT, "came from the cache") {
		t.Errorf("timing output:\n%s", stdoutT)
	}

	// A fully cached second run is run 2; its report is byte-identical.
	if code, _, errs := reportTestDispatch("run", "-q", "--cache", cdir, file); code != cli.ExitOK {
		t.Fatalf("second run: exit %d: %s", code, errs)
	}
	out2 := filepath.Join(dir, "rep2")
	code, stdout2, errs := reportTestDispatch("report", "2", "--cache", cdir, "--out", out2)
	if code != cli.ExitOK {
		t.Fatalf("report 2: exit %d: %s", code, errs)
	}
	md2, err := os.ReadFile(filepath.Join(out2, "evaluate.all", "table.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(md, md2) {
		t.Errorf("run 2's table differs from run 1's:\n%s\n---\n%s", md, md2)
	}
	// Run 2 computed nothing: its timing rows are all flagged.
	code, stdout3, errs := reportTestDispatch("report", "2", "--timing", "--cache", cdir, "--out", out2)
	if code != cli.ExitOK || !strings.Contains(stdout3, "4 runs had dependencies that came from the cache") {
		t.Errorf("report 2 --timing: exit %d (%s):\n%s", code, errs, stdout3)
	}
	stdout2 = stdout2[:strings.Index(stdout2+"<!-- timing", "<!-- timing")]
	if strings.ReplaceAll(stdout2, out2, out) != strings.NewReplacer("(run 1)", "(run 2)", " of run 1 ", " of run 2 ").Replace(stdout) {
		t.Errorf("report 2 output differs from report 1 beyond the run number and paths:\n%s\n---\n%s", stdout, stdout2)
	}

	// report --html writes run-2.html beside the Markdown report, saying so;
	// the second run's stages are all cached, and the page says that too.
	code, stdoutH, errs := reportTestDispatch("report", "--html", "--cache", cdir, "--out", out2)
	if code != cli.ExitOK || !strings.Contains(stdoutH, "wrote the HTML report of run 2 to "+filepath.Join(out2, "run-2.html")) {
		t.Errorf("report --html: exit %d (%s):\n%s", code, errs, stdoutH)
	}
	page, err := os.ReadFile(filepath.Join(out2, "run-2.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<title>hylaflow run 2: ", `data-block="train.h" data-status="cached"`, "2 cached", "Report test, HyLa only"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("run-2.html lacks %q", want)
		}
	}

	// report --compare 1 2: the same keys, the same numbers, every cell within.
	code, stdoutC, errs := reportTestDispatch("report", "--compare", "1", "2", "--html", "--cache", cdir, "--out", out2)
	if code != cli.ExitOK {
		t.Fatalf("report --compare: exit %d: %s", code, errs)
	}
	for _, want := range []string{"# Run 2 compared with run 1\n", "None: same build, machine, files and variables.",
		"| synthetic_disease | hyla-sgc | ", " | +0.00 | 1.86 | within |", "12 with the same cache key in both runs; 0 changed;",
		"wrote the comparison of run 1 with run 2 to " + filepath.Join(out2, "compare-1-2.md"),
		"wrote the HTML comparison to " + filepath.Join(out2, "compare-1-2.html")} {
		if !strings.Contains(stdoutC, want) {
			t.Errorf("report --compare lacks %q:\n%s", want, stdoutC)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out2, "compare-1-2.html")); err != nil || !strings.Contains(string(b), "Comparison: run 1 → run 2") {
		t.Errorf("compare-1-2.html: %v", err)
	}
}

func TestReportCmdErrors(t *testing.T) {
	dir := t.TempDir()
	cdir := filepath.Join(dir, "cache")
	// A run without evaluate stages.
	file := filepath.Join(dir, "p.hcl")
	src := "stage \"value\" \"v\" {\n  values = [1, 2]\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := reportTestDispatch("report", "--cache", cdir); code != cli.ExitFailed {
		t.Errorf("report on a missing cache: exit %d (%s), want %d", code, errs, cli.ExitFailed)
	}
	if code, _, errs := reportTestDispatch("run", "-q", "--cache", cdir, file); code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"latest"}, cli.ExitFailed, "has no table or figure outputs"},
		{[]string{"7"}, cli.ExitUsage, "no run 7"},
		{[]string{"abc"}, cli.ExitUsage, `run "abc"`},
		{[]string{"0"}, cli.ExitUsage, `run "0"`},
		{[]string{"1", "2"}, cli.ExitUsage, "at most one run"},
		{[]string{"--out", ""}, cli.ExitUsage, "--out"},
		{[]string{"--bogus"}, cli.ExitUsage, "bogus"},
		{[]string{"-o", "x.html"}, cli.ExitUsage, "give --html too"},
		{[]string{"--html", "-o", ""}, cli.ExitUsage, "-o must not be empty"},
		{[]string{"--compare", "1"}, cli.ExitUsage, "--compare wants two runs A B, got 1"},
		{[]string{"--compare", "1", "2", "3"}, cli.ExitUsage, "--compare wants two runs A B, got 3"},
		{[]string{"--compare", "--timing", "1", "1"}, cli.ExitUsage, "--timing is for one run"},
		{[]string{"--compare", "1", "9"}, cli.ExitUsage, "no run 9"},
		{[]string{"--compare", "x", "1"}, cli.ExitUsage, `run "x"`},
	}
	for _, tt := range tests {
		args := append([]string{"report", "--cache", cdir, "--out", filepath.Join(dir, "rep")}, tt.args...)
		code, _, errs := reportTestDispatch(args...)
		if code != tt.code || !strings.Contains(errs, tt.msg) {
			t.Errorf("report %v: exit %d, stderr %q; want exit %d mentioning %q", tt.args, code, errs, tt.code, tt.msg)
		}
	}
	// A run without tables still has a page: its timeline, DAG and provenance.
	page := filepath.Join(dir, "page.html")
	code, out, errs := reportTestDispatch("report", "--cache", cdir, "--html", "-o", page)
	if code != cli.ExitOK || !strings.Contains(out, "wrote the HTML report of run 1 to ") {
		t.Errorf("report --html -o of a run without tables: exit %d, %q, %q", code, out, errs)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "This run made no table.") ||
		!strings.Contains(string(b), `<g class="node" data-block="value.v" data-status="ran">`) {
		t.Errorf("the page of a run without tables: %v\n%s", err, b)
	}
	if code, out, _ := reportTestDispatch("report", "--help"); code != cli.ExitOK || !strings.Contains(out, "Usage: hylaflow report") {
		t.Errorf("report --help: exit %d, %q", code, out)
	}
}

// "latest" is the run that finished last: a run another process started
// afterwards and is still going is passed over (with a note), and taken
// only when no run has finished; so is a run interrupted before recording
// any stage.
func TestReportCmdLatestSkipsRunningRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(reportTestPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	// A run still in progress and nothing finished: its tables so far (none).
	empty := filepath.Join(dir, "empty")
	c, err := cache.Open(empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.BeginRun("other", nil); err != nil {
		t.Fatal(err)
	}
	code, _, errs := reportTestDispatch("report", "--cache", empty, "--out", filepath.Join(dir, "r0"))
	if code != cli.ExitFailed || !strings.Contains(errs, "run 1 is still running") || !strings.Contains(errs, "run 1 has no table or figure outputs") {
		t.Errorf("report latest with only a running run: exit %d, stderr %q", code, errs)
	}
	c.Close()

	cdir := filepath.Join(dir, "cache")
	if code, _, errs := reportTestDispatch("run", "-q", "--cache", cdir, file); code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	c, err = cache.Open(cdir) // this process stays alive: its run is in progress
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	running, err := c.BeginRun("sweep", nil)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, errs := reportTestDispatch("report", "--cache", cdir, "--out", filepath.Join(dir, "r1"))
	if code != cli.ExitOK || !strings.Contains(stdout, "# Report test") {
		t.Fatalf("report latest beside a running run: exit %d, stderr %q", code, errs)
	}
	if want := fmt.Sprintf("latest: run 1, the last to finish (run %d is still running)", running); !strings.Contains(errs, want) {
		t.Errorf("stderr %q lacks %q", errs, want)
	}
	// Once it has finished, it is the latest.
	if err := c.RecordStage(running, cache.StageRecord{Address: "sweep.x", Key: "k", Status: "ran"}); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishRun(running, "ok"); err != nil {
		t.Fatal(err)
	}
	code, _, errs = reportTestDispatch("report", "--cache", cdir, "--out", filepath.Join(dir, "r2"))
	if code != cli.ExitFailed || !strings.Contains(errs, fmt.Sprintf("run %d has no table or figure outputs", running)) {
		t.Errorf("report latest after the sweep finished: exit %d, stderr %q", code, errs)
	}
	// A run interrupted before recording any stage has no results: latest
	// passes over it to the sweep, and says so.
	interrupted, err := c.BeginRun("p", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.FinishRun(interrupted, "canceled"); err != nil {
		t.Fatal(err)
	}
	code, _, errs = reportTestDispatch("report", "--cache", cdir, "--out", filepath.Join(dir, "r3"))
	want := fmt.Sprintf("hylaflow report: latest: run %d, the last with stages (run %d was canceled before recording any stage)\n", running, interrupted)
	if code != cli.ExitFailed || !strings.HasPrefix(errs, want) {
		t.Errorf("report latest after an interrupted run: exit %d, stderr %q, want it to open with %q", code, errs, want)
	}
	code, stdout, errs = reportTestDispatch("runs", "show", "--cache", cdir)
	want = fmt.Sprintf("hylaflow runs show: last: run %d, the last with stages (run %d was canceled before recording any stage)\n", running, interrupted)
	if code != cli.ExitOK || errs != want || !strings.Contains(stdout, "sweep.x") {
		t.Errorf("runs show after an interrupted run: exit %d, stderr %q (want %q), stdout %q", code, errs, want, stdout)
	}
}

// A run without evaluate stages (the kernel figure): report writes the
// figure's files and lists them, and prints no table.
func TestReportCmdFigures(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "k.hcl")
	src := `stage "kernel" "fig" {
  points         = 11
  grid           = 5
  features       = 20
  sample_points  = 10
  feature_counts = [10, 20]
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	code, stdout, errs := reportTestDispatch("run", "--cache", cdir, file)
	if code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if strings.Contains(stdout, "±") || !strings.Contains(stdout, "'hylaflow report' writes its tables and figures to ") {
		t.Errorf("run's output:\n%s", stdout)
	}
	out := filepath.Join(dir, "rep")
	code, stdout, errs = reportTestDispatch("report", "--cache", cdir, "--out", out)
	if code != cli.ExitOK {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	want := []string{"curve.csv", "disk.csv", "disk_estimate.png", "disk_estimate.svg", "disk_kernel.png", "disk_kernel.svg",
		"error.csv", "error.png", "error.svg", "kernel_distance.png", "kernel_distance.svg", "summary.json"}
	var listing strings.Builder
	fmt.Fprintf(&listing, "wrote %d files of run 1 into %s:\n", len(want), out)
	for _, f := range want {
		st, err := os.Stat(filepath.Join(out, "kernel.fig", f))
		if err != nil || st.Size() == 0 {
			t.Errorf("report did not write kernel.fig/%s: %v", f, err)
		}
		fmt.Fprintf(&listing, "  kernel.fig/%s\n", f)
	}
	if stdout != listing.String() {
		t.Errorf("report's stdout:\n%s\nwant:\n%s", stdout, listing.String())
	}
	var summary map[string]any
	if b, err := os.ReadFile(filepath.Join(out, "kernel.fig", "summary.json")); err != nil || json.Unmarshal(b, &summary) != nil {
		t.Errorf("summary.json is not JSON: %v", err)
	}
}
