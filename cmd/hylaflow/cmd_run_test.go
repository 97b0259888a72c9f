package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/testenv"
)

// runCmdTestPipeline: a quick source, eight sleeping stages, one sink.
const runCmdTestPipeline = `
variable "ms" { default = 250 }
stage "random" "src" {
  n    = 20
  seed = 3
}
stage "sleep" "s" {
  for_each = toset([for i in range(8) : tostring(i)])
  in       = stage.random.src
  ms       = var.ms + tonumber(each.key)
}
stage "sum" "all" { in = stage.sleep.s }
`

const runCmdTestRandom = `
stage "random" "r" {
  for_each = toset([for i in range(10) : tostring(i)])
  n    = 200
  seed = tonumber(each.key)
}
stage "scale" "s" {
  for_each = toset([for i in range(10) : tostring(i)])
  in     = stage.random.r[each.key]
  factor = 1.5
}
stage "sum" "all" { in = stage.scale.s }
`

// runCmdDispatch runs hylaflow in-process and returns its exit code and output.
func runCmdDispatch(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := app.Dispatch(args, &out, &errb)
	return code, out.String(), errb.String()
}

// runCmdDigests lists the cache's artifacts as address/output → digest.
func runCmdDigests(t *testing.T, dir string) map[string]string {
	t.Helper()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.List()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, a := range list {
		m[a.Key+"/"+a.Name] = a.Digest
	}
	return m
}

// runCmdVerify fails the test unless `cache verify` finds nothing wrong.
func runCmdVerify(t *testing.T, dir string) {
	t.Helper()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rep, err := c.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("cache verify: %d problems:\n%s", len(rep.Problems), strings.Join(rep.Problems, "\n"))
	}
}

func TestRunCmdCachedSecondTime(t *testing.T) {
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestPipeline)
	cdir := filepath.Join(dir, "cache")
	code, out, errs := runCmdDispatch("run", file, "-j", "4", "--cache", cdir, "-var", "ms=20")
	if code != cli.ExitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	// Progress and the summary are on stderr, a start and an end line per stage.
	if !strings.Contains(errs, "10 stages: 10 ran, 0 cached, 0 failed, 0 skipped in ") || !strings.Contains(errs, " start    sum.all\n") ||
		!strings.Contains(errs, " ran      sum.all  ") || strings.Contains(out, "sum.all") {
		t.Errorf("first run output:\n--- stdout\n%s--- stderr\n%s", out, errs)
	}
	code, out, _ = runCmdDispatch("plan", file, "--cache", cdir, "-var", "ms=20")
	if code != cli.ExitOK || !strings.Contains(out, "nothing to do: all 10 stages cached") {
		t.Errorf("plan after the run: exit %d\n%s", code, out)
	}
	code, out, _ = runCmdDispatch("plan", file, "--cache", cdir, "-var", "ms=30")
	if code != cli.ExitOK || !strings.Contains(out, "RUN     sleep.s[\"0\"]  param ms changed 20 → 30") || !strings.Contains(out, "CACHED  random.src") {
		t.Errorf("plan with another ms: exit %d\n%s", code, out)
	}
	code, _, errs = runCmdDispatch("run", file, "--cache", cdir, "-var", "ms=20", "-q")
	if code != cli.ExitOK || !strings.HasPrefix(errs, "nothing to do: all 10 stages cached") {
		t.Errorf("second run: exit %d\n%s", code, errs)
	}
	runCmdVerify(t, cdir)
}

func TestRunCmdPlanNeverCreatesTheCache(t *testing.T) {
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestPipeline)
	cdir := filepath.Join(dir, "cache")
	code, out, errs := runCmdDispatch("plan", file, "--cache", cdir)
	if code != cli.ExitOK || !regexp.MustCompile(`(?m)^RUN +random\.src +never run$`).MatchString(out) || !strings.Contains(out, "10 to run, 0 cached") {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(cdir); !os.IsNotExist(err) {
		t.Errorf("plan created the cache directory (%v)", err)
	}
}

func TestRunCmdExitCodes(t *testing.T) {
	dir := t.TempDir()
	cdir := filepath.Join(dir, "cache")
	failing := testenv.WriteFile(t, dir, "fail.hcl", `
stage "fail" "a" { message = "broken on purpose" }
stage "value" "b" { values = [1] }
`)
	invalid := testenv.WriteFile(t, dir, "bad.hcl", `stage "value" "a" { valuez = [1] }`)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"stage failed", []string{"run", failing, "--cache", cdir, "-j", "1"}, cli.ExitFailed, ": stage fail.a: broken on purpose"},
		{"keep going", []string{"run", failing, "--cache", cdir, "-j", "1", "--keep-going"}, cli.ExitFailed, "2 stages: 1 ran, 0 cached, 1 failed, 0 skipped"},
		{"invalid", []string{"run", invalid, "--cache", cdir}, cli.ExitInvalid, "valuez"},
		{"no file", []string{"run", "--cache", cdir}, cli.ExitUsage, "want one pipeline file"},
		{"bad -j", []string{"run", failing, "-j", "0"}, cli.ExitUsage, "-j 0"},
		{"unknown force", []string{"run", failing, "--cache", cdir, "--force", "value.zz"}, cli.ExitUsage, "value.zz"},
		{"exec-stage usage", []string{"exec-stage", "--cache", cdir}, cli.ExitUsage, "exactly one KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCmdDispatch(tt.args...)
			if code != tt.code || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d (want %d), stderr lacks %q:\n%s%s", code, tt.code, tt.want, out, errs)
			}
			// Every error is printed once.
			if strings.Count(out+errs, "broken on purpose") > 1 {
				t.Errorf("the stage's error is printed more than once:\n%s%s", out, errs)
			}
		})
	}
}

func TestRunCmdDeterministicDigests(t *testing.T) {
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "r.hcl", runCmdTestRandom)
	run := func(cdir string, extra ...string) map[string]string {
		args := append([]string{"run", file, "--cache", filepath.Join(dir, cdir), "-q"}, extra...)
		if code, out, errs := runCmdDispatch(args...); code != cli.ExitOK {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		return runCmdDigests(t, filepath.Join(dir, cdir))
	}
	a := run("a", "-j", "1")
	b := run("b", "-j", "4")
	c1 := run("c", "--no-cache", "-j", "3")
	c2 := run("c", "--no-cache", "-j", "2")
	if len(a) != 22 {
		t.Fatalf("%d artifacts, want 22", len(a))
	}
	for name, other := range map[string]map[string]string{"-j 4": b, "--no-cache": c1, "--no-cache again": c2} {
		if fmt.Sprint(other) != fmt.Sprint(a) {
			t.Errorf("%s: artifact digests differ from -j 1:\n%v\n%v", name, other, a)
		}
	}
}

func TestRunCmdExecStageTaskFile(t *testing.T) {
	dir := t.TempDir()
	cdir := filepath.Join(dir, "cache")
	file := testenv.WriteFile(t, dir, "p.hcl", `stage "random" "r" {
  n = 7
  seed = 5
}`)
	if code, out, errs := runCmdDispatch("run", file, "--cache", cdir, "-q"); code != cli.ExitOK {
		t.Fatalf("run: %d %s%s", code, out, errs)
	}
	before := runCmdDigests(t, cdir)
	var key string
	for k := range before {
		key, _, _ = strings.Cut(k, "/")
	}
	// Rebuild the key record by hand as an executor would ship it.
	spec := fmt.Sprintf(`{"record": {"Key": %q, "Address": "random.r", "StageType": "random", "Version": "2",
	  "Params": {"n": "7", "seed": "5", "dist": "\"normal\""}, "Inputs": {}}, "workers": 1}`, key)
	tf := testenv.WriteFile(t, dir, "task.json", spec)
	code, out, errs := runCmdDispatch("exec-stage", "--cache", cdir, "--task", tf)
	if code != cli.ExitOK || !strings.HasPrefix(out, "cached in ") {
		t.Fatalf("exec-stage of a stored key: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmdDispatch("exec-stage", "--cache", cdir, "--task", tf, "--force")
	if code != cli.ExitOK || !strings.HasPrefix(out, "ran in ") || !strings.Contains(out, before[key+"/out"]) {
		t.Fatalf("forced exec-stage: exit %d (want the same digest %s)\n%s%s", code, before[key+"/out"], out, errs)
	}
	bad := testenv.WriteFile(t, dir, "bad.json", strings.Replace(spec, `"7"`, `"8"`, 1))
	if code, _, errs := runCmdDispatch("exec-stage", "--cache", cdir, "--task", bad); code != cli.ExitFailed || !strings.Contains(errs, "key does not match") {
		t.Errorf("tampered task: exit %d %s", code, errs)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBinary()
	os.Exit(code)
}

func TestRunCmdTwoProcessesOneCache(t *testing.T) {
	bin := testenv.Binary(t)
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestPipeline)
	cdir := filepath.Join(dir, "cache")
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(bin, "run", file, "--cache", cdir, "-j", "3")
			b, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(b), err
		}()
	}
	wg.Wait()
	for i := range 2 {
		if errs[i] != nil {
			t.Fatalf("process %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	c, err := cache.Open(cdir)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := c.Runs(0)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 {
		t.Fatalf("%d runs recorded, want 2", len(runs))
	}
	ran, cached := 0, 0
	for _, r := range runs {
		ran += r.Ran
		cached += r.Cached
		if r.Status != "ok" {
			t.Errorf("run %d: status %s", r.ID, r.Status)
		}
	}
	if ran != 10 || cached != 10 {
		t.Errorf("two processes ran %d and reused %d stages, want every stage computed once (10) and reused once (10)\n%s\n%s", ran, cached, outs[0], outs[1])
	}
	runCmdVerify(t, cdir)
}

// runCmdInterrupt starts a run of long stages, sends sig once the quick
// source is stored, and returns the process's exit code.
func runCmdInterrupt(t *testing.T, bin, file, cdir string, sig syscall.Signal) (int, string) {
	t.Helper()
	var out testenv.SyncBuffer
	cmd := exec.Command(bin, "run", file, "--cache", cdir, "-j", "4", "-var", "ms=20000")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "ran      random.src") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the source never finished:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the run took %v to stop after %v", d, sig)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("after %v:\n%s", sig, out.String())
	return code, out.String()
}

func TestRunCmdInterruptAndKill(t *testing.T) {
	bin := testenv.Binary(t)
	for _, tt := range []struct {
		name string
		sig  syscall.Signal
		code int
	}{
		{"ctrl-c", syscall.SIGINT, cli.ExitCanceled},
		{"kill -9", syscall.SIGKILL, -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestPipeline)
			cdir := filepath.Join(dir, "cache")
			code, out := runCmdInterrupt(t, bin, file, cdir, tt.sig)
			if code != tt.code {
				t.Errorf("exit code %d after %v, want %d", code, tt.sig, tt.code)
			}
			// Ctrl-C: one line counts the stopped stages (-j 4: four
			// sleeps), none per stage.
			if tt.sig == syscall.SIGINT && (strings.Count(out, "canceled") != 1 ||
				!regexp.MustCompile(`(?m)^canceled after \S+: 4 stages stopped, 1 finished \(1 ran, 0 cached\), 5 not started; the next run resumes$`).MatchString(out)) {
				t.Errorf("output after Ctrl-C:\n%s", out)
			}
			runCmdVerify(t, cdir)
			// The long stages stored nothing; a rerun with short ones reuses
			// the source and completes.
			again, err := exec.Command(bin, "run", file, "--cache", cdir, "-j", "4", "-var", "ms=20").CombinedOutput()
			if err != nil {
				t.Fatalf("rerun: %v\n%s", err, again)
			}
			if !strings.Contains(string(again), "10 stages: 9 ran, 1 cached, 0 failed, 0 skipped") {
				t.Errorf("rerun output:\n%s", again)
			}
			runCmdVerify(t, cdir)
		})
	}
}

// TestRunCachedInOneProcess: a run with stages to compute goes to the
// supervised child; a fully cached one (and one whose only stored stage is
// forced back) is decided by the plan in this process, which then runs it
// here only when nothing needs computing — the same output either way.
func TestRunCachedInOneProcess(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte(runCmdTestRandom), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	run := func(extra ...string) (children int, code int, stderr string) {
		var out, errb bytes.Buffer
		args := append([]string{"run", file, "--cache", cdir, "-q"}, extra...)
		code = runSupervised(args, &out, &errb, func(_ string, _ []string, _ io.Writer, inProcess func() int) int {
			children++
			return inProcess()
		})
		return children, code, errb.String()
	}
	for _, c := range []struct {
		name     string
		extra    []string
		children int
		summary  string
	}{
		{"cold", nil, 1, "21 ran, 0 cached"},
		{"cached", nil, 0, "nothing to do: all 21 stages cached"},
		{"forced", []string{"--force", "sum.all"}, 1, "1 ran, 20 cached"},
		{"cached again", nil, 0, "nothing to do: all 21 stages cached"},
		{"usage error", []string{"-j", "0"}, 0, "-j 0"},
	} {
		children, code, stderr := run(c.extra...)
		if children != c.children || !strings.Contains(stderr, c.summary) {
			t.Fatalf("%s: %d child processes (want %d), exit %d, stderr %q (want %q)", c.name, children, c.children, code, stderr, c.summary)
		}
		if wantCode := map[bool]int{true: 2, false: 0}[c.name == "usage error"]; code != wantCode {
			t.Fatalf("%s: exit %d, want %d; stderr %q", c.name, code, wantCode, stderr)
		}
	}
}
