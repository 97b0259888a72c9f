package pipeline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestVariableValidation sets a validated variable from its default, a
// -var-file and -var, and checks which values pass, what the error says
// (the rule's message, the value and its origin) and where it points.
func TestVariableValidation(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "p.hcl")
	src := `variable "mode" {
  type    = string
  default = "plain"

  validation {
    condition     = contains(["plain", "weighted"], var.mode)
    error_message = "mode must be plain or weighted."
  }
}

variable "sizes" {
  type    = list(number)
  default = [1]

  validation {
    condition     = length(var.sizes) > 0
    error_message = "sizes must not be empty."
  }
  validation {
    condition     = length([for s in var.sizes : s if s < 0]) == 0
    error_message = "sizes must be ≥ 0."
  }
}

stage "source" "a" {
  name  = "a"
  mode  = var.mode
  sizes = var.sizes
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	varFile := filepath.Join(dir, "v.hcl")
	if err := os.WriteFile(varFile, []byte("mode = \"sparse\"\nsizes = [3, -2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	goodFile := filepath.Join(dir, "good.hcl")
	if err := os.WriteFile(goodFile, []byte("mode = \"weighted\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		opts LoadOptions
		want []string // "LINE: detail fragment"; none: valid
	}{
		{"defaults", LoadOptions{}, nil},
		{"good -var", LoadOptions{Vars: map[string]string{"mode": "weighted", "sizes": "[0, 5]"}}, nil},
		{"good file", LoadOptions{VarFiles: []string{goodFile}}, nil},
		{"bad -var", LoadOptions{Vars: map[string]string{"mode": "foo"}}, []string{
			`1: mode must be plain or weighted.` + "\n\n" + `Variable "mode" is "foo" (from -var mode=foo); the rule is on line 5.`}},
		{"two rules, one fails", LoadOptions{Vars: map[string]string{"sizes": "[]"}}, []string{
			`11: sizes must not be empty.` + "\n\n" + `Variable "sizes" is [] (from -var sizes=[]); the rule is on line 15.`}},
		{"bad file", LoadOptions{VarFiles: []string{varFile}}, []string{
			`1: mode must be plain or weighted.` + "\n\n" + `Variable "mode" is "sparse" (from the variables file ` + varFile + `); the rule is on line 5.`,
			`2: sizes must be ≥ 0.` + "\n\n" + `Variable "sizes" is [3, -2] (from the variables file ` + varFile + `); the rule is on line 19.`}},
		{"-var overrides a bad file", LoadOptions{VarFiles: []string{varFile}, Vars: map[string]string{"mode": "plain", "sizes": "[2]"}}, nil},
	}
	reg := loadTestRegistry(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, diags := Load(reg, file, c.opts)
			var got []string
			for _, d := range diags {
				if d.Summary != "Invalid value for variable" {
					t.Errorf("unexpected diagnostic %s: %s", d.Summary, d.Detail)
					continue
				}
				got = append(got, strings.TrimSpace(strings.Join([]string{strconv.Itoa(d.Subject.Start.Line), d.Detail}, ": ")))
			}
			if strings.Join(got, "\n---\n") != strings.Join(c.want, "\n---\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n---\n"), strings.Join(c.want, "\n---\n"))
			}
			if (p != nil) != (len(c.want) == 0) {
				t.Errorf("pipeline returned = %v with %d errors", p != nil, len(c.want))
			}
		})
	}
}
