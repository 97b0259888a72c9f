package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

var helpUpdate = flag.Bool("update-help", false, "rewrite the golden files in testdata/help")

// mainTestRun runs the dispatcher on args and returns its exit code and streams.
func mainTestRun(args ...string) (code int, stdout, stderr string) {
	var out, errw bytes.Buffer
	code = app.Dispatch(args, &out, &errw)
	return code, out.String(), errw.String()
}

// The dispatcher's own cases: help, unknown names with suggestions, flags
// with suggestions, and help CMD = CMD --help.
func TestDispatch(t *testing.T) {
	for _, tt := range []struct {
		name             string
		args             []string
		code             int
		stdout, stderr   string // substrings ("" = must be empty)
		noStdout, noErrs bool
	}{
		{name: "no args: usage on stderr", args: nil, code: cli.ExitUsage, stderr: "Commands:", noStdout: true},
		{name: "--help on stdout", args: []string{"--help"}, code: cli.ExitOK, stdout: "Commands:", noErrs: true},
		{name: "help", args: []string{"help"}, code: cli.ExitOK, stdout: "Exit status (every command)", noErrs: true},
		{name: "typo of a command", args: []string{"valdate"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow: unknown command \"valdate\" (did you mean \"validate\"?)\n(see hylaflow --help)\n"},
		{name: "far from every command", args: []string{"frobnicate"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow: unknown command \"frobnicate\"\n(see hylaflow --help)\n"},
		{name: "help of an unknown command", args: []string{"help", "rnu"}, code: cli.ExitUsage, noStdout: true,
			stderr: "unknown command \"rnu\" (did you mean \"run\"?)"},
		{name: "flag before the command", args: []string{"--frce"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow: unknown flag --frce (flags go after the command"},
		{name: "typo of a flag", args: []string{"run", "--frce", "x.hcl"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow run: unknown flag --frce (did you mean --force?)\n(see hylaflow run --help)\n"},
		{name: "typo of a one-letter flag's neighbour", args: []string{"validate", "-jsn", "x.hcl"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow validate: unknown flag --jsn (did you mean --json?)\n"},
		{name: "flag without its value", args: []string{"run", "x.hcl", "-j"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow run: flag -j needs a value\n"},
		{name: "bad flag value", args: []string{"bench", "--seeds", "many"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow bench: invalid value \"many\" for flag -seeds: parse error\n(see hylaflow bench --help)\n"},
		{name: "subcommand flag typo", args: []string{"cache", "ls", "--jsno"}, code: cli.ExitUsage, noStdout: true,
			stderr: "hylaflow cache ls: unknown flag --jsno (did you mean --json?)"},
		{name: "version", args: []string{"--version"}, code: cli.ExitOK, stdout: "hylaflow ", noErrs: true},
		{name: "version command", args: []string{"version", "--json"}, code: cli.ExitOK, stdout: `"kernels": "`, noErrs: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := mainTestRun(tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errs)
			}
			if tt.stdout != "" && !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tt.stdout, out)
			}
			if tt.stderr != "" && !strings.Contains(errs, tt.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tt.stderr, errs)
			}
			if tt.noStdout && out != "" {
				t.Errorf("stdout should be empty:\n%s", out)
			}
			if tt.noErrs && errs != "" {
				t.Errorf("stderr should be empty:\n%s", errs)
			}
		})
	}
}

// Every command's help: `hylaflow help CMD` prints what `hylaflow CMD
// --help` prints, on stdout, exit 0, and matches testdata/help/CMD.golden.
func TestHelpGolden(t *testing.T) {
	names := append(app.Names(), "")
	for _, name := range names {
		file := name
		if file == "" {
			file = "hylaflow"
		}
		t.Run(file, func(t *testing.T) {
			args := []string{"--help"}
			if name != "" {
				args = []string{name, "--help"}
			}
			code, out, errs := mainTestRun(args...)
			if code != cli.ExitOK || errs != "" {
				t.Fatalf("%q: exit %d, stderr %q", args, code, errs)
			}
			if name != "" {
				code2, out2, _ := mainTestRun("help", name)
				if code2 != cli.ExitOK || out2 != out {
					t.Errorf("help %s: exit %d and output differs from %s --help:\n%s", name, code2, name, out2)
				}
			}
			path := filepath.Join("testdata", "help", file+".golden")
			if *helpUpdate {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/hylaflow -run TestHelpGolden -update-help)", err)
			}
			if out != string(want) {
				t.Errorf("%s differs from %s (go test ./cmd/hylaflow -run TestHelpGolden -update-help rewrites it):\n%s", strings.Join(args, " "), path, out)
			}
		})
	}
}

// The generic stage types of tests and runner benchmarks are hidden: not
// in `hylaflow stages` nor in the "Registered types" hints, yet pipelines
// (and the worker processes of the executors) can still use them.
func TestStagesHidesTestTypes(t *testing.T) {
	hidden := []string{"fail", "random", "scale", "sleep", "sum", "value"}
	code, out, errs := mainTestRun("stages", "--json")
	if code != cli.ExitOK {
		t.Fatalf("stages --json: exit %d: %s", code, errs)
	}
	var listed []struct{ Name string }
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) < 5 {
		t.Fatalf("stages --json: %v, %d types", err, len(listed))
	}
	for _, s := range listed {
		if slices.Contains(hidden, s.Name) {
			t.Errorf("stages lists the test-only type %q", s.Name)
		}
	}
	code, _, errs = mainTestRun("stages", "nosuch")
	if code != cli.ExitUsage || !strings.Contains(errs, "Registered types: augment, ") || strings.Contains(errs, "sleep") {
		t.Errorf("stages nosuch: exit %d\n%s", code, errs)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte("stage \"sleep\" \"s\" { ms = 1 }\nstage \"nosuch\" \"x\" {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = mainTestRun("validate", file)
	if code != cli.ExitInvalid || !strings.Contains(errs, "Registered types: augment, ") || strings.Contains(errs, "sleep") ||
		strings.Count(errs, "error:") != 1 {
		t.Errorf("validate: exit %d (want the one unknown type, hints without the hidden ones)\n%s", code, errs)
	}
}

// Every command exits 2 for a name that names nothing (README.md's exit
// status table), 1 when the work fails.
func TestExitCodesUnknownNames(t *testing.T) {
	dir := t.TempDir()
	cdir := filepath.Join(dir, "cache")
	file := filepath.Join(dir, "p.hcl")
	if err := os.WriteFile(file, []byte("stage \"value\" \"a\" { values = [1] }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := mainTestRun("run", file, "--cache", cdir, "-q"); code != cli.ExitOK {
		t.Fatalf("run: exit %d\n%s", code, errs)
	}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nosuch"}, cli.ExitUsage, `unknown command "nosuch"`},
		{[]string{"help", "nosuch"}, cli.ExitUsage, `unknown command "nosuch"`},
		{[]string{"stages", "nosuch"}, cli.ExitUsage, `no stage type "nosuch"`},
		{[]string{"datasets", "info", "nosuch"}, cli.ExitUsage, `unknown dataset "nosuch"`},
		{[]string{"datasets", "fetch", "nosuch"}, cli.ExitUsage, `unknown dataset "nosuch"`},
		{[]string{"bench", "--dataset", "nosuch"}, cli.ExitUsage, `unknown dataset "nosuch"`},
		{[]string{"run", file, "--cache", cdir, "--force", "value.b"}, cli.ExitUsage, "--force value.b: no such stage"},
		{[]string{"plan", file, "--cache", cdir, "--force", "value.b"}, cli.ExitUsage, "--force value.b: no such stage"},
		{[]string{"runs", "show", "99", "--cache", cdir}, cli.ExitUsage, "no run 99"},
		{[]string{"runs", "show", "x", "--cache", cdir}, cli.ExitUsage, `run id "x"`},
		{[]string{"report", "99", "--cache", cdir}, cli.ExitUsage, "no run 99"},
		{[]string{"cache", "export", "ffff", filepath.Join(dir, "x.zip"), "--cache", cdir}, cli.ExitUsage, "no key starts with ffff"},
		{[]string{"validate", filepath.Join(dir, "nosuch.hcl")}, cli.ExitInvalid, "open " + filepath.Join(dir, "nosuch.hcl") + ": no such file or directory"},
		{[]string{"validate", dir}, cli.ExitInvalid, "is a directory"},
	} {
		code, out, errs := mainTestRun(tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("hylaflow %s: exit %d (want %d), stderr lacks %q:\n%s%s", strings.Join(tt.args, " "), code, tt.code, tt.want, out, errs)
		}
	}
}
