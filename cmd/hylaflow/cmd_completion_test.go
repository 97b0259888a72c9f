package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{[]string{"datasets", ""}, "list info fetch"},
		{[]string{"datasets", "info", "air"}, "airport"},
		{[]string{"bench", "--dataset", "synthetic_"}, "synthetic_disease synthetic_sbm"},
		{[]string{"stages", "hgcn"}, "hgcn hgcn_split"}, // the hgcn stage type and the split rule
		{[]string{"stages", "slee"}, ""},                // hidden test types are not offered
		{[]string{"completion", "z"}, "zsh"},
		{[]string{"run", filepath.Join(dir, "")}, filepath.Join(dir, "a.hcl") + " " + filepath.Join(dir, "sub") + "/"},
		{[]string{"run", "--cache", ""}, ""}, // a value: the shell's file names
		{[]string{"nosuch", ""}, ""},
	} {
		got := strings.Join(completionCandidates(tt.args), " ")
		if tt.args[len(tt.args)-1] == filepath.Join(dir, "") {
			got = strings.Join(completionCandidates([]string{"run", dir + "/"}), " ")
		}
		if got != tt.want {
			t.Errorf("complete %q: %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "complete -o filenames -o nosort -F _hylaflow hylaflow",
		"zsh":  "compdef _hylaflow hylaflow",
		"fish": "complete -c hylaflow -f -a '(__hylaflow_complete)'",
	} {
		code, out, errs := mainTestRun("completion", shell)
		if code != exitOK || !strings.Contains(out, want) || !strings.Contains(out, "hylaflow __complete") || errs != "" {
			t.Errorf("completion %s: exit %d\n%s%s", shell, code, out, errs)
		}
	}
	if code, _, errs := mainTestRun("completion", "tcsh"); code != exitUsage || !strings.Contains(errs, `unknown shell "tcsh" (want bash, zsh or fish)`) {
		t.Errorf("completion tcsh: exit %d, %s", code, errs)
	}
	if code, _, _ := mainTestRun("completion"); code != exitUsage {
		t.Errorf("completion without a shell: exit %d", code)
	}
}
