// Command hylaflow runs HyLa experiments described as HCL pipelines.
//
// Each subcommand lives in its own file (cmd_NAME.go) and registers itself
// in init with registerCommand; this file only dispatches.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"sort"
	"strings"
)

// Exit codes shared by every subcommand.
const (
	exitOK          = 0
	exitStageFailed = 1 // a stage (or the command's own work) failed
	exitUsage       = 2 // bad flags or arguments
	exitInvalid     = 3 // the pipeline file is invalid
	exitCanceled    = 130
)

// command is one subcommand.
type command struct {
	Name    string
	Summary string // one line for `hylaflow --help`
	Hidden  bool   // internal commands (exec-stage) are not listed
	// Run executes the command with the arguments after its name and returns the exit code.
	Run func(args []string, stdout, stderr io.Writer) int
}

var commands = map[string]*command{}

// registerCommand adds c to the dispatcher; called from init functions.
func registerCommand(c *command) {
	if _, dup := commands[c.Name]; dup {
		panic("hylaflow: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

func main() {
	os.Exit(profiled(func() int { return dispatch(os.Args[1:], os.Stdout, os.Stderr) }))
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

func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "hylaflow: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return c.Run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "hylaflow runs HyLa experiments described as HCL pipelines, caching every stage.")
	fmt.Fprintln(w, "\nUsage: hylaflow COMMAND [flags] [args]  (hylaflow COMMAND --help for details)")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.Hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %s%s  %s\n", n, strings.Repeat(" ", width-len(n)), commands[n].Summary)
	}
}
