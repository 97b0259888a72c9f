package main

import (
	"sort"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

// Every command (hidden ones too, except the completion helper) and every
// cache subcommand has a text in help/, --help prints it on stdout (bench
// and kernel follow it with their generated flag list), and no text in
// help/ is left unused.
func TestEveryCommandHasHelp(t *testing.T) {
	type page struct {
		args []string // the command line before --help
		file string   // help/FILE.txt
	}
	var pages []page
	for _, c := range app.All() {
		if c.Name == "__complete" {
			continue
		}
		pages = append(pages, page{[]string{c.Name}, c.Name})
	}
	for _, sub := range cacheCmdSubs {
		pages = append(pages, page{[]string{"cache", sub}, "cache-" + sub})
	}
	generated := map[string]bool{"bench": true, "kernel": true} // help text + flag list
	used := map[string]bool{}
	for _, p := range pages {
		t.Run(p.file, func(t *testing.T) {
			text, err := helpFiles.ReadFile("help/" + p.file + ".txt")
			if err != nil {
				t.Fatalf("no help text: %v", err)
			}
			used[p.file+".txt"] = true
			if !strings.HasPrefix(string(text), "Usage:") || !strings.HasSuffix(string(text), "\n") {
				t.Errorf("help/%s.txt should start with \"Usage:\" and end with a newline", p.file)
			}
			code, out, errs := mainTestRun(append(p.args, "--help")...)
			if code != cli.ExitOK || errs != "" {
				t.Fatalf("%s --help: exit %d, stderr %q", strings.Join(p.args, " "), code, errs)
			}
			if generated[p.file] {
				if !strings.HasPrefix(out, string(text)) || len(out) == len(text) {
					t.Errorf("%s --help should be help/%s.txt followed by the flags, got:\n%s", p.args[0], p.file, out)
				}
			} else if out != string(text) {
				t.Errorf("%s --help printed something else than help/%s.txt:\n%s", strings.Join(p.args, " "), p.file, out)
			}
		})
	}
	entries, err := helpFiles.ReadDir("help")
	if err != nil {
		t.Fatal(err)
	}
	var unused []string
	for _, e := range entries {
		if !used[e.Name()] {
			unused = append(unused, e.Name())
		}
	}
	sort.Strings(unused)
	if len(unused) > 0 {
		t.Errorf("help texts no command prints: %v", unused)
	}
}
