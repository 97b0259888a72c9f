package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The pipeline engine is domain-agnostic: it moves opaque artifacts
// (package artifact) and knows no maths, so it builds without the
// numerical libraries and the stages. This test fails if the engine's
// packages ever depend on them again (tests excluded: they may use the
// built-in stages).
func TestEngineDependsOnNoMaths(t *testing.T) {
	engine := []string{
		"github.com/hylaflow/hylaflow/artifact",
		"github.com/hylaflow/hylaflow/cache",
		"github.com/hylaflow/hylaflow/executor",
		"github.com/hylaflow/hylaflow/executor/slurm",
		"github.com/hylaflow/hylaflow/pipeline",
		"github.com/hylaflow/hylaflow/registry",
		"github.com/hylaflow/hylaflow/runner",
		"github.com/hylaflow/hylaflow/runner/executortest",
		"github.com/hylaflow/hylaflow/runner/supervise",
		"github.com/hylaflow/hylaflow/internal/cli",
	}
	forbidden := []string{
		"gonum.org/",
		"github.com/hylaflow/hylaflow/sparse",
		"github.com/hylaflow/hylaflow/hyla",
		"github.com/hylaflow/hylaflow/nn",
		"github.com/hylaflow/hylaflow/train",
		"github.com/hylaflow/hylaflow/datasets",
		"github.com/hylaflow/hylaflow/stages",
		"github.com/hylaflow/hylaflow/artifact/bundle",
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Fatalf("no go command to list the engine's dependencies: %v", err)
		}
	}
	for _, pkg := range engine {
		out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			msg := ""
			if ee, ok := err.(*exec.ExitError); ok {
				msg = string(ee.Stderr)
			}
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, msg)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 10 {
			t.Fatalf("go list -deps %s listed only %v", pkg, deps)
		}
		for _, f := range forbidden {
			var bad []string
			for _, d := range deps {
				if d == f || strings.HasPrefix(d, f) && (strings.HasSuffix(f, "/") || strings.HasPrefix(d, f+"/")) {
					bad = append(bad, d)
				}
			}
			if len(bad) > 0 {
				t.Errorf("%s depends on %s (%d packages, e.g. %s); the engine must not (see package artifact)",
					pkg, f, len(bad), bad[0])
			}
		}
	}
}
