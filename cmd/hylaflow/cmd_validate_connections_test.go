package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cli"
)

// TestValidateConnections: validate (and plan, which loads the same way)
// refuses stages whose connections cannot work, each problem located at
// its attribute (testdata/validate/connections.golden; go test -run
// TestValidateConnections -update-validate rewrites it): hyla train
// without samples, samples and initial embedding of different d0, and a
// node-level train on a feature-level precompute. Before the stage types'
// CheckConnections hook, validate said ok and the runs failed.
func TestValidateConnections(t *testing.T) {
	file := filepath.Join("testdata", "validate", "connections.hcl")
	for _, cmd := range []string{"validate", "plan"} {
		var stdout, stderr bytes.Buffer
		args := []string{cmd, file}
		if cmd == "plan" {
			args = append(args, "--cache", t.TempDir())
		}
		code := app.Dispatch(args, &stdout, &stderr)
		if code != cli.ExitInvalid {
			t.Errorf("%s: exit %d, want %d\n%s%s", cmd, code, cli.ExitInvalid, stdout.String(), stderr.String())
		}
		got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, stdout.String(), stderr.String())
		golden := filepath.Join("testdata", "validate", "connections_"+cmd+".golden")
		if *validateCmdUpdate {
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (go test -run TestValidateConnections -update-validate writes it)", err)
		}
		if got != string(want) {
			t.Errorf("%s: output differs from %s; got:\n%s\nwant:\n%s", cmd, golden, got, want)
		}
	}
}
