package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/hylaflow/hylaflow/runner"
)

// Out of memory, reported as such. A Go program that cannot get memory
// dies in the runtime ("fatal error: runtime: out of memory", a goroutine
// dump, exit 2), and one the kernel's OOM killer or a cgroup limit kills
// gets SIGKILL and says nothing; neither can be caught by the process
// itself. So `hylaflow run` runs the pipeline in a child process (the same
// binary and arguments, marked by superviseEnv) and watches it: the child
// keeps a small file of the stages it is running and the budget, and
// copies its runtime's crash output to a file; when it dies of either
// cause, the parent says so — which stages were running, the budget, the
// peak memory — and what to do, and exits with exitOutOfMemory. The child
// inherits stdin, stdout and stderr (the live progress block and the
// tables stream as before) and runs in its own process group; the parent
// forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to it, so one Ctrl-C is one
// cancellation.

const (
	// superviseEnv marks the supervised child; its value is the directory
	// of its state and crash files.
	superviseEnv = "HYLAFLOW_SUPERVISED"
	// noSuperviseEnv, set to anything, runs `run` in one process (no
	// out-of-memory report).
	noSuperviseEnv     = "HYLAFLOW_NO_SUPERVISOR"
	superviseStateFile = "running.json"
	superviseCrashFile = "crash.txt"
)

// superviseCommand reports whether the command line args is one the
// supervisor runs in a child: a run, not its --help, not already a child.
func superviseCommand(args []string) bool {
	if len(args) == 0 || args[0] != "run" || os.Getenv(superviseEnv) != "" || os.Getenv(noSuperviseEnv) != "" {
		return false
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" {
			return false
		}
	}
	return true
}

// supervise runs args in a child process of this binary, forwarding
// signals, and returns its exit code, or exitOutOfMemory after reporting on
// stderr when it ran out of memory.
func supervise(args []string, stderr io.Writer) int {
	exe, err := os.Executable()
	dir, derr := os.MkdirTemp("", "hylaflow-run-")
	if err != nil || derr != nil {
		// Cannot supervise: run here, as before.
		return dispatch(args, os.Stdout, os.Stderr)
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), superviseEnv+"="+dir)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// Its own process group: a Ctrl-C at the terminal reaches the parent
	// only, which forwards it once. Pdeathsig: a parent killed outright
	// takes the child with it (it is tied to the starting thread, locked
	// until the child is reaped).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "hylaflow run: start the run process: %v\n", err)
		return exitStageFailed
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case sig := <-sigs:
				cmd.Process.Signal(sig)
			case <-done:
				return
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	wg.Wait()
	st := cmd.ProcessState
	if st == nil {
		fmt.Fprintf(stderr, "hylaflow run: %v\n", werr)
		return exitStageFailed
	}
	var peakKB int64
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		peakKB = ru.Maxrss
	}
	ws, _ := st.Sys().(syscall.WaitStatus)
	crash, _ := os.ReadFile(filepath.Join(dir, superviseCrashFile))
	oom := outOfMemory(crash)
	killed := ws.Signaled() && ws.Signal() == syscall.SIGKILL
	switch {
	case oom || killed:
		state := readSuperviseState(filepath.Join(dir, superviseStateFile))
		writeOutOfMemory(stderr, killed && !oom, state, peakKB)
		return exitOutOfMemory
	case ws.Signaled():
		fmt.Fprintf(stderr, "hylaflow run: the run process was ended by %v\n", ws.Signal())
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// outOfMemory reports whether crash, the Go runtime's crash output, is an
// allocation failure. The runtime prints "fatal error: out of memory" on
// stderr but not to the crash output, which holds the goroutines: there,
// the fatal goroutine's runtime.throw is called from the allocator.
func outOfMemory(crash []byte) bool {
	s := string(crash)
	if strings.Contains(s, "out of memory") {
		return true
	}
	_, after, ok := strings.Cut(s, "runtime.throw(")
	if !ok {
		return false
	}
	// The frame after throw's two lines (call, file) is its caller.
	lines := strings.SplitN(after, "\n", 4)
	if len(lines) < 3 {
		return false
	}
	caller := strings.TrimSpace(lines[2])
	for _, f := range []string{"runtime.(*mcache).", "runtime.(*mheap).", "runtime.(*mcentral).", "runtime.sysMap", "runtime.sysAlloc",
		"runtime.persistentalloc", "runtime.(*fixalloc).", "runtime.(*pageAlloc).", "runtime.mallocgc", "runtime.largeAlloc", "runtime.newosproc"} {
		if strings.HasPrefix(caller, f) {
			return true
		}
	}
	return false
}

// superviseState is what the child keeps in its state file.
type superviseState struct {
	BudgetMB int64            `json:"budget_mb"` // < 0: none
	Running  map[string]int64 `json:"running"`   // address → MiB counted
}

func readSuperviseState(path string) superviseState {
	var st superviseState
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &st) // a torn file leaves what was read
	}
	return st
}

// writeOutOfMemory explains the child's death: signaled (SIGKILL, cause
// inferred) or the runtime's allocation failure.
func writeOutOfMemory(w io.Writer, signaled bool, st superviseState, peakKB int64) {
	if signaled {
		fmt.Fprintln(w, "hylaflow run: out of memory: the run process was killed by SIGKILL, most likely by the kernel's out-of-memory killer or a memory limit of its cgroup or container.")
	} else {
		fmt.Fprintln(w, "hylaflow run: out of memory: the run process could not get more memory from the system and stopped (Go: fatal error: runtime: out of memory).")
	}
	if len(st.Running) == 0 {
		fmt.Fprintln(w, "No stage was running (it died loading, planning or storing).")
	} else {
		addrs := make([]string, 0, len(st.Running))
		for a := range st.Running {
			addrs = append(addrs, a)
		}
		sort.Strings(addrs)
		fmt.Fprintf(w, "Running then (%d):\n", len(addrs))
		for _, a := range addrs {
			if mb := st.Running[a]; mb > 0 {
				fmt.Fprintf(w, "  %s  (counted as %s)\n", a, showMiB(mb))
			} else {
				fmt.Fprintf(w, "  %s\n", a)
			}
		}
	}
	budget := "none (--mem 0)"
	if st.BudgetMB > 0 {
		budget = showMiB(st.BudgetMB)
	}
	peak := "unknown"
	if peakKB > 0 {
		peak = showMiB((peakKB + 1023) / 1024)
	}
	fmt.Fprintf(w, "Memory budget: %s; the process peaked at %s.\n", budget, peak)
	fmt.Fprintln(w, "The stages that finished are stored; nothing half-written is, and the next run resumes.")
	fmt.Fprintln(w, "To fit: give --mem what the machine (or container) really has to spare, e.g. --mem 6G, so big stages run one at a time; or run with -j 1.")
}

// showMiB formats MiB as "812 MiB" or "5.3 GiB".
func showMiB(mb int64) string {
	if mb < 1024 {
		return fmt.Sprintf("%d MiB", mb)
	}
	return fmt.Sprintf("%.1f GiB", float64(mb)/1024)
}

// superviseChild sets up the supervised side: the runtime's crash output
// goes to the crash file too. It returns the state directory, or "" when
// this process is not supervised.
func superviseChild() string {
	dir := os.Getenv(superviseEnv)
	if dir == "" {
		return ""
	}
	if f, err := os.Create(filepath.Join(dir, superviseCrashFile)); err == nil {
		debug.SetCrashOutput(f, debug.CrashOptions{})
		f.Close() // SetCrashOutput keeps its own descriptor
	}
	return dir
}

// stateObserver keeps the supervised child's state file: the running
// stages with their memory, rewritten at every start and end.
type stateObserver struct {
	next runner.Observer
	path string
	mu   sync.Mutex
	st   superviseState
}

func newStateObserver(next runner.Observer, dir string, budgetMB int64) runner.Observer {
	o := &stateObserver{next: next, path: filepath.Join(dir, superviseStateFile),
		st: superviseState{BudgetMB: budgetMB, Running: map[string]int64{}}}
	o.write()
	return o
}

func (o *stateObserver) Event(e runner.Event) {
	o.next.Event(e)
	switch e.Kind {
	case runner.EventStart, runner.EventDone:
	default:
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if e.Kind == runner.EventStart {
		o.st.Running[e.Address] = e.MemMB
	} else {
		delete(o.st.Running, e.Address)
	}
	o.write()
}

// write replaces the state file (rename: the parent never reads half).
func (o *stateObserver) write() {
	b, err := json.Marshal(o.st)
	if err != nil {
		return
	}
	tmp := o.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return
	}
	if err := os.Rename(tmp, o.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		os.Remove(tmp)
	}
}
