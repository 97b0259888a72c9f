package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The command parses flags and prints; the maths lives in packages with
// their own tests (the kernel command's in kernelcheck, the stages' in
// stages). This test fails if cmd/hylaflow imports a numerical library
// directly again.
func TestCmdImportsNoMaths(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := strings.Fields(string(out))
	if len(imports) < 10 {
		t.Fatalf("go list listed only %v", imports)
	}
	for _, imp := range imports {
		for _, bad := range []string{"gonum.org/", "github.com/hylaflow/hylaflow/hyla", "github.com/hylaflow/hylaflow/nn",
			"github.com/hylaflow/hylaflow/train", "github.com/hylaflow/hylaflow/sparse"} {
			if imp == bad || strings.HasPrefix(imp, strings.TrimSuffix(bad, "/")+"/") {
				t.Errorf("cmd/hylaflow imports %s; move that use into a package (kernelcheck, stages, runreport …)", imp)
			}
		}
	}
}
