// Package cli is the command framework of hylaflow: a table of commands
// (App, Command) and the dispatch from a command line to one of them; the
// flag helpers every command parses with (FlagSet, Parse), so that flags,
// --help and flag errors behave the same everywhere; the error kinds a
// command returns and the one table from them to exit statuses
// (ExitCode); and shell completion generated from the command table and
// the commands' own flag sets (Complete), so a new command, subcommand or
// flag is completed without anyone listing it.
//
// It knows nothing of pipelines or caches: cmd/hylaflow fills the table.
package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/registry"
)

// Command is one subcommand of an App.
type Command struct {
	Name    string
	Summary string // one line for `PROG --help`
	Hidden  bool   // internal commands (exec-stage) are not listed
	// Subcommands are the words the command takes first (cache ls, runs
	// show), in the order completion offers them. A command whose first
	// word is optional (runs: list is the default) lists it all the same.
	Subcommands []string
	// Complete, when set, returns the candidates for a positional argument
	// (flag == "") or for the value of flag (its name: "dataset") of
	// subcommand sub ("" if none); nil lets the shell complete file names.
	Complete func(sub, flag, prefix string) []string
	// Run executes the command with the arguments after its name; Dispatch
	// reports the error it returns and exits with ExitCode's status.
	Run func(args []string, stdout, stderr io.Writer) error
}

// App is a program's table of commands.
type App struct {
	Name   string // the program ("hylaflow"), the prefix of its messages
	Intro  string // the first line of the top-level usage
	Footer string // the top-level usage's last paragraphs
	// IsUsage reports errors of the program's libraries that mean a bad
	// argument or a name that names nothing (exit 2); see ExitCode.
	IsUsage  func(error) bool
	commands map[string]*Command
}

// Register adds c to the table; called from init functions. A name
// registered twice is a programming error: it panics.
func (a *App) Register(c *Command) {
	if a.commands == nil {
		a.commands = map[string]*Command{}
	}
	if _, dup := a.commands[c.Name]; dup {
		panic(a.Name + ": command registered twice: " + c.Name)
	}
	a.commands[c.Name] = c
}

// Lookup returns the command called name, hidden ones included.
func (a *App) Lookup(name string) (*Command, bool) {
	c, ok := a.commands[name]
	return c, ok
}

// Names returns the names of the listed (not hidden) commands, sorted.
func (a *App) Names() []string {
	names := make([]string, 0, len(a.commands))
	for n, c := range a.commands {
		if !c.Hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// All returns every command, hidden ones included, by name.
func (a *App) All() []*Command {
	names := make([]string, 0, len(a.commands))
	for n := range a.commands {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*Command, len(names))
	for i, n := range names {
		out[i] = a.commands[n]
	}
	return out
}

// Dispatch runs the command args names with the rest of args and returns
// the exit status: PROG --help and PROG help print the usage, PROG help
// CMD [SUB] is PROG CMD [SUB] --help, --version is the version command.
func (a *App) Dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		a.Usage(stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "--help":
		a.Usage(stdout)
		return ExitOK
	case "help":
		if len(args) == 1 {
			a.Usage(stdout)
			return ExitOK
		}
		if _, ok := a.commands[args[1]]; !ok {
			return a.unknownCommand(args[1], stderr)
		}
		return a.Dispatch(append(append([]string{}, args[1:]...), "--help"), stdout, stderr)
	case "--version", "-version":
		args = append([]string{"version"}, args[1:]...)
	}
	c, ok := a.commands[args[0]]
	if !ok {
		return a.unknownCommand(args[0], stderr)
	}
	err := c.Run(args[1:], stdout, stderr)
	a.ReportError(stderr, c.Name, err)
	return a.ExitCode(err)
}

// unknownCommand reports a command name that is not registered, with the
// closest one as a suggestion.
func (a *App) unknownCommand(name string, stderr io.Writer) int {
	msg := fmt.Sprintf("%s: unknown command %q", a.Name, name)
	if strings.HasPrefix(name, "-") {
		msg = fmt.Sprintf("%s: unknown flag %s (flags go after the command: %s COMMAND [flags])", a.Name, name, a.Name)
	} else if s := registry.DidYouMean(name, a.Names()); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	fmt.Fprintf(stderr, "%s\n(see %s --help)\n", msg, a.Name)
	return ExitUsage
}

// Usage prints the top-level usage: the intro, the listed commands with
// their summaries, the footer.
func (a *App) Usage(w io.Writer) {
	fmt.Fprintln(w, a.Intro)
	fmt.Fprintf(w, "\nUsage: %s COMMAND [flags] [args]\n", a.Name)
	fmt.Fprintln(w, "\nCommands:")
	names := a.Names()
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	for _, n := range names {
		fmt.Fprintf(w, "  %s%s  %s\n", n, strings.Repeat(" ", width-len(n)), a.commands[n].Summary)
	}
	fmt.Fprint(w, a.Footer)
}
