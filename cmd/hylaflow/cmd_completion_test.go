package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

// The candidates the completion scripts get from hylaflow __complete.
func TestCompletionCandidates(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.hcl", "b.txt", "sub/c.hcl"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		args []string
		want string // candidates joined by spaces
	}{
		{[]string{"r"}, "report run runs"},
		{[]string{"valdate"}, ""},
		{[]string{"help", "va"}, "validate"},
		{[]string{"run", "--fo"}, "--force"},
		{[]string{"run", "--kee"}, "--keep-going"},
		{[]string{"validate", "--js"}, "--json"}, // its help spells it -json
		{[]string{"validate", "-js"}, "-json"},
		{[]string{"bench", "--se"}, "--seeds"}, // from flag.PrintDefaults
		{[]string{"cache", "ls", "--so"}, "--sort"},
		{[]string{"cache", "g"}, "gc"},
		{[]string{"datasets", ""}, "list info inspect fetch"},
		{[]string{"runs", ""}, "list show diff"},
		{[]string{"runs", "--json", "s"}, "show"},
		{[]string{"runs", "list", "-"}, "--cache --help --json -n"},
		{[]string{"datasets", "info", "air"}, "airport"},
		{[]string{"bench", "--dataset", "synthetic_"}, "synthetic_disease synthetic_sbm"},
		{[]string{"stages", "hgcn"}, "hgcn hgcn_split"}, // the hgcn stage type and the split rule
		{[]string{"stages", "slee"}, ""},                // hidden test types are not offered
		{[]string{"completion", "z"}, "zsh"},
		{[]string{"run", filepath.Join(dir, "")}, filepath.Join(dir, "a.hcl") + " " + filepath.Join(dir, "sub") + "/"},
		{[]string{"run", "--cache", ""}, ""}, // a value: the shell's file names
		{[]string{"nosuch", ""}, ""},
	} {
		got := strings.Join(app.Complete(tt.args), " ")
		if tt.args[len(tt.args)-1] == filepath.Join(dir, "") {
			got = strings.Join(app.Complete([]string{"run", dir + "/"}), " ")
		}
		if got != tt.want {
			t.Errorf("complete %q: %q, want %q", tt.args, got, tt.want)
		}
	}
}

// Every flag of every command and subcommand is completed (the words come
// from the flag set the command parses with) and documented in the
// command's --help, so neither list can forget one; every command's
// subcommands are completed and each has a flag set of its own.
func TestCompletionOffersEveryFlag(t *testing.T) {
	n := 0
	for _, c := range app.All() {
		subs := c.Subcommands
		if len(subs) == 0 {
			subs = []string{""}
		}
		if got := strings.Join(app.Complete([]string{c.Name, ""}), " "); len(c.Subcommands) > 0 && got != strings.Join(c.Subcommands, " ") {
			t.Errorf("complete %q: %q, want the subcommands %q", c.Name+" ", got, c.Subcommands)
		}
		for _, sub := range subs {
			line := strings.TrimSpace(c.Name + " " + sub)
			fs := app.Flags(c, sub)
			if fs == nil {
				if c.Name != "__complete" {
					t.Errorf("%s parses no flags with cli.Parse", line)
				}
				continue
			}
			args := []string{c.Name}
			if sub != "" {
				args = append(args, sub)
			}
			offered := app.Complete(append(args, "--"))
			_, help, _ := mainTestRun(append(args, "--help")...)
			fs.VisitAll(func(f *flag.Flag) {
				n++
				if !slices.Contains(offered, "--"+f.Name) {
					t.Errorf("complete %s --: %q lacks --%s", line, offered, f.Name)
				}
				if !regexp.MustCompile(`(^|[\s\[|(,])--?` + regexp.QuoteMeta(f.Name) + `\b`).MatchString(help) {
					t.Errorf("%s --help does not document -%s", line, f.Name)
				}
			})
		}
	}
	if n < 50 {
		t.Errorf("only %d flags found over every command", n)
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "complete -o filenames -o nosort -F _hylaflow hylaflow",
		"zsh":  "compdef _hylaflow hylaflow",
		"fish": "complete -c hylaflow -f -a '(__hylaflow_complete)'",
	} {
		code, out, errs := mainTestRun("completion", shell)
		if code != cli.ExitOK || !strings.Contains(out, want) || !strings.Contains(out, "hylaflow __complete") || errs != "" {
			t.Errorf("completion %s: exit %d\n%s%s", shell, code, out, errs)
		}
	}
	if code, _, errs := mainTestRun("completion", "tcsh"); code != cli.ExitUsage || !strings.Contains(errs, `unknown shell "tcsh" (want bash, zsh or fish)`) {
		t.Errorf("completion tcsh: exit %d, %s", code, errs)
	}
	if code, _, _ := mainTestRun("completion"); code != cli.ExitUsage {
		t.Errorf("completion without a shell: exit %d", code)
	}
}
