package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

var validateCmdUpdate = flag.Bool("update-validate", false, "rewrite the golden files in testdata/validate")

func validateCmdTestRun(context.Context, *registry.Job) (map[string]artifact.Artifact, error) {
	return nil, fmt.Errorf("test stages do not run")
}

// validateCmdTestRegistry holds test-only stage types, so the golden files
// do not change whenever a real stage gains a parameter.
func validateCmdTestRegistry() *registry.Registry {
	r := registry.New()
	r.MustRegister(&registry.Type{
		Name: "source", Version: "1", Doc: "Makes a graph.", Run: validateCmdTestRun,
		Params: []registry.Param{
			{Name: "name", Type: registry.String, Required: true, Doc: "dataset name"},
			{Name: "n", Type: registry.Int, Default: 10, Doc: "number of nodes"},
			{Name: "mode", Type: registry.String, Default: "plain", Enum: []string{"plain", "weighted"}, Doc: "edge weights"},
			{Name: "scales", Type: registry.Floats, Default: []float64{0.5, 1}},
			{Name: "tags", Type: registry.Strings, Default: []string{"a"}},
		},
		Outputs: []registry.Output{{Name: "graph", Kind: schema.KindGraph, Doc: "the graph"}},
	})
	r.MustRegister(&registry.Type{
		Name: "train", Version: "3", Doc: "Trains a model.", Run: validateCmdTestRun,
		Params: []registry.Param{{Name: "seed", Type: registry.Int, Default: 0, Doc: "seed"}},
		Inputs: []registry.Input{{Name: "data", Kind: schema.KindGraph, Doc: "the graph"}},
		Outputs: []registry.Output{
			{Name: "model", Kind: schema.KindModel, Doc: "parameters"},
			{Name: "metrics", Kind: schema.KindMetrics},
		},
	})
	r.MustRegister(&registry.Type{
		Name: "collect", Version: "1", Run: validateCmdTestRun,
		Inputs:  []registry.Input{{Name: "runs", Kind: artifact.KindAny, Many: true}, {Name: "base", Kind: schema.KindMetrics, Optional: true}},
		Outputs: []registry.Output{{Name: "table", Kind: schema.KindTable}},
	})
	if err := r.AddFunction(registry.Function{Name: "answer", Doc: "answer(): 42, a function of the stage library.",
		Make: func(string) function.Function {
			return function.New(&function.Spec{Type: function.StaticReturnType(cty.Number),
				Impl: func([]cty.Value, cty.Type) (cty.Value, error) { return cty.NumberIntVal(42), nil }})
		}}); err != nil {
		panic(err)
	}
	return r
}

// TestFrontCommands runs validate, graph, stages and fmt through dispatch
// and compares exit code, stdout and stderr with golden files.
func TestFrontCommands(t *testing.T) {
	saved := cliRegistry
	cliRegistry = validateCmdTestRegistry
	t.Cleanup(func() { cliRegistry = saved })
	dir := filepath.Join("testdata", "validate")
	ok, bad := filepath.Join(dir, "ok.hcl"), filepath.Join(dir, "bad.hcl")
	tmp := t.TempDir()
	messy, _ := os.ReadFile(filepath.Join(dir, "messy.hcl"))
	messyCopy := filepath.Join(tmp, "messy.hcl")
	if err := os.WriteFile(messyCopy, messy, 0o640); err != nil {
		t.Fatal(err)
	}
	varFile := filepath.Join(tmp, "seeds.hcl")
	if err := os.WriteFile(varFile, []byte("seeds = [7, 8, 9]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want int
	}{
		{"validate_ok", []string{"validate", ok}, cli.ExitOK},
		{"validate_bad", []string{"validate", ok, bad}, cli.ExitInvalid},
		{"validate_json", []string{"validate", bad, "-json"}, cli.ExitInvalid},
		{"validate_json_ok", []string{"validate", "-json", ok}, cli.ExitOK},
		{"validate_var", []string{"validate", "-var", "seeds=[1, 2, 3]", ok}, cli.ExitOK},
		{"validate_var_file", []string{"validate", "-var-file", varFile, ok}, cli.ExitOK},
		{"validate_unknown_var", []string{"validate", ok, "-var", "sedes=[1]"}, cli.ExitInvalid},
		{"validate_bad_var_flag", []string{"validate", "-var", "noequals", ok}, cli.ExitUsage},
		{"validate_missing_file", []string{"validate", filepath.Join(dir, "nope.hcl")}, cli.ExitInvalid},
		{"validate_no_args", []string{"validate"}, cli.ExitUsage},
		{"validate_help", []string{"validate", "--help"}, cli.ExitOK},
		{"graph_dot", []string{"graph", ok}, cli.ExitOK},
		{"graph_mermaid", []string{"graph", "--format", "mermaid", ok}, cli.ExitOK},
		{"graph_bad_format", []string{"graph", "--format", "png", ok}, cli.ExitUsage},
		{"graph_invalid", []string{"graph", bad}, cli.ExitInvalid},
		{"graph_help", []string{"graph", "-h"}, cli.ExitOK},
		{"stages_all", []string{"stages"}, cli.ExitOK},
		{"stages_one_json", []string{"stages", "train", "--json"}, cli.ExitOK},
		{"stages_unknown", []string{"stages", "trian"}, cli.ExitUsage},
		{"fmt_check", []string{"fmt", "--check", filepath.Join(dir, "messy.hcl"), ok}, cli.ExitFailed},
		{"fmt_broken", []string{"fmt", filepath.Join(dir, "broken.hcl")}, cli.ExitInvalid},
		{"fmt_write", []string{"fmt", messyCopy}, cli.ExitOK},
		{"fmt_write_again", []string{"fmt", "--check", messyCopy}, cli.ExitOK},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := app.Dispatch(c.args, &stdout, &stderr)
			got := fmt.Sprintf("$ hylaflow %s\nexit %d\n--- stdout\n%s--- stderr\n%s",
				strings.Join(c.args, " "), code, stdout.String(), stderr.String())
			got = strings.ReplaceAll(got, tmp, "<tmp>")
			if code != c.want {
				t.Errorf("exit %d, want %d\n%s", code, c.want, got)
			}
			golden := filepath.Join(dir, c.name+".golden")
			if *validateCmdUpdate {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/hylaflow -run TestFrontCommands -update-validate)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s; got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
	formatted, err := os.ReadFile(messyCopy)
	if err != nil {
		t.Fatal(err)
	}
	want := "stage \"source\" \"cora\" {\n  name = \"cora\"\n  n    = 5\n  mode = \"plain\"\n}\n"
	if string(formatted) != want {
		t.Errorf("fmt wrote:\n%s\nwant:\n%s", formatted, want)
	}
	if st, err := os.Stat(messyCopy); err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("fmt changed the file mode: %v %v", st.Mode(), err)
	}
}
