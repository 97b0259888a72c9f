package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var errLib = errors.New("lib: no such thing")

// testApp is a small program: a command with flags and positional
// completion, one with subcommands of their own flags, a hidden one.
func testApp() *App {
	a := &App{Name: "prog", Intro: "prog does things.", Footer: "\nExit status: 0 ok.\n",
		IsUsage: func(err error) bool { return errors.Is(err, errLib) }}
	a.Register(&Command{Name: "run", Summary: "run a file",
		Complete: func(sub, flag, prefix string) []string {
			if flag == "mode" {
				return []string{"fast", "slow"}
			}
			if flag == "" {
				return []string{"a.hcl", "b.hcl"}
			}
			return nil
		},
		Run: func(args []string, stdout, stderr io.Writer) error {
			fs := FlagSet("run")
			fs.Int("j", 1, "")
			fs.Bool("json", false, "")
			fs.String("mode", "fast", "")
			fs.String("cache", "", "")
			pos, err := Parse(fs, args, stdout, "Usage: prog run FILE\n")
			if err != nil {
				return err
			}
			if len(pos) != 1 {
				return UsageText("Usage: prog run FILE\n", "want one file, got %d", len(pos))
			}
			fmt.Fprintln(stdout, "ran", pos[0])
			return nil
		}})
	a.Register(&Command{Name: "store", Summary: "look after the store", Subcommands: []string{"ls", "gc"},
		Run: func(args []string, stdout, stderr io.Writer) error {
			if len(args) == 0 {
				return UsageText("Usage: prog store ls|gc\n", "")
			}
			fs := FlagSet("store " + args[0])
			switch args[0] {
			case "ls":
				fs.Bool("long", false, "")
			case "gc":
				fs.Int("keep-runs", 5, "")
			default:
				return Usagef("unknown subcommand %q", args[0])
			}
			_, err := Parse(fs, args[1:], stdout, "Usage: prog store "+args[0]+"\n")
			return InCommand("store "+args[0], err)
		}})
	a.Register(&Command{Name: "internal", Hidden: true, Run: func([]string, io.Writer, io.Writer) error { return nil }})
	a.Register(&Command{Name: "version", Summary: "print the version",
		Run: func(_ []string, stdout, _ io.Writer) error { fmt.Fprintln(stdout, "prog 1"); return nil }})
	return a
}

func run(a *App, args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := a.Dispatch(args, &out, &errs)
	return code, out.String(), errs.String()
}

// The dispatcher: usage, help CMD, --version, unknown commands and flags
// with suggestions, and each command's errors reported with its name.
func TestDispatch(t *testing.T) {
	a := testApp()
	for _, tt := range []struct {
		args         []string
		code         int
		stdout, errs string
	}{
		{nil, ExitUsage, "", "prog does things.\n\nUsage: prog COMMAND [flags] [args]\n\nCommands:\n  run      run a file\n  store    look after the store\n  version  print the version\n\nExit status: 0 ok.\n"},
		{[]string{"--help"}, ExitOK, "prog does things.\n\nUsage: prog COMMAND [flags] [args]\n\nCommands:\n  run      run a file\n  store    look after the store\n  version  print the version\n\nExit status: 0 ok.\n", ""},
		{[]string{"help", "run"}, ExitOK, "Usage: prog run FILE\n", ""},
		{[]string{"help", "rnu"}, ExitUsage, "", "prog: unknown command \"rnu\" (did you mean \"run\"?)\n(see prog --help)\n"},
		{[]string{"--version"}, ExitOK, "prog 1\n", ""},
		{[]string{"--j"}, ExitUsage, "", "prog: unknown flag --j (flags go after the command: prog COMMAND [flags])\n(see prog --help)\n"},
		{[]string{"run", "x", "--jsn"}, ExitUsage, "", "prog run: unknown flag --jsn (did you mean --json?)\n(see prog run --help)\n"},
		{[]string{"run", "x", "-j"}, ExitUsage, "", "prog run: flag -j needs a value\n(see prog run --help)\n"},
		{[]string{"run"}, ExitUsage, "", "prog run: want one file, got 0\n\nUsage: prog run FILE\n"},
		{[]string{"run", "-j", "2", "x"}, ExitOK, "ran x\n", ""},
		{[]string{"store", "gc", "--kep-runs"}, ExitUsage, "", "prog store gc: unknown flag --kep-runs (did you mean --keep-runs?)\n(see prog store gc --help)\n"},
		{[]string{"internal"}, ExitOK, "", ""},
	} {
		code, out, errs := run(a, tt.args...)
		if code != tt.code || out != tt.stdout || errs != tt.errs {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tt.args, code, out, errs, tt.code, tt.stdout, tt.errs)
		}
	}
}

// ExitCode maps each kind of error to its exit status, through wrapping,
// and ReportError prints each as the README shows it.
func TestExitCodeAndReportError(t *testing.T) {
	a := testApp()
	for _, tt := range []struct {
		name string
		err  error
		code int
		out  string
	}{
		{"nil", nil, ExitOK, ""},
		{"help", ErrHelp, ExitOK, ""},
		{"plain failure", errors.New("disk full"), ExitFailed, "prog cmd: disk full\n"},
		{"wrapped failure", fmt.Errorf("open: %w", errors.New("denied")), ExitFailed, "prog cmd: open: denied\n"},
		{"usage", Usagef("-j %d: want at least 1", 0), ExitUsage, "prog cmd: -j 0: want at least 1\n"},
		{"usage with hint", UsageHint("unexpected argument %q", "x"), ExitUsage,
			"prog cmd: unexpected argument \"x\"\n(see prog cmd --help)\n"},
		{"usage with text", UsageText("Usage: prog cmd\n", "want one file"), ExitUsage,
			"prog cmd: want one file\n\nUsage: prog cmd\n"},
		{"usage text alone", UsageText("Usage: prog cmd\n", ""), ExitUsage, "Usage: prog cmd\n"},
		{"unknown name", UnknownName("unknown dataset %q", "x"), ExitUsage, "prog cmd: unknown dataset \"x\"\n"},
		{"a library's usage error", fmt.Errorf("key x: %w", errLib), ExitUsage, "prog cmd: key x: lib: no such thing\n"},
		{"failed wins over a library's usage error", Failed(fmt.Errorf("key x: %w", errLib)), ExitFailed, "prog cmd: key x: lib: no such thing\n"},
		{"failed nil", Failed(nil), ExitOK, ""},
		{"canceled", fmt.Errorf("train: %w", context.Canceled), ExitCanceled, "prog cmd: train: context canceled\n"},
		{"canceled wrapper", Canceled(errors.New("stage stopped")), ExitCanceled, "prog cmd: stage stopped\n"},
		{"invalid pipeline", ErrInvalid, ExitInvalid, ""},
		{"exit status", ExitStatus(ExitInvalid), ExitInvalid, ""},
		{"exit status canceled", ExitStatus(ExitCanceled), ExitCanceled, ""},
		{"named", InCommand("cache ls", errors.New("boom")), ExitFailed, "prog cache ls: boom\n"},
		{"named usage", InCommand("cache ls", UsageHint("unknown flag --x")), ExitUsage,
			"prog cache ls: unknown flag --x\n(see prog cache ls --help)\n"},
		{"named nil", InCommand("x", nil), ExitOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := a.ExitCode(tt.err); got != tt.code {
				t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.code)
			}
			var b bytes.Buffer
			a.ReportError(&b, "cmd", tt.err)
			if b.String() != tt.out {
				t.Errorf("ReportError printed %q, want %q", b.String(), tt.out)
			}
		})
	}
}

// Parse takes flags anywhere among the positional arguments, and
// everything after "--" as positional.
func TestParse(t *testing.T) {
	for _, tt := range []struct {
		args []string
		pos  []string
		j    int
		v    bool
	}{
		{args: []string{"a.hcl"}, pos: []string{"a.hcl"}, j: 1},
		{args: []string{"-j", "3", "a.hcl", "-v"}, pos: []string{"a.hcl"}, j: 3, v: true},
		{args: []string{"a.hcl", "--j=4", "b.hcl"}, pos: []string{"a.hcl", "b.hcl"}, j: 4},
		{args: []string{"-v", "--", "-j", "a.hcl"}, pos: []string{"-j", "a.hcl"}, j: 1, v: true},
		{args: []string{"a.hcl", "--", "--", "b"}, pos: []string{"a.hcl", "--", "b"}, j: 1},
		{args: nil, pos: nil, j: 1},
	} {
		fs := FlagSet("t")
		j := fs.Int("j", 1, "")
		v := fs.Bool("v", false, "")
		pos, err := Parse(fs, tt.args, io.Discard, "")
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if strings.Join(pos, "|") != strings.Join(tt.pos, "|") || *j != tt.j || *v != tt.v {
			t.Errorf("%q: positional %q, -j %d, -v %v; want %q, %d, %v", tt.args, pos, *j, *v, tt.pos, tt.j, tt.v)
		}
	}
}

// Completion comes from the table and the flag sets the commands parse
// with: nothing is listed twice.
func TestComplete(t *testing.T) {
	a := testApp()
	for _, tt := range []struct {
		args []string
		want string // candidates joined by spaces
	}{
		{[]string{""}, "run store version help --help --version"},
		{[]string{"r"}, "run"},
		{[]string{"i"}, ""}, // hidden
		{[]string{"help", "s"}, "store"},
		{[]string{"help", "run", ""}, ""},
		{[]string{"run", "--"}, "--cache --help --j --json --mode"},
		{[]string{"run", "-"}, "--cache --help --json --mode -j"},
		{[]string{"run", "-js"}, "-json"},
		{[]string{"run", "--mode", ""}, "fast slow"},
		{[]string{"run", "-mode", "s"}, "slow"},
		{[]string{"run", "--mode=s"}, ""},
		{[]string{"run", "--json", ""}, "a.hcl b.hcl"}, // a bool flag takes no value
		{[]string{"run", "x", "-j", ""}, ""},           // no completer for -j's value: files
		{[]string{"run", "b"}, "b.hcl"},
		{[]string{"store", ""}, "ls gc"},
		{[]string{"store", "g"}, "gc"},
		{[]string{"store", "gc", "--k"}, "--keep-runs"},
		{[]string{"store", "ls", "--"}, "--help --long"},
		{[]string{"store", "ls", ""}, ""},
		{[]string{"version", "--"}, "--help"}, // parses no flags
		{[]string{"nosuch", ""}, ""},
	} {
		got := strings.Join(a.Complete(tt.args), " ")
		if got != tt.want {
			t.Errorf("complete %q: %q, want %q", tt.args, got, tt.want)
		}
	}
}

// App.Flags finds the flag set of every command and subcommand that
// parses one, and nothing for one that does not.
func TestFlags(t *testing.T) {
	a := testApp()
	for _, tt := range []struct {
		cmd, sub string
		want     string
	}{
		{"run", "", "cache j json mode"},
		{"store", "ls", "long"},
		{"store", "gc", "keep-runs"},
		{"version", "", ""},
	} {
		c, _ := a.Lookup(tt.cmd)
		var names []string
		if fs := a.Flags(c, tt.sub); fs != nil {
			names = flagNames(fs)
		}
		if got := strings.Join(names, " "); got != tt.want {
			t.Errorf("Flags(%s %s) = %q, want %q", tt.cmd, tt.sub, got, tt.want)
		}
	}
}

// Files offers directories and files of one extension, hidden ones only
// when asked, with glob characters in the prefix taken literally.
func TestFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.hcl", "b.txt", "sub/c.hcl", ".hidden.hcl", "x[1].hcl"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(xs []string) []string {
		for i, x := range xs {
			xs[i] = strings.TrimPrefix(x, dir+"/")
		}
		return xs
	}
	for _, tt := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"a.hcl", "sub/", "x[1].hcl"}},
		{".", []string{".hidden.hcl"}},
		{"x[", []string{"x[1].hcl"}},
		{"b", nil},
	} {
		if got := rel(Files(dir+"/"+tt.prefix, ".hcl")); !slices.Equal(got, tt.want) {
			t.Errorf("Files(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
}

// Registering a name twice is a programming error.
func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	a := testApp()
	a.Register(&Command{Name: "run"})
}

// Outcome: canceled when the context was (whatever the error says) or the
// error is a cancellation, else a failure.
func TestOutcome(t *testing.T) {
	a := testApp()
	live := context.Background()
	done, cancel := context.WithCancel(live)
	cancel()
	for _, tt := range []struct {
		ctx  context.Context
		err  error
		code int
	}{
		{live, nil, ExitOK},
		{done, nil, ExitOK},
		{live, errors.New("disk full"), ExitFailed},
		{live, fmt.Errorf("stage: %w", context.Canceled), ExitCanceled},
		{done, errors.New("stopped"), ExitCanceled},
		{live, fmt.Errorf("x: %w", errLib), ExitFailed}, // failed wins over a library's usage error
	} {
		if got := a.ExitCode(Outcome(tt.ctx, tt.err)); got != tt.code {
			t.Errorf("Outcome(%v, %v): exit %d, want %d", tt.ctx.Err(), tt.err, got, tt.code)
		}
	}
}
