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

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner/supervise"
)

// command is one subcommand.
type command struct {
	Name    string
	Summary string // one line for `hylaflow --help`
	Hidden  bool   // internal commands (exec-stage) are not listed
	// Run executes the command with the arguments after its name; dispatch
	// reports the error it returns and exits with exitCodeOf's code.
	Run func(args []string, stdout, stderr io.Writer) error
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
	if supervise.Wanted("run", os.Args[1:]) {
		// run: in a child process, so running out of memory is reported.
		os.Exit(supervise.Run("hylaflow run", os.Args[1:], os.Stderr, func() int {
			return dispatch(os.Args[1:], os.Stdout, os.Stderr)
		}))
	}
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
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help":
		usage(stdout)
		return exitOK
	case "help":
		// hylaflow help CMD [SUB] = hylaflow CMD [SUB] --help
		if len(args) == 1 {
			usage(stdout)
			return exitOK
		}
		if _, ok := commands[args[1]]; !ok {
			return unknownCommand(args[1], stderr)
		}
		return dispatch(append(append([]string{}, args[1:]...), "--help"), stdout, stderr)
	case "--version", "-version":
		args = append([]string{"version"}, args[1:]...)
	}
	c, ok := commands[args[0]]
	if !ok {
		return unknownCommand(args[0], stderr)
	}
	err := c.Run(args[1:], stdout, stderr)
	reportError(stderr, c.Name, err)
	return exitCodeOf(err)
}

// unknownCommand reports a command name that is not registered, with the
// closest one as a suggestion.
func unknownCommand(name string, stderr io.Writer) int {
	msg := fmt.Sprintf("hylaflow: unknown command %q", name)
	if strings.HasPrefix(name, "-") {
		msg = fmt.Sprintf("hylaflow: unknown flag %s (flags go after the command: hylaflow COMMAND [flags])", name)
	} else if s := registry.DidYouMean(name, commandNames()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	fmt.Fprintf(stderr, "%s\n(see hylaflow --help)\n", msg)
	return exitUsage
}

// commandNames returns the names of the listed (not hidden) commands, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.Hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "hylaflow runs HyLa experiments described as HCL pipelines, caching every stage.")
	fmt.Fprintln(w, "\nUsage: hylaflow COMMAND [flags] [args]")
	fmt.Fprintln(w, "\nCommands:")
	names := commandNames()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %s%s  %s\n", n, strings.Repeat(" ", width-len(n)), commands[n].Summary)
	}
	fmt.Fprint(w, `
hylaflow help COMMAND (or hylaflow COMMAND --help) describes a command;
hylaflow --version prints the build.

Exit status (every command): 0 ok, 1 a stage or the command's work failed,
2 usage error or unknown name, 3 invalid pipeline, 130 canceled.
`)
}
