package executortest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
)

// RunCommand is the conformance suite's part for a stage type that runs a
// program the pipeline names (the built-in `command` stage): the executor
// must give the program its input as a file, derive the instance's
// declared outputs wherever it runs the task (a task shipped to another
// process rebuilds them from the key record), store them in declaration
// order, recompute them identically, and store nothing when the program
// fails, with its output in the error. Env.Registry must hold the
// built-in `value` and `command` types (stages.Default()); the program is
// /bin/sh.
func RunCommand(t *testing.T, newEnv func(t *testing.T) Env) {
	ctx := context.Background()
	hooks := runner.Hooks{}
	mk := func(t *testing.T, env Env, typ, addr string, params registry.Values, inputs map[string][]runner.TaskInput) *runner.Task {
		t.Helper()
		if env.Registry == nil {
			t.Fatal("RunCommand needs Env.Registry with the command stage type (stages.Default())")
		}
		st, ok := env.Registry.Lookup(typ)
		if !ok {
			t.Fatalf("the registry has no stage type %q", typ)
		}
		task, err := runner.NewTask(st, addr, params, inputs)
		if err != nil {
			t.Fatal(err)
		}
		return task
	}
	outputs := func(names ...string) []map[string]string {
		var o []map[string]string
		for _, n := range names {
			o = append(o, map[string]string{"name": n, "path": n + ".out", "kind": "file"})
		}
		return o
	}

	t.Run("CommandStage", func(t *testing.T) {
		env := newEnv(t)
		src, err := env.Executor.Execute(ctx, mk(t, env, "value", "value.v", registry.Values{"values": []float64{1, 2.5}}, nil), hooks)
		if err != nil {
			t.Fatal(err)
		}
		in := src.Outputs[0]
		task := mk(t, env, "command", "command.c", registry.Values{
			"argv": []string{"/bin/sh", "-c", `cat "$HYLAFLOW_INPUT_V" > copy.out && printf %s "$HYLAFLOW_SEED" > seed.out`},
			"seed": 5, "outputs": outputs("seed", "copy"),
		}, map[string][]runner.TaskInput{"inputs.v": {{Label: "value.v", Ref: in}}})
		res, err := env.Executor.Execute(ctx, task, hooks)
		if err != nil {
			t.Fatalf("execute the command stage: %v", err)
		}
		if len(res.Outputs) != 2 || res.Outputs[0].Name != "seed" || res.Outputs[1].Name != "copy" {
			t.Fatalf("outputs %+v, want seed then copy (declaration order)", res.Outputs)
		}
		member := func(i int, name string) []byte {
			t.Helper()
			a, err := env.Store.Load(res.Outputs[i])
			if err != nil {
				t.Fatal(err)
			}
			b, err := a.MemberFile(name)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		if got := string(member(0, "seed.out")); got != "5" {
			t.Errorf("the program saw HYLAFLOW_SEED %q, want 5", got)
		}
		ia, err := env.Store.Load(in)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := ia.Encode(&want); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(member(1, "copy.out"), want.Bytes()) {
			t.Error("the input file the program read is not the input artifact's encoding")
		}
		task.Force = true
		again, err := env.Executor.Execute(ctx, task, hooks)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res.Outputs {
			if again.Outputs[i].Digest != res.Outputs[i].Digest {
				t.Errorf("recomputing output %s changed its digest", res.Outputs[i].Name)
			}
		}
	})

	t.Run("CommandFailureStoresNothing", func(t *testing.T) {
		env := newEnv(t)
		task := mk(t, env, "command", "command.f", registry.Values{
			"argv": []string{"/bin/sh", "-c", "echo partial > a.out; echo kaput 17 >&2; exit 4"}, "outputs": outputs("a"),
		}, nil)
		c, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		_, err := env.Executor.Execute(c, task, hooks)
		if err == nil || !strings.Contains(err.Error(), "kaput 17") {
			t.Fatalf("error %v, want the program's last line", err)
		}
		if _, ok, _ := env.Store.Lookup(task.Key()); ok {
			t.Fatal("a failed command stored outputs")
		}
	})
}
