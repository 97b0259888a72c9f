package supervise_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/supervise"
)

// hog: four stages that each allocate 128 MiB (16 Mi float64s) at once,
// far beyond an address-space limit of 1 GB for the process.
const hog = `
stage "random" "v" {
  for_each = { a = 1, b = 2, c = 3, d = 4 }
  n        = 16777216
  seed     = each.value
}
`

// sleeps: eight stages that sleep -var ms milliseconds after a source.
const sleeps = `
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

func TestMain(m *testing.M) {
	code := m.Run()
	testenv.RemoveBinary()
	os.Exit(code)
}

// Issue 19 item 6: a run that runs out of memory ends with a message that
// says so — the stages that were running, the budget, the peak, what to do
// — and exit status 137, whether the Go runtime failed to allocate (here
// under an address-space limit, RLIMIT_AS, on the process) or the process
// was killed by SIGKILL as the kernel's OOM killer does.
func TestRunOutOfMemoryIsReported(t *testing.T) {
	bin := testenv.Binary(t)
	t.Run("allocation fails", func(t *testing.T) {
		dir := t.TempDir()
		file := testenv.WriteFile(t, dir, "hog.hcl", hog)
		cmd := exec.Command("sh", "-c", `ulimit -s 2048 && ulimit -v 1000000 && exec "$0" run -j 4 --mem 6G --cache "$1" "$2"`, bin, filepath.Join(dir, "cache"), file)
		// The limit binds the supervising parent too, whose address space
		// is mostly reservations: the Go runtime's, glibc's malloc arenas
		// (64 MiB for each thread that has called C — cgo, SQLite — up
		// to MALLOC_ARENA_MAX) and each thread's stack, sized from the
		// stack limit (8 MiB by default, 2 MiB here). When the space left
		// before a 128 MiB allocation is under a thread stack, the
		// runtime fails to start a thread (pthread_create: exit 2)
		// instead of failing the allocation; how much is left moves by
		// 64 MiB with each arena, so with two arenas it depended on
		// scheduling (3 of 30 runs, then 2 of 10 once the binary shrank).
		// One arena, and a limit in the middle of the band where the
		// hog's allocations fail (for this binary 0.80–1.15 GB and
		// 1.35–1.7 GB gave exit 137, 1.2–1.3 GB exit 2: the band repeats
		// every 512 MiB, the four allocations): 0 of 30 runs idle, 0 of
		// 40 two at a time failed so.
		cmd.Env = append(os.Environ(), "MALLOC_ARENA_MAX=1")
		out, err := cmd.CombinedOutput()
		if code := exitCode(t, err); code != supervise.ExitOutOfMemory {
			t.Fatalf("exit %d, want %d\n%s", code, supervise.ExitOutOfMemory, out)
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
		file := testenv.WriteFile(t, dir, "p.hcl", sleeps)
		var out testenv.SyncBuffer
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
		child := childOf(t, cmd.Process.Pid)
		if err := syscall.Kill(child, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if code := exitCode(t, err); code != supervise.ExitOutOfMemory {
			t.Fatalf("exit %d, want %d\n%s", code, supervise.ExitOutOfMemory, out.String())
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
		file := testenv.WriteFile(t, dir, "p.hcl", `stage "fail" "f" {}`)
		out, err := exec.Command(bin, "run", file, "--cache", filepath.Join(dir, "cache")).CombinedOutput()
		if code := exitCode(t, err); code != 1 || strings.Contains(string(out), "out of memory") {
			t.Errorf("a failing stage: exit %d, want 1\n%s", code, out)
		}
		out, err = exec.Command(bin, "run", filepath.Join(dir, "missing.hcl")).CombinedOutput()
		if code := exitCode(t, err); code == 0 || code == supervise.ExitOutOfMemory {
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
		if got := supervise.OutOfMemory([]byte(tc.crash)); got != tc.oom {
			t.Errorf("%s: OutOfMemory = %v, want %v", tc.name, got, tc.oom)
		}
	}
}

// Wanted supervises run only: not its --help, not inside a child, not
// when switched off; "--" ends the flags it looks at.
func TestWanted(t *testing.T) {
	for _, tt := range []struct {
		args []string
		env  string
		want bool
	}{
		{[]string{"run", "p.hcl"}, "", true},
		{[]string{"run", "--", "--help"}, "", true},
		{[]string{"run", "p.hcl", "--help"}, "", false},
		{[]string{"run", "-h"}, "", false},
		{[]string{"plan", "p.hcl"}, "", false},
		{nil, "", false},
		{[]string{"run", "p.hcl"}, supervise.Env, false},
		{[]string{"run", "p.hcl"}, supervise.NoEnv, false},
	} {
		t.Setenv(supervise.Env, "")
		t.Setenv(supervise.NoEnv, "")
		if tt.env != "" {
			t.Setenv(tt.env, "x")
		}
		if got := supervise.Wanted("run", tt.args); got != tt.want {
			t.Errorf("Wanted(run, %q) with %s set = %v, want %v", tt.args, tt.env, got, tt.want)
		}
	}
}

// The report names the cause, the running stages in address order with
// what the budget counted, the budget and the peak.
func TestWriteReport(t *testing.T) {
	var b bytes.Buffer
	supervise.WriteReport(&b, "hylaflow run", true, supervise.State{BudgetMB: 3 << 10,
		Running: map[string]int64{`b.x["2"]`: 700, "a.y": 0, "c": 5000}}, 2100*1024)
	want := `hylaflow run: out of memory: the run process was killed by SIGKILL, most likely by the kernel's out-of-memory killer or a memory limit of its cgroup or container.
Running then (3):
  a.y
  b.x["2"]  (counted as 700 MiB)
  c  (counted as 4.9 GiB)
Memory budget: 3.0 GiB; the process peaked at 2.1 GiB.
The stages that finished are stored; nothing half-written is, and the next run resumes.
To fit: give --mem what the machine (or container) really has to spare, e.g. --mem 6G, so big stages run one at a time; or run with -j 1.
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	supervise.WriteReport(&b, "x", false, supervise.State{BudgetMB: -1}, 0)
	for _, line := range []string{"x: out of memory: the run process could not get more memory",
		"No stage was running", "Memory budget: none (--mem 0); the process peaked at unknown."} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("lacks %q:\n%s", line, b.String())
		}
	}
}

// The observer passes every event on and keeps the running stages with
// their memory in the state file.
func TestObserverKeepsState(t *testing.T) {
	dir := t.TempDir()
	var seen []runner.EventKind
	o := supervise.NewObserver(observerFunc(func(e runner.Event) { seen = append(seen, e.Kind) }), dir, 512)
	read := func() supervise.State {
		var st supervise.State
		b, err := os.ReadFile(filepath.Join(dir, "running.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := read(); st.BudgetMB != 512 || len(st.Running) != 0 {
		t.Errorf("initial state %+v", st)
	}
	o.Event(runner.Event{Kind: runner.EventStart, Address: "a", MemMB: 10})
	o.Event(runner.Event{Kind: runner.EventStart, Address: "b", MemMB: 20})
	o.Event(runner.Event{Kind: runner.EventProgress, Address: "a"})
	o.Event(runner.Event{Kind: runner.EventDone, Address: "a"})
	if st := read(); len(st.Running) != 1 || st.Running["b"] != 20 {
		t.Errorf("state after a ended: %+v", st)
	}
	if len(seen) != 4 {
		t.Errorf("next saw %d events, want 4", len(seen))
	}
}

type observerFunc func(runner.Event)

func (f observerFunc) Event(e runner.Event) { f(e) }

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
