package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hylaflow/hylaflow/registry"
	"golang.org/x/term"
)

// The helpers every command parses its flags with. Flags may come before,
// between or after the positional arguments; -h/--help prints the
// command's usage on stdout and is ErrHelp (exit 0); a bad flag is one
// line on stderr naming the problem (with a did-you-mean for a misspelt
// flag) and a pointer to --help, exit 2.

// FlagSet returns an empty flag set for command name (e.g. "run",
// "cache ls"). It prints nothing itself: Parse reports the errors.
func FlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// Parse parses args with fs for a command and returns the positional
// arguments: -h/--help prints usage on stdout and returns ErrHelp; a bad
// flag is a usage error of the flag set's command, with a pointer to its
// help.
func Parse(fs *flag.FlagSet, args []string, stdout io.Writer, usage string) ([]string, error) {
	if seen := capturing(); seen != nil {
		seen(fs) // completion asks which flags the command defines
	}
	pos, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return nil, ErrHelp
	}
	if err != nil {
		return nil, InCommand(fs.Name(), err)
	}
	return pos, nil
}

// parse parses flags that may appear before, between or after the
// positional arguments, which it returns in order. An argument "--" ends
// the flags. Errors other than flag.ErrHelp are usage errors.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagProblem(fs, err)
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

// flagProblem rewrites the flag package's error for users: an unknown
// flag gets the closest defined flag as a suggestion.
func flagProblem(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		msg = "unknown flag " + FlagName(name)
		if s := registry.DidYouMean(name, flagNames(fs)); s != "" {
			msg += " (did you mean " + FlagName(s) + "?)"
		}
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		msg = "flag " + FlagName(strings.TrimLeft(name, "-")) + " needs a value"
	}
	return &usageError{msg: msg, hint: true}
}

// FlagName spells a flag as the usage texts do: -j, --force.
func FlagName(name string) string {
	if len([]rune(name)) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagNames lists the flags defined in fs, sorted.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	return names
}

// IsSet reports whether flag name was given on the command line.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// Defaults renders the flags of fs as flag.PrintDefaults does, for usage
// texts that end with a generated flag list.
func Defaults(fs *flag.FlagSet) string {
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	return b.String()
}

// Strings is a repeatable string flag.
type Strings []string

func (s *Strings) String() string { return strings.Join(*s, ",") }

// Set appends v; an empty value is an error.
func (s *Strings) Set(v string) error {
	if v == "" {
		return errors.New("empty value")
	}
	*s = append(*s, v)
	return nil
}

// ShowPath returns path relative to the working directory when that is
// shorter (for messages: ".hylaflow", "../.hylaflow").
func ShowPath(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	if rel, err := filepath.Rel(wd, path); err == nil && len(rel) < len(path) {
		return rel
	}
	return path
}

// Terminal returns the width of w if it is a terminal.
func Terminal(w io.Writer) (width int, ok bool) {
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

// capture, when set, is told of every flag set Parse parses with: it is
// how completion learns a command's flags without a list of its own.
var (
	flagsMu   sync.Mutex
	captureMu sync.Mutex
	capture   func(*flag.FlagSet)
)

func capturing() func(*flag.FlagSet) {
	captureMu.Lock()
	defer captureMu.Unlock()
	return capture
}

// Flags returns the flag set command c parses with for subcommand sub
// ("" for none), learnt by running it with --help (which every command
// answers before doing any work); nil if it parses none.
func (a *App) Flags(c *Command, sub string) *flag.FlagSet {
	flagsMu.Lock() // one at a time: the capture is process-wide
	defer flagsMu.Unlock()
	var got *flag.FlagSet
	captureMu.Lock()
	capture = func(fs *flag.FlagSet) {
		if got == nil {
			got = fs
		}
	}
	captureMu.Unlock()
	defer func() {
		captureMu.Lock()
		capture = nil
		captureMu.Unlock()
	}()
	args := []string{"--help"}
	if sub != "" {
		args = []string{sub, "--help"}
	}
	c.Run(args, io.Discard, io.Discard)
	return got
}
