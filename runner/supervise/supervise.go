// Package supervise reports a run that ran out of memory as such.
//
// A Go program that cannot get memory dies in the runtime ("fatal error:
// runtime: out of memory", a goroutine dump, exit 2), and one the kernel's
// OOM killer or a cgroup limit kills gets SIGKILL and says nothing;
// neither can be caught by the process itself. So `hylaflow run` runs the
// pipeline in a child process (the same binary and arguments, marked by
// Env) and watches it: the child (Child, NewObserver) keeps a small file
// of the stages it is running and the budget, and copies its runtime's
// crash output to a file; when it dies of either cause, the parent (Run)
// says so — which stages were running, the budget, the peak memory — and
// what to do, and exits with ExitOutOfMemory. The child inherits stdin,
// stdout and stderr (the live progress block and the tables stream as
// before) and runs in its own process group; the parent forwards SIGINT,
// SIGTERM, SIGHUP and SIGQUIT to it, so one Ctrl-C is one cancellation.
package supervise

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

const (
	// Env marks the supervised child; its value is the directory of its
	// state and crash files.
	Env = "HYLAFLOW_SUPERVISED"
	// NoEnv, set to anything, runs `run` in one process (no out-of-memory
	// report).
	NoEnv = "HYLAFLOW_NO_SUPERVISOR"
	// ExitOutOfMemory is the exit status of a run that ran out of memory
	// (the Go runtime could not allocate, or it was killed by SIGKILL, as
	// the kernel's out-of-memory killer does); 137 = 128 + SIGKILL, as
	// shells report it.
	ExitOutOfMemory = 137
	// exitFailed is the status when the child cannot be started.
	exitFailed = 1

	stateFile = "running.json"
	crashFile = "crash.txt"
)

// Wanted reports whether the command line args (after the program name)
// is one to run in a supervised child: command cmd, not its --help, not
// already a child, and not switched off by NoEnv.
func Wanted(cmd string, args []string) bool {
	if len(args) == 0 || args[0] != cmd || os.Getenv(Env) != "" || os.Getenv(NoEnv) != "" {
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

// Run runs args in a child process of this binary, forwarding signals,
// and returns its exit code, or ExitOutOfMemory after reporting on stderr
// (as command name, e.g. "hylaflow run") when it ran out of memory. When
// no child can be prepared it returns inProcess(), the command run here.
func Run(name string, args []string, stderr io.Writer, inProcess func() int) int {
	exe, err := os.Executable()
	dir, derr := os.MkdirTemp("", "hylaflow-run-")
	if err != nil || derr != nil {
		return inProcess()
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), Env+"="+dir)
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
		fmt.Fprintf(stderr, "%s: start the run process: %v\n", name, err)
		return exitFailed
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
		fmt.Fprintf(stderr, "%s: %v\n", name, werr)
		return exitFailed
	}
	var peakKB int64
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		peakKB = ru.Maxrss
	}
	ws, _ := st.Sys().(syscall.WaitStatus)
	crash, _ := os.ReadFile(filepath.Join(dir, crashFile))
	oom := OutOfMemory(crash)
	killed := ws.Signaled() && ws.Signal() == syscall.SIGKILL
	switch {
	case oom || killed:
		state := readState(filepath.Join(dir, stateFile))
		WriteReport(stderr, name, killed && !oom, state, peakKB)
		return ExitOutOfMemory
	case ws.Signaled():
		fmt.Fprintf(stderr, "%s: the run process was ended by %v\n", name, ws.Signal())
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// OutOfMemory reports whether crash, the Go runtime's crash output, is an
// allocation failure. The runtime prints "fatal error: out of memory" on
// stderr but not to the crash output, which holds the goroutines: there,
// the fatal goroutine's runtime.throw is called from the allocator.
func OutOfMemory(crash []byte) bool {
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

// State is what the child keeps in its state file.
type State struct {
	BudgetMB int64            `json:"budget_mb"` // < 0: none
	Running  map[string]int64 `json:"running"`   // address → MiB counted
}

func readState(path string) State {
	var st State
	if b, err := os.ReadFile(path); err == nil {
		json.Unmarshal(b, &st) // a torn file leaves what was read
	}
	return st
}

// WriteReport explains the child's death to the user of command name:
// signaled (SIGKILL, cause inferred) or the runtime's allocation failure,
// the stages running then, the budget, the peak RSS (KiB, 0: unknown) and
// what to do.
func WriteReport(w io.Writer, name string, signaled bool, st State, peakKB int64) {
	if signaled {
		fmt.Fprintf(w, "%s: out of memory: the run process was killed by SIGKILL, most likely by the kernel's out-of-memory killer or a memory limit of its cgroup or container.\n", name)
	} else {
		fmt.Fprintf(w, "%s: out of memory: the run process could not get more memory from the system and stopped (Go: fatal error: runtime: out of memory).\n", name)
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

// Child sets up the supervised side: the runtime's crash output goes to
// the crash file too. It returns the state directory, or "" when this
// process is not supervised.
func Child() string {
	dir := os.Getenv(Env)
	if dir == "" {
		return ""
	}
	if f, err := os.Create(filepath.Join(dir, crashFile)); err == nil {
		debug.SetCrashOutput(f, debug.CrashOptions{})
		f.Close() // SetCrashOutput keeps its own descriptor
	}
	return dir
}

// observer keeps the supervised child's state file: the running stages
// with their memory, rewritten at every start and end.
type observer struct {
	next runner.Observer
	path string
	mu   sync.Mutex
	st   State
}

// NewObserver returns an observer that passes every event to next and
// keeps the state file in dir (Child's directory) for the parent's report.
func NewObserver(next runner.Observer, dir string, budgetMB int64) runner.Observer {
	o := &observer{next: next, path: filepath.Join(dir, stateFile),
		st: State{BudgetMB: budgetMB, Running: map[string]int64{}}}
	o.write()
	return o
}

// Event implements runner.Observer. The state file is written before the
// event is passed on, so a stage whose start line is on the terminal is
// already in the file when the process is killed.
func (o *observer) Event(e runner.Event) {
	if e.Kind == runner.EventStart || e.Kind == runner.EventDone {
		o.mu.Lock()
		if e.Kind == runner.EventStart {
			o.st.Running[e.Address] = e.MemMB
		} else {
			delete(o.st.Running, e.Address)
		}
		o.write()
		o.mu.Unlock()
	}
	o.next.Event(e)
}

// write replaces the state file (rename: the parent never reads half).
func (o *observer) write() {
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
