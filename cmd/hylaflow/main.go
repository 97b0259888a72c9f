// Command hylaflow runs HyLa experiments described as HCL pipelines.
//
// Each subcommand lives in its own file (cmd_NAME.go) and registers itself
// in init with app.Register; the framework (dispatch, flags, errors and
// exit statuses, completion) is package internal/cli.
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/hylaflow/hylaflow/internal/cli"
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

func main() {
	if supervise.Wanted("run", os.Args[1:]) {
		// run: in a child process, so running out of memory is reported.
		os.Exit(supervise.Run("hylaflow run", os.Args[1:], os.Stderr, func() int {
			return app.Dispatch(os.Args[1:], os.Stdout, os.Stderr)
		}))
	}
	os.Exit(profiled(func() int { return app.Dispatch(os.Args[1:], os.Stdout, os.Stderr) }))
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
