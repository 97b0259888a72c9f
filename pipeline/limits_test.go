package pipeline_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/stages"
)

// Issue 19 item 4: nesting is bounded before parsing, so no input reaches
// the HCL parser's stack overflow.
func TestCheckNesting(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	over := pipeline.MaxNesting + 1
	for _, tc := range []struct {
		name string
		src  string
		ok   bool
		line int
	}{
		{"flat", `x = 1`, true, 0},
		{"at the limit", "x = " + deep("[", "]", pipeline.MaxNesting), true, 0},
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
			d := pipeline.CheckNesting([]byte(tc.src), "p.hcl")
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
		if d := pipeline.CheckNesting(src, f); d.HasErrors() {
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
	if _, d := pipeline.Load(stages.Default(), file, pipeline.LoadOptions{}); !d.HasErrors() || d[0].Summary != "Nesting too deep" {
		t.Errorf("deep file: %v", d)
	}
	ok := filepath.Join(dir, "ok.hcl")
	os.WriteFile(ok, []byte("variable \"v\" {\n  default = [1]\n}\n"), 0o644)
	varFile := filepath.Join(dir, "deep.vars")
	os.WriteFile(varFile, []byte("v = "+deep+"\n"), 0o644)
	for name, opts := range map[string]pipeline.LoadOptions{
		"-var":      {Vars: map[string]string{"v": deep}},
		"-var-file": {VarFiles: []string{varFile}},
	} {
		if _, d := pipeline.Load(stages.Default(), ok, opts); !d.HasErrors() || !strings.Contains(d.Error(), "Nesting too deep") {
			t.Errorf("deep %s: %v", name, d)
		}
	}
}

// Issue 19 item 4: the instances of all blocks together are bounded (12
// blocks × 99 000 instances were accepted and took 167 s and 5 GB to plan),
// with a diagnostic at the for_each of the block that crosses the limit;
// LoadOptions.MaxInstances and HYLAFLOW_MAX_INSTANCES move the limit.
func TestTotalInstanceCap(t *testing.T) {
	// n blocks of a × b instances (range gives at most 1024 values:
	// setproduct makes more).
	blocks := func(n, a, b int) string {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "stage \"random\" \"b%d\" {\n  for_each = [for p in setproduct(range(%d), range(%d)) : \"${p[0]}-${p[1]}\"]\n}\n", i, a, b)
		}
		return sb.String()
	}
	for _, tc := range []struct {
		name      string
		src       string
		opt       int
		env       string
		wantErr   string // "" = loads
		line      int
		instances int
	}{
		{"issue's 12 × 99000", blocks(12, 99, 1000), 0, "", "the pipeline has 198000, more than the limit of 100000", 5, 0},
		{"at the limit", blocks(3, 4, 10), 120, "", "", 0, 120},
		{"one over", blocks(3, 4, 10), 119, "", "With the 40 instances of random.b2 the pipeline has 120, more than the limit of 119", 8, 0},
		{"env lowers", blocks(3, 4, 10), 0, "50", "the pipeline has 80, more than the limit of 50 for all blocks together; set HYLAFLOW_MAX_INSTANCES", 5, 0},
		{"env raises", blocks(3, 4, 10), 0, "200000", "", 0, 120},
		{"option wins over env", blocks(3, 4, 10), 200, "10", "", 0, 120},
		{"bad env", blocks(1, 2, 1), 0, "lots", `HYLAFLOW_MAX_INSTANCES="lots" is not a whole number ≥ 1`, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(pipeline.MaxInstancesEnv, tc.env)
			p, d := pipeline.LoadSource(stages.Default(), "p.hcl", []byte(tc.src), pipeline.LoadOptions{MaxInstances: tc.opt})
			if tc.wantErr == "" {
				if d.HasErrors() {
					t.Fatal(d)
				}
				if len(p.Instances) != tc.instances {
					t.Errorf("%d instances, want %d", len(p.Instances), tc.instances)
				}
				return
			}
			if !d.HasErrors() || !strings.Contains(d.Error(), tc.wantErr) {
				t.Fatalf("diagnostics %v, want one containing %q", d, tc.wantErr)
			}
			if n := len(d.Errs()); n != 1 {
				t.Errorf("%d errors, want 1: %v", n, d)
			}
			if tc.line > 0 && (d[0].Subject == nil || d[0].Subject.Filename != "p.hcl" || d[0].Subject.Start.Line != tc.line) {
				t.Errorf("diagnostic at %v, want p.hcl line %d", d[0].Subject, tc.line)
			}
		})
	}
}

// Issue 19 item 4: strings are bounded wherever they enter — a literal or a
// heredoc in the file, a -var value, a -var-file, and a value computed by a
// local or a parameter expression — with a diagnostic naming the place.
func TestLongStringIsADiagnostic(t *testing.T) {
	big := strings.Repeat("x", pipeline.MaxStringBytes+1)
	fits := strings.Repeat("x", pipeline.MaxStringBytes-10)
	dir := t.TempDir()
	varFile := filepath.Join(dir, "long.vars")
	if err := os.WriteFile(varFile, []byte("v = \""+big+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const plain = "variable \"v\" {\n  type = string\n  default = \"a\"\n}\n"
	// 1100 × 1000 bytes: a local computed from short literals.
	const computed = "locals {\n  s = join(\"\", [for i in range(1000) : \"0123456789\"])\n  t = join(\"\", [for i in range(121) : local.s])\n}\n"
	for _, tc := range []struct {
		name, src string
		opts      pipeline.LoadOptions
		want      string
		line      int
	}{
		{"literal", plain + "stage \"source\" \"s\" {\n  name = \"" + big + "\"\n}\n", pipeline.LoadOptions{}, "This string holds a string of 1048577 bytes", 6},
		{"heredoc", plain + "locals {\n  h = <<EOT\n" + big + "\nEOT\n}\n", pipeline.LoadOptions{}, "This heredoc holds", 6},
		{"-var", plain, pipeline.LoadOptions{Vars: map[string]string{"v": big}}, "-var v holds a string of 1048577 bytes", 0},
		{"-var-file", plain, pipeline.LoadOptions{VarFiles: []string{varFile}}, "String too long", 1},
		{"computed local", computed, pipeline.LoadOptions{}, `Local value "t" holds a string of 1210000 bytes`, 3},
		{"parameter", "stage \"fail\" \"f\" {\n  message = join(\"\", [for i in range(1000) : \"" + strings.Repeat("y", 1200) + "\"])\n}\n", pipeline.LoadOptions{}, `Parameter "message" of stage type "fail" holds a string of 1200000 bytes`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, d := pipeline.LoadSource(stages.Default(), "p.hcl", []byte(tc.src), tc.opts)
			if !d.HasErrors() || !strings.Contains(d.Error(), tc.want) {
				t.Fatalf("diagnostics %.300v, want one containing %q", d.Error(), tc.want)
			}
			if tc.line > 0 && (d[0].Subject == nil || d[0].Subject.Start.Line != tc.line) {
				t.Errorf("diagnostic at %v, want line %d", d[0].Subject, tc.line)
			}
		})
	}
	// Just under the limit loads.
	src := plain + "stage \"fail\" \"f\" {\n  message = \"" + fits + "\"\n}\n"
	if _, d := pipeline.LoadSource(stages.Default(), "p.hcl", []byte(src), pipeline.LoadOptions{Vars: map[string]string{"v": fits}}); d.HasErrors() {
		t.Fatalf("a string under the limit: %.300v", d.Error())
	}
}
