package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// superviseHog: four stages that each allocate 128 MiB (16 Mi float64s) at
// once, far beyond an address-space limit of 1.5 GB for the process.
const superviseHog = `
stage "random" "v" {
  for_each = { a = 1, b = 2, c = 3, d = 4 }
  n        = 16777216
  seed     = each.value
}
`

// Issue 19 item 6: a run that runs out of memory ends with a message that
// says so — the stages that were running, the budget, the peak, what to do
// — and exit status 137, whether the Go runtime failed to allocate (here
// under an address-space limit, RLIMIT_AS, on the process) or the process
// was killed by SIGKILL as the kernel's OOM killer does.
func TestRunOutOfMemoryIsReported(t *testing.T) {
	bin := runCmdBuild(t)
	t.Run("allocation fails", func(t *testing.T) {
		dir := t.TempDir()
		file := runCmdWrite(t, dir, "hog.hcl", superviseHog)
		cmd := exec.Command("sh", "-c", `ulimit -v 1500000 && exec "$0" run -j 4 --mem 6G --cache "$1" "$2"`, bin, filepath.Join(dir, "cache"), file)
		out, err := cmd.CombinedOutput()
		if code := exitCode(t, err); code != exitOutOfMemory {
			t.Fatalf("exit %d, want %d\n%s", code, exitOutOfMemory, out)
		}
		s := string(out)
		for _, want := range []string{
			"hylaflow run: out of memory: the run process could not get more memory from the system",
			`  random.v["a"]`,
			"Memory budget: 6.0 GiB; the process peaked at ",
			"To fit: give --mem what the machine (or container) really has to spare",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("output lacks %q:\n%s", want, tail(s))
			}
		}
		if !regexp.MustCompile(`Running then \([1-4]\):`).MatchString(s) {
			t.Errorf("no list of running stages:\n%s", tail(s))
		}
	})
	t.Run("killed by SIGKILL", func(t *testing.T) {
		dir := t.TempDir()
		file := runCmdWrite(t, dir, "p.hcl", runCmdTestPipeline)
		var out runCmdLockedBuffer
		cmd := exec.Command(bin, "run", file, "--cache", filepath.Join(dir, "cache"), "-j", "2", "--mem", "3G", "-var", "ms=20000")
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(out.String(), "start    sleep.s[\"1\"]") {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the sleeps never started:\n%s", out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // the state file follows the start line
		child := childOf(t, cmd.Process.Pid)
		if err := syscall.Kill(child, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if code := exitCode(t, err); code != exitOutOfMemory {
			t.Fatalf("exit %d, want %d\n%s", code, exitOutOfMemory, out.String())
		}
		s := out.String()
		for _, want := range []string{
			"hylaflow run: out of memory: the run process was killed by SIGKILL, most likely by the kernel's out-of-memory killer",
			// sleep has no estimator: it counts its input's size, rounded up.
			"Running then (2):\n  sleep.s[\"0\"]  (counted as 1 MiB)\n  sleep.s[\"1\"]  (counted as 1 MiB)\n",
			"Memory budget: 3.0 GiB; the process peaked at ",
		} {
			if !strings.Contains(s, want) {
				t.Errorf("output lacks %q:\n%s", want, tail(s))
			}
		}
	})
	t.Run("ordinary exit codes pass through", func(t *testing.T) {
		dir := t.TempDir()
		file := runCmdWrite(t, dir, "p.hcl", `stage "fail" "f" {}`)
		out, err := exec.Command(bin, "run", file, "--cache", filepath.Join(dir, "cache")).CombinedOutput()
		if code := exitCode(t, err); code != exitStageFailed || strings.Contains(string(out), "out of memory") {
			t.Errorf("a failing stage: exit %d, want %d\n%s", code, exitStageFailed, out)
		}
		out, err = exec.Command(bin, "run", filepath.Join(dir, "missing.hcl")).CombinedOutput()
		if code := exitCode(t, err); code == exitOK || code == exitOutOfMemory {
			t.Errorf("a missing file: exit %d\n%s", code, out)
		}
	})
}

// Issue 19 item 6: the supervisor recognises the runtime's allocation
// failure in its crash output (which lacks the "fatal error" line) and
// nothing else.
func TestOutOfMemoryCrashOutput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		crash string
		oom   bool
	}{
		{"large allocation", "\ngoroutine 33 [running]:\nruntime.throw({0xcf9862?, 0x90f2dd?})\n\t/go/src/runtime/panic.go:1229 +0x48\nruntime.(*mcache).allocLarge(0x1, 0x8000000, 0x1)\n\t/go/src/runtime/mcache.go:259\n", true},
		{"heap growth", "goroutine 1 [running]:\nruntime.throw({0x1, 0x2})\n\tpanic.go:1\nruntime.sysMap(0x1)\n\tmem.go:2\n", true},
		{"message", "fatal error: runtime: out of memory\n", true},
		{"concurrent map writes", "goroutine 1 [running]:\nruntime.throw({0x1, 0x2})\n\tpanic.go:1\nruntime.mapassign_faststr(0x1)\n\tmap.go:2\n", false},
		{"a panic", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", false},
		{"nothing", "", false},
	} {
		if got := outOfMemory([]byte(tc.crash)); got != tc.oom {
			t.Errorf("%s: outOfMemory = %v, want %v", tc.name, got, tc.oom)
		}
	}
}

// childOf returns the pid of pid's one child process.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
	if err != nil {
		t.Skipf("cannot list child processes: %v", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 1 {
		// The children file lists the main thread's children; a child
		// started from another thread is found by its parent pid.
		f = nil
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
			if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
				f = append(f, e.Name())
			}
		}
	}
	if len(f) != 1 {
		t.Fatalf("process %d has children %v, want one", pid, f)
	}
	child, _ := strconv.Atoi(f[0])
	return child
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}

// tail returns the last lines of s (after a goroutine dump, the message).
func tail(s string) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}
