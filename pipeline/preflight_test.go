package pipeline

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// TestPreflight checks that Preflight asks each instance's type, reports a
// finding shared by several instances once with their count, keeps the
// pipeline's instance order and points at the first instance's block.
func TestPreflight(t *testing.T) {
	reg := registry.New()
	run := func(context.Context, *registry.Job) (map[string]artifact.Artifact, error) { return nil, nil }
	reg.MustRegister(&registry.Type{
		Name: "data", Version: "1", Run: run,
		Params:  []registry.Param{{Name: "name", Type: registry.String, Required: true}},
		Outputs: []registry.Output{{Name: "out", Kind: schema.KindValue}},
		Preflight: func(p registry.Values) []registry.Problem {
			if n := p.String("name"); strings.HasPrefix(n, "missing") {
				return []registry.Problem{registry.Warningf("name", "Missing data files", "Dataset %s is missing.", n)}
			}
			return nil
		},
	})
	reg.MustRegister(&registry.Type{Name: "other", Version: "1", Run: run,
		Outputs: []registry.Output{{Name: "out", Kind: schema.KindValue}}})
	src := `
stage "data" "present" { name = "here" }
stage "data" "b" {
  for_each = toset(["1", "2", "3"])
  name = "missing-b"
}
stage "other" "o" {}
stage "data" "a" { name = "missing-a" }
stage "data" "b2" { name = "missing-b" }
`
	p, diags := LoadSource(reg, "pre.hcl", []byte(src), LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := Preflight(p)
	want := []struct {
		detail string
		line   int
	}{
		{"Dataset missing-a is missing.", 8},
		{"Dataset missing-b is missing. (Also 3 other stage instances.)", 9}, // data.b2 comes before data.b["1"]
	}
	if len(got) != len(want) {
		t.Fatalf("got %d diagnostics, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		d := got[i]
		if d.Severity != hcl.DiagWarning || d.Summary != "Missing data files" || d.Detail != w.detail ||
			d.Subject == nil || d.Subject.Start.Line != w.line {
			t.Errorf("diagnostic %d = %v %q %q at %v, want a warning %q on line %d", i, d.Severity, d.Summary, d.Detail, d.Subject, w.detail, w.line)
		}
	}
}
