package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
	"golang.org/x/term"
)

// The helpers every command uses, so that flags, the cache's location,
// paths and diagnostics behave the same everywhere. Flags may come before,
// between or after the positional arguments; -h/--help prints the
// command's usage on stdout and exits 0; a bad flag is one line on stderr
// naming the problem (with a did-you-mean for a misspelt flag) and a
// pointer to --help, exit 2.

// cliRegistry returns the stage types the commands load pipelines
// against; tests replace it with a registry holding test-only types.
var cliRegistry = func() *registry.Registry { return stages.Default() }

// cliFlagSet returns an empty flag set for command name (e.g. "run",
// "cache ls"). It prints nothing itself: cliFlags reports the errors.
func cliFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// cliFlags parses args with fs (see cliParse) for a command: -h/--help
// prints usage on stdout and returns errHelp; a bad flag is a
// *cliUsageError of the flag set's command, with a pointer to its help.
func cliFlags(fs *flag.FlagSet, args []string, stdout io.Writer, usage string) ([]string, error) {
	pos, err := cliParse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return nil, errHelp
	}
	if err != nil {
		return nil, inCommand(fs.Name(), err)
	}
	return pos, nil
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
	return &cliUsageError{msg: msg, hint: true}
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

// cliFlagSetOn reports whether flag name was given on the command line.
func cliFlagSetOn(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
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

// cliStrings is a repeatable string flag.
type cliStrings []string

func (s *cliStrings) String() string { return strings.Join(*s, ",") }

// Set appends v; an empty value is an error.
func (s *cliStrings) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*s = append(*s, v)
	return nil
}

// cliCache finds the cache directory (cache.Locate): --cache, else
// $HYLAFLOW_CACHE, else the nearest .hylaflow in start or a parent up to
// the repository root, else a new one at that root (or in start). start
// is the pipeline file's directory for commands given one, else ".".
func cliCache(flagValue, start string) (cache.Location, error) {
	return cache.Locate(flagValue, os.Getenv("HYLAFLOW_CACHE"), start)
}

// cliCacheDir is cliCache's directory for commands without a pipeline
// file: the walk starts in the working directory.
func cliCacheDir(flagValue string) (string, error) {
	loc, err := cliCache(flagValue, ".")
	return loc.Dir, err
}

// cliShowPath returns path relative to the working directory when that
// is shorter (for messages: ".hylaflow", "../.hylaflow").
func cliShowPath(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && len(rel) < len(path) {
		return rel
	}
	return path
}

// cliTerminal returns the width of w if it is a terminal.
func cliTerminal(w io.Writer) (width int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width < 20 {
		width = 100
	}
	return width, true
}

// cliWriteDiags writes pipeline diagnostics, coloured (unless NO_COLOR is
// set) and wrapped when w is a terminal.
func cliWriteDiags(w io.Writer, diags hcl.Diagnostics) {
	width, color := uint(0), false
	if cols, ok := cliTerminal(w); ok {
		width, color = uint(cols), os.Getenv("NO_COLOR") == ""
	}
	if err := runner.WriteDiagnostics(w, diags, width, color); err != nil {
		fmt.Fprintln(w, diags.Error())
	}
}

// cliLoad loads one pipeline file for plan or run: errInvalid (after
// printing the diagnostics) when it is invalid. A valid pipeline's
// preflight warnings (data files missing on this machine) are printed too.
func cliLoad(file string, opts runner.LoadOptions, stderr io.Writer) (*runner.Pipeline, error) {
	p, diags := runner.Load(cliRegistry(), file, opts)
	if p != nil && !diags.HasErrors() {
		diags = append(diags, runner.Preflight(p)...)
	}
	if len(diags) > 0 {
		cliWriteDiags(stderr, diags)
	}
	if p == nil || diags.HasErrors() {
		return nil, errInvalid
	}
	return p, nil
}
