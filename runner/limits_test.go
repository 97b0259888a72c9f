package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
)

// Issue 19 item 4: nesting is bounded before parsing, so no input reaches
// the HCL parser's stack overflow.
func TestCheckNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	over := runner.MaxNesting + 1
	for _, tc := range []struct {
		name string
		src  string
		ok   bool
		line int
	}{
		{"flat", `x = 1`, true, 0},
		{"at the limit", "x = " + deep("[", "]", runner.MaxNesting), true, 0},
		{"brackets", "x = " + deep("[", "]", over), false, 1},
		{"parentheses", "x = " + deep("(", ")", 100000), false, 1},
		{"objects", "x = " + deep("{a=", "}", over), false, 1},
		{"templates", "x = " + deep(`"${`, `}"`, over/2+1), false, 1},
		{"second line", "a = 1\nx = " + deep("[", "]", over), false, 2},
		{"brackets in a string", `x = "` + strings.Repeat("[", 10000) + `"`, true, 0},
		{"escaped quote", `x = "\"` + strings.Repeat("[", 10000) + `"`, true, 0},
		{"brackets in comments", "# " + strings.Repeat("[", 10000) + "\n// " + strings.Repeat("{", 10000) + "\n/* " + strings.Repeat("(", 10000) + " */\nx = 1", true, 0},
		{"brackets in a heredoc", "x = <<EOT\n" + strings.Repeat("[", 10000) + "\nEOT\ny = [1]", true, 0},
		{"templates in a heredoc", "x = <<-EOT\n  " + deep("${", "}", over) + "\n  EOT\n", false, 2},
		{"escaped template", `x = "` + strings.Repeat("$${", 10000) + `"`, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := runner.CheckNesting([]byte(tc.src), "p.hcl")
			if d.HasErrors() == tc.ok {
				t.Fatalf("CheckNesting: %v, want ok=%v", d, tc.ok)
			}
			if !tc.ok && (d[0].Subject == nil || d[0].Subject.Filename != "p.hcl" || d[0].Subject.Start.Line != tc.line || !strings.Contains(d[0].Detail, "256 levels")) {
				t.Errorf("diagnostic %+v, want one at p.hcl line %d naming the limit", d[0], tc.line)
			}
		})
	}
	// The shipped pipelines pass.
	files, _ := filepath.Glob(filepath.Join("..", "pipelines", "*.hcl"))
	if len(files) == 0 {
		t.Fatal("no pipelines found")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if d := runner.CheckNesting(src, f); d.HasErrors() {
			t.Errorf("%s: %v", f, d)
		}
	}
}

// A pipeline file, a -var value and a -var-file nested 100 000 deep are
// diagnostics, not a crash.
func TestDeepInputIsADiagnostic(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	dir := t.TempDir()
	file := filepath.Join(dir, "deep.hcl")
	os.WriteFile(file, []byte("variable \"v\" {\n  default = "+deep+"\n}\n"), 0o644)
	if _, d := runner.Load(stages.Default(), file, runner.LoadOptions{}); !d.HasErrors() || d[0].Summary != "Nesting too deep" {
		t.Errorf("deep file: %v", d)
	}
	ok := filepath.Join(dir, "ok.hcl")
	os.WriteFile(ok, []byte("variable \"v\" {\n  default = [1]\n}\n"), 0o644)
	varFile := filepath.Join(dir, "deep.vars")
	os.WriteFile(varFile, []byte("v = "+deep+"\n"), 0o644)
	for name, opts := range map[string]runner.LoadOptions{
		"-var":      {Vars: map[string]string{"v": deep}},
		"-var-file": {VarFiles: []string{varFile}},
	} {
		if _, d := runner.Load(stages.Default(), ok, opts); !d.HasErrors() || !strings.Contains(d.Error(), "Nesting too deep") {
			t.Errorf("deep %s: %v", name, d)
		}
	}
}
