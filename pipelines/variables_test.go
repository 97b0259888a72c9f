package pipelines_test

import (
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/stages"
)

// TestVariableValidation checks that the shipped pipelines' enum-like
// variables reject a bad -var with the allowed values (their validation
// blocks) rather than an error deep inside an expression, and accept every
// documented value.
func TestVariableValidation(t *testing.T) {
	reg := stages.Default()
	cases := []struct {
		file, name, value string
		want              string // "" = valid
	}{
		{"table1.hcl", "hyperparameters", "foo", "hyperparameters must be one of json, appendix, json50d, grid or validated."},
		{"table1.hcl", "airport_split", "overlap", "airport_split must be code or disjoint."},
		{"table1.hcl", "reddit", "yes", "reddit must be one of off, auto, files or synthetic."},
		{"table1.hcl", "seeds", "[]", "seeds must be a non-empty list"},
		{"table1.hcl", "epochs", "-3", "epochs must be a whole number ≥ 0"},
		{"table2.hcl", "hyperparameters", "grid", "hyperparameters must be one of appendix, json or validated."},
		{"table2.hcl", "datasets", `["r8", "20ng"]`, "datasets must be a non-empty list drawn from r8, r52, ohsumed and mr."},
		{"table2.hcl", "settings", `["both"]`, "settings must be a non-empty list drawn from transductive and inductive."},
		{"table2.hcl", "epochs", "0", "epochs must be a whole number ≥ 1."},
	}
	for _, v := range []string{"json", "appendix", "json50d", "grid", "validated"} {
		cases = append(cases, struct{ file, name, value, want string }{"table1.hcl", "hyperparameters", v, ""})
	}
	for _, v := range []string{"off", "auto", "files", "synthetic"} {
		cases = append(cases, struct{ file, name, value, want string }{"table1.hcl", "reddit", v, ""})
	}
	for _, v := range []string{"appendix", "json", "validated"} {
		cases = append(cases, struct{ file, name, value, want string }{"table2.hcl", "hyperparameters", v, ""})
	}
	cases = append(cases, struct{ file, name, value, want string }{"table2.hcl", "datasets", `["mr"]`, ""})
	for _, c := range cases {
		p, diags := pipeline.Load(reg, c.file, pipeline.LoadOptions{Vars: map[string]string{c.name: c.value}})
		if c.want == "" {
			if diags.HasErrors() {
				t.Errorf("%s -var %s=%s: %v", c.file, c.name, c.value, diags)
			}
			continue
		}
		if p != nil || len(diags) != 1 {
			t.Errorf("%s -var %s=%s: got %d diagnostics, want one: %v", c.file, c.name, c.value, len(diags), diags)
			continue
		}
		d := diags[0]
		if d.Summary != "Invalid value for variable" || !strings.HasPrefix(d.Detail, c.want) ||
			!strings.Contains(d.Detail, "(from -var "+c.name+"="+c.value+")") {
			t.Errorf("%s -var %s=%s: %s: %s", c.file, c.name, c.value, d.Summary, d.Detail)
		}
	}
}
