package runner_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

const mod = "github.com/hylaflow/hylaflow/"

// A room of the engine and what it must not depend on, directly or not
// (tests excluded: they may use the built-in stages and the CLI's views).
type roomRule struct {
	room      string   // what the rule is about, for the message
	pkgs      []string // the room's packages, relative to the module
	forbidden []string // import paths; a trailing "/" forbids everything below
	why       string
}

// maths is what no engine package may depend on: the pipeline engine is
// domain-agnostic, it moves opaque artifacts (package artifact) and knows
// no maths, so it builds without the numerical libraries and the stages.
var maths = []string{
	"gonum.org/",
	mod + "sparse",
	mod + "hyla",
	mod + "nn",
	mod + "train",
	mod + "datasets",
	mod + "stages",
	mod + "artifact/bundle",
}

// cli is the command line and the terminal: commands, their framework and
// the progress views.
var cli = []string{
	mod + "cmd/",
	mod + "internal/cli",
	mod + "internal/progress",
	"golang.org/x/term",
}

// The rooms (docs/architecture.md): the language knows no plan, cache or
// executor; the runner knows no executor package and no terminal (it
// emits events to a runner.Observer); executors build on the runner but
// never on the CLI; and nothing of the engine knows the maths.
var roomRules = []roomRule{
	{
		room: "engine",
		pkgs: []string{"artifact", "cache", "remote", "registry", "pipeline", "runner", "runner/executortest", "runner/supervise",
			"executor", "executor/slurm", "slurm", "internal/cli", "internal/progress", "internal/sysprobe"},
		forbidden: maths,
		why:       "the engine must not know the maths (see package artifact)",
	},
	{
		room:      "pipeline",
		pkgs:      []string{"pipeline"},
		forbidden: append([]string{mod + "runner", mod + "executor", mod + "slurm", mod + "cache"}, cli...),
		why:       "the language turns a file into instances; planning, caching and executing build on it, not the reverse",
	},
	{
		room:      "runner",
		pkgs:      []string{"runner", "runner/executortest", "runner/supervise"},
		forbidden: append([]string{mod + "executor", mod + "slurm"}, cli...),
		why:       "the runner sees executors only through runner.Executor and shows progress only through runner.Observer",
	},
	{
		room:      "executor",
		pkgs:      []string{"executor", "executor/slurm"},
		forbidden: cli,
		why:       "an executor runs stages for any front end; flags and output stay in the CLI",
	},
}

var (
	depsOnce sync.Once
	goTool   string
	depsMu   sync.Mutex
	depsOf   = map[string][]string{}
)

// deps lists pkg's dependencies (go list -deps, tests excluded).
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	depsOnce.Do(func() {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goTool); err != nil {
			goTool, _ = exec.LookPath("go")
		}
	})
	if goTool == "" {
		t.Fatal("no go command to list the dependencies")
	}
	depsMu.Lock()
	defer depsMu.Unlock()
	if d, ok := depsOf[pkg]; ok {
		return d
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, msg)
	}
	d := strings.Fields(string(out))
	if !slices.Contains(d, pkg) || len(d) < 5 {
		t.Fatalf("go list -deps %s listed only %v", pkg, d)
	}
	depsOf[pkg] = d
	return d
}

// violations returns the dependencies that match a forbidden path.
func violations(deps []string, forbidden string) []string {
	var bad []string
	for _, d := range deps {
		if d == forbidden || strings.HasSuffix(forbidden, "/") && strings.HasPrefix(d, forbidden) ||
			strings.HasPrefix(d, forbidden+"/") {
			bad = append(bad, d)
		}
	}
	return bad
}

// TestRoomImports enforces the rooms' import rules with go list -deps.
func TestRoomImports(t *testing.T) {
	for _, r := range roomRules {
		for _, p := range r.pkgs {
			pkg := mod + p
			ds := deps(t, pkg)
			for _, f := range r.forbidden {
				if bad := violations(ds, f); len(bad) > 0 {
					t.Errorf("%s (%s room) depends on %s (%d packages, e.g. %s): %s",
						p, r.room, strings.TrimSuffix(f, "/"), len(bad), bad[0], r.why)
				}
			}
		}
	}
}

// The check sees the edges that exist: without that, a broken listing
// would pass every rule. Each pair is an allowed edge across rooms.
func TestRoomImportsSeeRealEdges(t *testing.T) {
	for _, e := range []struct{ from, to string }{
		{"runner", mod + "pipeline"},                // the runner plans loaded pipelines
		{"executor/slurm", mod + "runner"},          // an executor implements runner.Executor
		{"executor/slurm", mod + "slurm"},           // through Slurm's commands
		{"internal/progress", mod + "runner"},       // the display is a runner.Observer
		{"runner", mod + "internal/sysprobe"},       // the default memory budget
		{"internal/cli", "golang.org/x/term"},       // the CLI knows the terminal
		{"cmd/hylaflow", mod + "executor"},          // run builds an executor from its flags
		{"cmd/hylaflow", mod + "internal/progress"}, // and shows progress
	} {
		if len(violations(deps(t, mod+e.from), strings.TrimSuffix(e.to, "/"))) == 0 {
			t.Errorf("go list -deps %s does not list %s: the room rules would see nothing", e.from, e.to)
		}
	}
	if got := violations([]string{mod + "executor", mod + "executor/slurm", mod + "executorx"}, mod+"executor"); len(got) != 2 {
		t.Errorf("violations of %sexecutor = %v, want the package and its subpackage only", mod, got)
	}
	if got := violations([]string{mod + "cmd/hylaflow", mod + "cmdx"}, mod+"cmd/"); len(got) != 1 {
		t.Errorf("violations of %scmd/ = %v, want cmd/hylaflow only", mod, got)
	}
}
