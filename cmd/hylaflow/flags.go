package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/registry"
)

// The flag helpers every command uses, so that flags behave the same
// everywhere: they may come before, between or after the positional
// arguments; -h/--help prints the command's usage on stdout and exits 0;
// a bad flag is one line on stderr naming the problem (with a did-you-mean
// for a misspelt flag) and a pointer to --help, exit 2.

// cliFlagSet returns an empty flag set for command name (e.g. "run",
// "cache ls"). It prints nothing itself: cliParse returns the errors and
// cliFlagError reports them.
func cliFlagSet(name string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// cliParse parses flags that may appear before, between or after the
// positional arguments, which it returns in order. An argument "--" ends
// the flags. Errors other than flag.ErrHelp are *cliUsageError values.
func cliParse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, cliFlagProblem(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag.Parse stops at the first positional argument or after "--";
		// after "--" everything is positional.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// cliUsageError is a usage problem found while parsing a command line.
type cliUsageError struct{ msg string }

func (e *cliUsageError) Error() string { return e.msg }

// cliFlagProblem rewrites the flag package's error for users: an unknown
// flag gets the closest defined flag as a suggestion.
func cliFlagProblem(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		msg = "unknown flag " + cliFlagName(name)
		if s := registry.DidYouMean(name, cliFlagNames(fs)); s != "" {
			msg += " (did you mean " + cliFlagName(s) + "?)"
		}
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		msg = "flag " + cliFlagName(strings.TrimLeft(name, "-")) + " needs a value"
	}
	return &cliUsageError{msg: msg}
}

// cliFlagName spells a flag as the usage texts do: -j, --force.
func cliFlagName(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// cliFlagNames lists the flags defined in fs, sorted.
func cliFlagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	return names
}

// cliFlagError reports a cliParse error for command name and returns the
// exit code: -h/--help prints usage on stdout (exit 0); anything else is
// one line on stderr and a pointer to the help (exit 2).
func cliFlagError(err error, stdout, stderr io.Writer, name, usage string) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "hylaflow %s: %v\n(see hylaflow %s --help)\n", name, err, name)
	return exitUsage
}

// cliDefaults renders the flags of fs as flag.PrintDefaults does, for
// usage texts that end with a generated flag list.
func cliDefaults(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}
