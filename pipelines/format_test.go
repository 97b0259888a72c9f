package pipelines_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/stages"
)

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPipelinesFormatted checks that every shipped pipeline is in the
// layout `hylaflow fmt` writes (hclwrite.Format) and that formatting keeps
// variable validation blocks working.
func TestPipelinesFormatted(t *testing.T) {
	files, err := filepath.Glob("*.hcl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no pipelines: %v", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := hclwrite.Format(src)
		if !bytes.Equal(out, src) {
			t.Errorf("%s is not formatted: run hylaflow fmt %s", f, f)
		}
	}
	// A messy copy of table1.hcl (validation blocks indented badly)
	// formats back to the file, and its validation rules still reject a
	// bad -var with the rule's message.
	messy := bytes.ReplaceAll(mustRead(t, "table1.hcl"), []byte("\n  validation {"), []byte("\n      validation    {"))
	formatted := hclwrite.Format(messy)
	_, diags := pipeline.LoadSource(stages.Default(), "table1.hcl", formatted,
		pipeline.LoadOptions{Vars: map[string]string{"hyperparameters": "foo"}})
	if len(diags) != 1 || !strings.HasPrefix(diags[0].Detail, "hyperparameters must be one of") {
		t.Errorf("formatted table1.hcl with -var hyperparameters=foo: %v", diags)
	}
	if !bytes.Equal(formatted, mustRead(t, "table1.hcl")) {
		t.Error("formatting a messy copy of table1.hcl does not give table1.hcl back")
	}
}
