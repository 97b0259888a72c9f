package stages_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	"github.com/hylaflow/hylaflow/stages"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// commandPython is Debian's interpreter with numpy (python3-numpy); a
// pyenv python3 on PATH usually lacks it.
const commandPython = "/usr/bin/python3"

func needPythonNumpy(t *testing.T) {
	t.Helper()
	if out, err := exec.Command(commandPython, "-c", "import numpy").CombinedOutput(); err != nil {
		testenv.Missing(t, "needs numpy importable by %s (apt-get install python3-numpy): %s%v", commandPython, out, err)
	}
}

// commandProgram reads the generic value stage's vector from its input
// npz, doubles it and writes every kind of output; its metrics carry the
// seed and an environment variable it was given.
const commandProgram = `# the test's program
import json, os, sys
import numpy as np

v = np.load(sys.argv[1])["values"]
np.save(sys.argv[2], 2 * v)
np.savez(os.environ["HYLAFLOW_OUTPUT_PAIR"], a=v.reshape(1, -1), idx=np.arange(3))
with open("table.csv", "w") as f:
    f.write("x,y\n1,2\n")
with open("fig.svg", "w") as f:
    f.write('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')
with open("notes.txt", "w") as f:
    f.write("free text")
print("sum", float(v.sum()))
json.dump({"dataset": "cora", "model": "mine", "test": float(v[0]) / 10, "val": 0.25,
           "seed": int(os.environ["HYLAFLOW_SEED"]), "flavour": os.environ.get("FLAVOUR", "none")},
          open("metrics.json", "w"))
`

// commandConsumer reads the first command's array output.
const commandConsumer = `import json, sys
import numpy as np
a = np.load(sys.argv[1])["array"]
json.dump({"dataset": "cora", "model": "consumer", "test": float(a.sum()) / 100, "val": 0.5}, open(sys.argv[2], "w"))
`

const commandPipeline = `
stage "value" "v" {
  values = [1.5, 2, 3]
}

stage "command" "double" {
  argv   = ["/usr/bin/python3", "{dir}/prog.py", "{inputs.v}", "{outputs.doubled}"]
  code   = ["prog.py", "lib"]
  env    = ["FLAVOUR"]
  inputs = { v = stage.value.v }
  seed   = 7

  output "doubled" {
    path = "out/doubled.npy"
    kind = "array"
  }
  output "pair" {
    path = "pair.npz"
    kind = "arrays"
  }
  output "metrics" {
    path = "metrics.json"
    kind = "metrics"
  }
  output "table" {
    path = "table.csv"
    kind = "table"
  }
  output "fig" {
    path = "fig.svg"
    kind = "figure"
  }
  output "notes" {
    path = "notes.txt"
    kind = "file"
  }
}

stage "command" "consume" {
  argv   = ["/usr/bin/python3", "{dir}/consume.py", "{inputs.y}", "{outputs.metrics}"]
  code   = ["consume.py"]
  inputs = { y = stage.command.double.doubled }

  output "metrics" {
    path = "m.json"
    kind = "metrics"
  }
}

stage "evaluate" "t" {
  runs       = [stage.command.double.metrics, stage.command.consume]
  compare_to = "none"
}
`

// commandDir writes the pipeline and its programs into a fresh directory.
func commandDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{
		"p.hcl": commandPipeline, "prog.py": commandProgram, "consume.py": commandConsumer,
		"lib/helper.py": "X = 1\n",
	} {
		commandWrite(t, dir, name, src)
	}
	return dir
}

// commandWrite writes dir/name, making its directory.
func commandWrite(t *testing.T, dir, name, src string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commandLoad(t *testing.T, file string) *pipeline.Pipeline {
	t.Helper()
	p, diags := pipeline.Load(stages.Default(), file, pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	return p
}

func commandRun(t *testing.T, p *pipeline.Pipeline, store *executortest.MemStore) *runner.RunResult {
	t.Helper()
	res, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 2, PlanOptions: runner.PlanOptions{AllowCommands: true}})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if res.Status != runner.RunOK {
		for _, s := range res.Stages {
			t.Logf("%s: %s %v", s.Address, s.Status, s.Err)
		}
		t.Fatalf("run: %s", res.Status)
	}
	return res
}

func commandOutput(t *testing.T, store *executortest.MemStore, res *runner.RunResult, addr, out string) *bundle.Bundle {
	t.Helper()
	for _, ref := range res.ByAddress[addr].Outputs {
		if ref.Name == out {
			a, err := store.Load(ref)
			if err != nil {
				t.Fatal(err)
			}
			return a.(*bundle.Bundle)
		}
	}
	t.Fatalf("%s has no output %q", addr, out)
	return nil
}

// TestCommandPipeline: a command stage runs a program on an input written
// as npz, its outputs of every kind are checked and stored, another
// command consumes one of them, evaluate takes their metrics as rows; the
// run is refused without consent, an unchanged rerun is fully cached, and
// editing the program (a comment) or a module, or changing a declared
// variable, reruns that stage and what follows, with the reason in plan.
func TestCommandPipeline(t *testing.T) {
	needPythonNumpy(t)
	t.Setenv("FLAVOUR", "vanilla")
	dir := commandDir(t)
	file := filepath.Join(dir, "p.hcl")
	p := commandLoad(t, file)
	store := executortest.NewMemStore()

	_, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 1})
	var refused *runner.CommandsRefused
	if !errors.As(err, &refused) || !errors.Is(err, runner.ErrCommandsNotAllowed) ||
		!strings.Contains(err.Error(), "command.double: /usr/bin/python3 {dir}/prog.py {inputs.v} {outputs.doubled}") ||
		!strings.Contains(err.Error(), "command.consume:") || !strings.Contains(err.Error(), "--allow-commands") {
		t.Fatalf("run without consent: %v", err)
	}
	if len(store.Keys()) != 0 {
		t.Fatalf("a refused run stored %v", store.Keys())
	}

	res := commandRun(t, p, store)
	doubled := commandOutput(t, store, res, "command.double", "doubled")
	if v, err := doubled.Floats("array"); err != nil || fmt.Sprint(v) != "[3 4 6]" || doubled.Kind() != schema.KindArray {
		t.Errorf("doubled = %v, %v (%s)", v, err, doubled.Kind())
	}
	pair := commandOutput(t, store, res, "command.double", "pair")
	if a, err := pair.Dense("a"); err != nil || a.At(0, 2) != 3 {
		t.Errorf("pair a = %v, %v", a, err)
	}
	if idx, err := pair.Ints("idx"); err != nil || fmt.Sprint(idx) != "[0 1 2]" {
		t.Errorf("pair idx = %v, %v", idx, err)
	}
	m := commandOutput(t, store, res, "command.double", "metrics").Metrics()
	if m["test"] != 0.15 || m["val"] != 0.25 || m["seed"] != 7 {
		t.Errorf("metrics %v", m)
	}
	var doc map[string]any
	commandOutput(t, store, res, "command.double", "metrics").JSON(schema.MemberMetrics, &doc)
	if doc["flavour"] != "vanilla" {
		t.Errorf("the declared variable reached the program as %v", doc["flavour"])
	}
	for out, member := range map[string]string{"table": "table.csv", "fig": "fig.svg", "notes": "notes.txt"} {
		if b, err := commandOutput(t, store, res, "command.double", out).File(member); err != nil || len(b) == 0 {
			t.Errorf("output %s member %s: %v", out, member, err)
		}
	}
	if c := commandOutput(t, store, res, "command.consume", "metrics").Metrics(); c["test"] != 0.13 {
		t.Errorf("consumer metrics %v (want the doubled sum 13 / 100)", c)
	}
	var tab struct {
		Cells []struct {
			Model string
			Mean  *float64
		}
	}
	tb, err := commandOutput(t, store, res, "evaluate.t", "table").File("table.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(tb, &tab); err != nil {
		t.Fatal(err)
	}
	means := map[string]float64{}
	for _, c := range tab.Cells {
		if c.Mean != nil {
			means[c.Model] = *c.Mean
		}
	}
	if math.Abs(means["mine"]-15) > 1e-9 || math.Abs(means["consumer"]-13) > 1e-9 {
		t.Errorf("evaluate rows %v", means)
	}

	plan := func() map[string]string {
		t.Helper()
		pl, err := runner.MakePlan(commandLoad(t, file), store, runner.PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		why := map[string]string{}
		for _, s := range pl.Steps {
			if !s.Cached {
				why[s.Instance.Address] = s.Reason
			}
		}
		return why
	}
	if why := plan(); len(why) != 0 {
		t.Fatalf("unchanged pipeline plans to run %v", why)
	}
	if again := commandRun(t, commandLoad(t, file), store); again.Count(runner.StatusRan) != 0 {
		t.Fatalf("unchanged rerun ran %d stages", again.Count(runner.StatusRan))
	}

	for _, c := range []struct {
		name   string
		change func()
		want   map[string]string
	}{
		{"comment in the program", func() { appendFile(t, filepath.Join(dir, "prog.py"), "# tuned\n") },
			map[string]string{"command.double": "code prog.py changed"}},
		{"module in a code directory", func() { appendFile(t, filepath.Join(dir, "lib", "helper.py"), "Y = 2\n") },
			map[string]string{"command.double": "code lib/helper.py changed"}},
		{"declared variable", func() { t.Setenv("FLAVOUR", "chocolate") },
			map[string]string{"command.double": "env FLAVOUR changed"}},
		{"consumer only", func() { appendFile(t, filepath.Join(dir, "consume.py"), "# x\n") },
			map[string]string{"command.consume": "code consume.py changed"}},
	} {
		c.change()
		// Python's byte-code cache beside the code is not code.
		commandWrite(t, dir, "lib/__pycache__/helper.cpython-311.pyc", c.name)
		why := plan()
		for addr, want := range c.want {
			if why[addr] != want {
				t.Errorf("%s: %s plans %q, want %q (all: %v)", c.name, addr, why[addr], want, why)
			}
		}
		if _, ok := why["value.v"]; ok {
			t.Errorf("%s: the producer reruns", c.name)
		}
		if why["evaluate.t"] == "" {
			t.Errorf("%s: evaluate does not rerun (%v)", c.name, why)
		}
		res := commandRun(t, commandLoad(t, file), store)
		if res.ByAddress["value.v"].Status != runner.StatusCached {
			t.Errorf("%s: value.v %s", c.name, res.ByAddress["value.v"].Status)
		}
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// A second edit within the file system's time resolution keeps size
	// and mtime apart from the first only by size; make it plain.
	future := time.Now().Add(time.Duration(len(s)) * time.Second)
	os.Chtimes(path, future, future)
}

// TestCommandFailures: a program that fails, hangs past resources.time,
// exceeds its memory, writes no output, a malformed one or one of the
// wrong shape fails its stage with the program's last lines, its whole
// process group is gone, and nothing is stored under its key.
func TestCommandFailures(t *testing.T) {
	needPythonNumpy(t)
	cases := []struct {
		name      string
		script    string
		kind      string
		path      string
		resources string
		want      []string
	}{
		{"exit status", `import sys; print("loading"); print("boom: no GPU", file=sys.stderr); sys.exit(3)`, "metrics", "m.json", "",
			[]string{"exit status 3", "boom: no GPU", "loading"}},
		{"hangs", `import subprocess, time; subprocess.Popen(["sleep", "300"]); print("started", flush=True); time.sleep(300)`, "metrics", "m.json",
			"resources {\n    time = \"3s\"\n  }", []string{"time limit of 3s"}},
		{"memory", `import time; print("allocating", flush=True); a = b"x" * (400 << 20); time.sleep(60)`, "metrics", "m.json",
			"resources {\n    mem = \"100M\"\n  }", []string{"memory limit of 100 MiB", "allocating"}},
		{"no output", `print("done, forgot to save")`, "metrics", "m.json", "", []string{"did not write it", "forgot to save"}},
		{"malformed metrics", `open("m.json", "w").write("{not json")`, "metrics", "m.json", "", []string{"not a JSON object"}},
		{"nan metric", `open("m.json", "w").write('{"test": NaN}')`, "metrics", "m.json", "", []string{"NaN", "finite numbers"}},
		{"nested metric", `open("m.json", "w").write('{"test": [1]}')`, "metrics", "m.json", "", []string{"numbers, strings and booleans"}},
		{"not npy", `open("a.npy", "w").write("hello")`, "array", "a.npy", "", []string{"a.npy"}},
		{"3-d array", `import numpy as np; np.save("a.npy", np.zeros((2, 2, 2)))`, "array", "a.npy", "", []string{"shape [2 2 2]"}},
		{"bad png", `open("f.png", "wb").write(b"GIF89a")`, "figure", "f.png", "", []string{"not a PNG image"}},
		{"symlink out", `import os; os.symlink("/etc/passwd", "notes.txt")`, "file", "notes.txt", "", []string{"not a regular file"}},
		{"ragged csv", `open("t.csv", "w").write("a,b\n1\n")`, "table", "t.csv", "", []string{"not a CSV table"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "pid")
			testenv.WriteFile(t, dir, "prog.py", "import os\nopen(os.environ['PIDFILE'], 'w').write(str(os.getpid()))\n"+c.script+"\n")
			testenv.WriteFile(t, dir, "p.hcl", fmt.Sprintf(`
stage "command" "c" {
  argv = ["/usr/bin/python3", "{dir}/prog.py"]
  code = ["prog.py"]
  env  = ["PIDFILE"]

  output "o" {
    path = %q
    kind = %q
  }
  %s
}
`, c.path, c.kind, c.resources))
			t.Setenv("PIDFILE", pidFile)
			p := commandLoad(t, filepath.Join(dir, "p.hcl"))
			store := executortest.NewMemStore()
			start := time.Now()
			res, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 1, PlanOptions: runner.PlanOptions{AllowCommands: true}})
			if err != nil {
				t.Fatal(err)
			}
			st := res.ByAddress["command.c"]
			if res.Status != runner.RunFailed || st.Status != runner.StatusFailed || st.Err == nil {
				t.Fatalf("status %s / %s, err %v", res.Status, st.Status, st.Err)
			}
			for _, w := range c.want {
				if !strings.Contains(st.Err.Error(), w) {
					t.Errorf("error does not say %q:\n%v", w, st.Err)
				}
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("the failure took %s", d)
			}
			if _, ok, _ := store.Lookup(st.Key); ok || len(store.Keys()) != 0 {
				t.Errorf("a failed command stored outputs: %v", store.Keys())
			}
			commandGroupGone(t, pidFile)
		})
	}
}

// commandGroupGone checks that no process of the program's group lives.
func commandGroupGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the program did not start: %v", err)
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still lives", pgid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCommandCancel: canceling the run (Ctrl-C) kills the program's whole
// process group and stores nothing.
func TestCommandCancel(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	testenv.WriteFile(t, dir, "p.hcl", fmt.Sprintf(`
stage "command" "c" {
  argv = ["/bin/sh", "-c", "echo $$ > %s; sleep 300 & sleep 300"]

  output "o" {
    path = "x"
    kind = "file"
  }
}
`, pidFile))
	p := commandLoad(t, filepath.Join(dir, "p.hcl"))
	store := executortest.NewMemStore()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(pidFile); err == nil {
				time.Sleep(200 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	res, err := runner.Run(ctx, p, store, runner.RunOptions{Jobs: 1, PlanOptions: runner.PlanOptions{AllowCommands: true}})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if res != nil && res.Status != runner.RunCanceled {
		t.Errorf("status %s", res.Status)
	}
	if len(store.Keys()) != 0 {
		t.Errorf("a canceled command stored %v", store.Keys())
	}
	commandGroupGone(t, pidFile)
}

// TestCommandEnvironment: the program sees PATH, HOME, LANG, the declared
// variables and the stage's own, nothing else of this process.
func TestCommandEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SECRET_TOKEN", "hunter2")
	t.Setenv("PASSED", "yes")
	testenv.WriteFile(t, dir, "p.hcl", `
stage "command" "c" {
  argv = ["/bin/sh", "-c", "/usr/bin/env > env.txt"]
  env  = ["PASSED"]
  seed = 3

  output "o" {
    path = "env.txt"
    kind = "file"
  }
}
`)
	p := commandLoad(t, filepath.Join(dir, "p.hcl"))
	store := executortest.NewMemStore()
	res := commandRun(t, p, store)
	b, err := commandOutput(t, store, res, "command.c", "o").File("env.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		got[k] = v
	}
	if got["PASSED"] != "yes" || got["HYLAFLOW_SEED"] != "3" || got["PATH"] != os.Getenv("PATH") || got["HYLAFLOW_WORKDIR"] == "" {
		t.Errorf("environment %v", got)
	}
	if _, leaked := got["SECRET_TOKEN"]; leaked {
		t.Error("an undeclared variable reached the program")
	}
	allowed := map[string]bool{"PATH": true, "HOME": true, "LANG": true, "PASSED": true, "PWD": true, "SHLVL": true, "_": true,
		"HYLAFLOW_SEED": true, "HYLAFLOW_WORKDIR": true, "HYLAFLOW_THREADS": true, "HYLAFLOW_OUTPUT_O": true,
		"OMP_NUM_THREADS": true, "OPENBLAS_NUM_THREADS": true, "MKL_NUM_THREADS": true}
	for k := range got {
		if !allowed[k] {
			t.Errorf("the program sees %s", k)
		}
	}
}

// TestCommandVersionArgv: version_argv's output is part of the key (a new
// version reruns the stage, with the reason), planning it needs consent,
// and a version_argv that fails fails planning.
func TestCommandVersionArgv(t *testing.T) {
	dir := t.TempDir()
	write := func(version string) {
		testenv.WriteFile(t, dir, "p.hcl", fmt.Sprintf(`
stage "command" "c" {
  argv         = ["/bin/sh", "-c", "echo hi > o.txt"]
  version_argv = ["/bin/sh", "-c", "cat VERSION; echo 'DeprecationWarning: x' >&2"]

  output "o" {
    path = "o.txt"
    kind = "file"
  }
}
`))
		commandWrite(t, dir, "VERSION", version+"\n")
	}
	write("lib 1.0")
	file := filepath.Join(dir, "p.hcl")
	store := executortest.NewMemStore()
	if _, err := runner.MakePlan(commandLoad(t, file), store, runner.PlanOptions{}); !errors.Is(err, runner.ErrCommandsNotAllowed) ||
		!strings.Contains(err.Error(), "command.c: /bin/sh -c 'cat VERSION; echo '\\''DeprecationWarning: x'\\'' >&2'") {
		t.Fatalf("planning without consent: %v", err)
	}
	res := commandRun(t, commandLoad(t, file), store)
	rec, _, _ := store.Record(res.ByAddress["command.c"].Key)
	if !strings.Contains(rec.Fingerprint, "version\t\"lib 1.0\"\n") { // stdout only, trimmed
		t.Errorf("the key record does not hold the version output: %q", rec.Fingerprint)
	}
	write("lib 2.0")
	time.Sleep(2100 * time.Millisecond) // past the memo that serves the instances of one plan
	pl, err := runner.MakePlan(commandLoad(t, file), store, runner.PlanOptions{AllowCommands: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := pl.ByAddress["command.c"]; s.Cached || s.Reason != "version changed" {
		t.Errorf("after an upgrade: cached %v, reason %q", s.Cached, s.Reason)
	}
	testenv.WriteFile(t, dir, "p.hcl", `
stage "command" "c" {
  argv         = ["/bin/true"]
  version_argv = ["/bin/sh", "-c", "echo no such module >&2; exit 1"]

  output "o" {
    path = "o.txt"
    kind = "file"
  }
}
`)
	if _, err := runner.MakePlan(commandLoad(t, file), store, runner.PlanOptions{AllowCommands: true}); err == nil ||
		!strings.Contains(err.Error(), "no such module") {
		t.Errorf("a failing version_argv planned: %v", err)
	}
}

// TestCommandMissingCode: a code file that is not there is an error when
// the stage is planned, never a key computed without it.
func TestCommandMissingCode(t *testing.T) {
	dir := t.TempDir()
	testenv.WriteFile(t, dir, "p.hcl", `
stage "command" "c" {
  argv = ["/bin/true"]
  code = ["train.py"]

  output "o" {
    path = "o.txt"
    kind = "file"
  }
}
`)
	_, err := runner.MakePlan(commandLoad(t, filepath.Join(dir, "p.hcl")), nil, runner.PlanOptions{})
	if err == nil || !strings.Contains(err.Error(), "code train.py") {
		t.Errorf("plan with a missing code file: %v", err)
	}
}
