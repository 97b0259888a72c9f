// Command hylaflow runs HyLa experiments described as HCL pipelines.
//
// Each subcommand lives in its own file (cmd_NAME.go) and registers itself
// in init with app.Register; the framework (dispatch, flags, errors and
// exit statuses, completion) is package internal/cli.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/hugeheap"
	"github.com/hylaflow/hylaflow/runner/supervise"
)

// app is the table of hylaflow's commands.
var app = &cli.App{
	Name:  "hylaflow",
	Intro: "hylaflow runs HyLa experiments described as HCL pipelines, caching every stage.",
	Footer: `
hylaflow help COMMAND (or hylaflow COMMAND --help) describes a command;
hylaflow --version prints the build.

Exit status (every command): 0 ok, 1 a stage or the command's work failed,
2 usage error or unknown name, 3 invalid pipeline, 130 canceled.
`,
	IsUsage: isUsageError,
}

// hugeHeapCommands load (and plan) pipelines first thing: their processes
// start with a heap region backed by huge pages (internal/hugeheap), where
// the page faults of a fresh heap were a quarter of a cached run.
var hugeHeapCommands = map[string]bool{"run": true, "plan": true, "validate": true, "graph": true, "report": true}

func main() {
	if len(os.Args) > 1 && hugeHeapCommands[os.Args[1]] {
		hugeheap.Reserve(64 << 20)
	}
	if supervise.Wanted("run", os.Args[1:]) {
		// run: in a child process, so running out of memory is reported,
		// unless it has nothing to compute.
		os.Exit(runSupervised(os.Args[1:], os.Stdout, os.Stderr, supervise.Run))
	}
	os.Exit(profiled(func() int { return app.Dispatch(os.Args[1:], os.Stdout, os.Stderr) }))
}

// runSupervised runs `run` (args) here as far as its plan (runProbing,
// cmd_run.go): a run with nothing to compute finishes in this process; one
// with stages to run is handed to child (supervise.Run: this binary again,
// in a child process it watches for running out of memory).
func runSupervised(args []string, stdout, stderr io.Writer, child func(name string, args []string, stderr io.Writer, inProcess func() int) int) int {
	runProbing, runHandOff = true, false
	code := profiled(func() int { return app.Dispatch(args, stdout, stderr) })
	runProbing = false
	if !runHandOff {
		return code
	}
	return child("hylaflow run", args, stderr, func() int { return app.Dispatch(args, stdout, stderr) })
}

// profiled runs f, writing a CPU profile of it to $HYLAFLOW_CPUPROFILE when
// that is set (for pprof on any command: hylaflow run, plan, report …).
func profiled(f func() int) int {
	path := os.Getenv("HYLAFLOW_CPUPROFILE")
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hylaflow: HYLAFLOW_CPUPROFILE: %v\n", err)
		return f()
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintf(os.Stderr, "hylaflow: HYLAFLOW_CPUPROFILE: %v\n", err)
		return f()
	}
	defer pprof.StopCPUProfile()
	return f()
}
