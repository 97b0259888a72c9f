package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

// graph --collapse draws one node per stage block; with --run, styled by
// that run's statuses (here a run where fail.f failed and the others ran).
func TestGraphCmdCollapse(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.hcl")
	if err := os.WriteFile(file, []byte(runsCmdFailPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	cdir := filepath.Join(dir, "cache")
	cacheCmdMust(t, cli.ExitFailed, "run", file, "--cache", cdir, "-q", "-j", "1", "--keep-going")

	plain := cacheCmdMust(t, cli.ExitOK, "graph", "--collapse", file)
	for _, want := range []string{`"value.a" [label="value.a\nvalue v1"];`, `"value.a" -> "sum.all" [label="in ×2"];`} {
		if !strings.Contains(plain, want) {
			t.Errorf("graph --collapse lacks %s:\n%s", want, plain)
		}
	}
	if strings.Contains(plain, "fillcolor") {
		t.Errorf("graph --collapse without --run is styled:\n%s", plain)
	}
	styled := cacheCmdMust(t, cli.ExitOK, "graph", "--collapse", "--run", "last", "--cache", cdir, file)
	for _, want := range []string{
		`"fail.f" [label="fail.f\nfail v1\n1 failed", style="rounded,filled", fillcolor="#f4cccc"];`,
		`"value.a" [label="value.a\nvalue v1\n1 ran", style="rounded,filled", fillcolor="#d9ead3"];`,
		`"sum.all" [label="sum.all\nsum v1\n1 ran", style="rounded,filled", fillcolor="#d9ead3"];`,
	} {
		if !strings.Contains(styled, want) {
			t.Errorf("graph --collapse --run last lacks %s:\n%s", want, styled)
		}
	}
	mmd := cacheCmdMust(t, cli.ExitOK, "graph", "--collapse", "--run", "1", "--cache", cdir, "--format", "mermaid", file)
	if !strings.Contains(mmd, "classDef failed fill:#f4cccc\n") || !strings.Contains(mmd, "<small>1 failed</small>") {
		t.Errorf("graph --collapse --format mermaid --run 1:\n%s", mmd)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"graph", "--run", "1", "--cache", cdir, file}, cli.ExitUsage, "--run styles the collapsed view: give --collapse too"},
		{[]string{"graph", "--collapse", "--run", "7", "--cache", cdir, file}, cli.ExitUsage, "no run 7"},
	} {
		code, out, errs := cacheCmdExec(tc.args...)
		if code != tc.code || !strings.Contains(out+errs, tc.want) {
			t.Errorf("hylaflow %s: exit %d, output %q; want exit %d and %q", strings.Join(tc.args, " "), code, out+errs, tc.code, tc.want)
		}
	}
}
