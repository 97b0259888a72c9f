package stages_test

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/stages"
)

var updateCommand = flag.Bool("update-command", false, "rewrite testdata/command/*.golden")

// TestCommandDiagnostics: validate reports every declaration error of a
// command stage at its place in the file, without running anything
// (golden files in testdata/command).
func TestCommandDiagnostics(t *testing.T) {
	for _, name := range []string{"invalid", "valid"} {
		t.Run(name, func(t *testing.T) {
			_, diags := pipeline.Load(stages.Default(), "testdata/command/"+name+".hcl", pipeline.LoadOptions{})
			var b bytes.Buffer
			if err := pipeline.WriteDiagnostics(&b, diags, 0, false); err != nil {
				t.Fatal(err)
			}
			golden := "testdata/command/" + name + ".golden"
			if *updateCommand {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./stages -run TestCommandDiagnostics -update-command writes it)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("diagnostics differ from %s:\n%s", golden, b.String())
			}
		})
	}
}
