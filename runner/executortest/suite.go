package executortest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
)

// Env is what the conformance suite runs against: an executor and the
// store it writes to (for a cluster executor, the store the driver reads).
type Env struct {
	Executor runner.Executor
	Store    runner.Store
	// Registry holds the stage types the suite's tasks use (value, random,
	// scale, sleep, fail) as the executor's workers know them; nil means
	// Types(). An executor whose workers are another program (a hylaflow
	// binary) sets it to that program's registry.
	Registry *registry.Registry
	// Values reads the vector of an output of those types; nil means
	// VectorValues.
	Values func(artifact.Artifact) ([]float64, error)
}

// Run runs the conformance suite: every executor must pass it. newEnv
// returns a fresh executor and empty store for each subtest. The tasks use
// the stage types of Env.Registry (by default Types(), this package's
// stages over Vectors).
func Run(t *testing.T, newEnv func(t *testing.T) Env) {
	ctx := context.Background()
	hooks := runner.Hooks{}

	mk := func(t *testing.T, env Env, typ, addr string, params registry.Values, inputs map[string][]runner.TaskInput) *runner.Task {
		t.Helper()
		reg := env.Registry
		if reg == nil {
			reg = Types()
		}
		st, ok := reg.Lookup(typ)
		if !ok {
			t.Fatalf("no stage type %q", typ)
		}
		task, err := runner.NewTask(st, addr, params, inputs)
		if err != nil {
			t.Fatal(err)
		}
		return task
	}
	exec := func(t *testing.T, env Env, task *runner.Task) *runner.Result {
		t.Helper()
		res, err := env.Executor.Execute(ctx, task, hooks)
		if err != nil {
			t.Fatalf("execute %s: %v", task.Address(), err)
		}
		return res
	}
	load := func(t *testing.T, env Env, ref cache.OutputRef) []float64 {
		t.Helper()
		a, err := env.Store.Load(ref)
		if err != nil {
			t.Fatalf("load %s/%s: %v", ref.Key, ref.Name, err)
		}
		values := env.Values
		if values == nil {
			values = VectorValues
		}
		v, err := values(a)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	t.Run("StoresOutputs", func(t *testing.T) {
		env := newEnv(t)
		task := mk(t, env, "value", "value.a", registry.Values{"values": []float64{1, 2.5, -3}}, nil)
		res := exec(t, env, task)
		if res.Cached {
			t.Fatal("a fresh key reported as cached")
		}
		refs, ok, err := env.Store.Lookup(task.Key())
		if err != nil || !ok {
			t.Fatalf("key not stored after Execute: ok=%v err=%v", ok, err)
		}
		if len(res.Outputs) != 1 || res.Outputs[0] != refs[0] || refs[0].Name != "out" || refs[0].Key != task.Key() {
			t.Fatalf("result outputs %+v, stored %+v", res.Outputs, refs)
		}
		if got := load(t, env, refs[0]); !equalFloats(got, []float64{1, 2.5, -3}) {
			t.Fatalf("stored values %v, want [1 2.5 -3]", got)
		}
	})

	t.Run("InputsAndLabels", func(t *testing.T) {
		env := newEnv(t)
		src := mk(t, env, "value", "value.src", registry.Values{"values": []float64{1, 2}}, nil)
		r1 := exec(t, env, src)
		task := mk(t, env, "scale", "scale.x", registry.Values{"factor": 3.0, "offset": 0.5},
			map[string][]runner.TaskInput{"in": {{Label: "value.src", Ref: r1.Outputs[0]}}})
		r2 := exec(t, env, task)
		if got := load(t, env, r2.Outputs[0]); !equalFloats(got, []float64{3.5, 6.5}) {
			t.Fatalf("scale output %v, want [3.5 6.5]", got)
		}
	})

	t.Run("CachedKeyNotRecomputed", func(t *testing.T) {
		env := newEnv(t)
		task := mk(t, env, "random", "random.a", registry.Values{"n": 5, "seed": 1}, nil)
		r1 := exec(t, env, task)
		r2 := exec(t, env, task)
		if !r2.Cached || r2.Duration != 0 {
			t.Fatalf("second Execute of a stored key: Cached=%v Duration=%v, want cached", r2.Cached, r2.Duration)
		}
		if r1.Outputs[0].Digest != r2.Outputs[0].Digest {
			t.Fatal("cached result names other outputs")
		}
	})

	t.Run("ForceRecomputesIdentically", func(t *testing.T) {
		env := newEnv(t)
		task := mk(t, env, "random", "random.a", registry.Values{"n": 64, "seed": 7}, nil)
		r1 := exec(t, env, task)
		task.Force = true
		r2 := exec(t, env, task)
		if r2.Cached {
			t.Fatal("forced task reported cached")
		}
		if r1.Outputs[0].Digest != r2.Outputs[0].Digest {
			t.Fatalf("recomputing a key changed its output digest: %s vs %s", r1.Outputs[0].Digest, r2.Outputs[0].Digest)
		}
	})

	t.Run("SeedsDiffer", func(t *testing.T) {
		env := newEnv(t)
		a := exec(t, env, mk(t, env, "random", "random.a", registry.Values{"n": 8, "seed": 1}, nil))
		b := exec(t, env, mk(t, env, "random", "random.b", registry.Values{"n": 8, "seed": 2}, nil))
		va, vb := load(t, env, a.Outputs[0]), load(t, env, b.Outputs[0])
		if equalFloats(va, vb) {
			t.Fatal("two seeds gave the same random vector")
		}
		want := make([]float64, 8)
		rng := registry.NewRNG(registry.SeedFor(1, "random"))
		for i := range want {
			want[i] = rng.NormFloat64()
		}
		if !equalFloats(va, want) {
			t.Fatalf("random stage not drawn from the job's seeded RNG: %v vs %v", va, want)
		}
		// Common random numbers: another n (a different cache key) with the
		// same seed draws the same stream, so the shorter vector is a prefix.
		c := exec(t, env, mk(t, env, "random", "random.c", registry.Values{"n": 5, "seed": 1}, nil))
		if vc := load(t, env, c.Outputs[0]); !equalFloats(vc, va[:5]) {
			t.Fatalf("same seed, other n: %v is not a prefix of %v", vc, va)
		}
	})

	t.Run("StageFailureStoresNothing", func(t *testing.T) {
		env := newEnv(t)
		task := mk(t, env, "fail", "fail.x", registry.Values{"message": "boom 42"}, nil)
		_, err := env.Executor.Execute(ctx, task, hooks)
		if err == nil || !strings.Contains(err.Error(), "boom 42") {
			t.Fatalf("error %v, want the stage's message", err)
		}
		if _, ok, _ := env.Store.Lookup(task.Key()); ok {
			t.Fatal("a failed stage stored outputs")
		}
		// The claim is released: running it again fails again, it does not hang.
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if _, err := env.Executor.Execute(c, task, hooks); err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("second run of a failing stage: %v", err)
		}
	})

	t.Run("CancelStoresNothing", func(t *testing.T) {
		env := newEnv(t)
		task := mk(t, env, "sleep", "sleep.x", registry.Values{"ms": 20000}, nil)
		c, cancel := context.WithCancel(ctx)
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		_, err := env.Executor.Execute(c, task, hooks)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled Execute returned %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("cancellation took %v", d)
		}
		if _, ok, _ := env.Store.Lookup(task.Key()); ok {
			t.Fatal("a canceled stage stored outputs")
		}
	})

	t.Run("ConcurrentSameKeyComputesOnce", func(t *testing.T) {
		env := newEnv(t)
		task := mk(t, env, "sleep", "sleep.x", registry.Values{"ms": 300}, nil)
		results := make(chan *runner.Result, 2)
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				r, err := env.Executor.Execute(ctx, task, hooks)
				results <- r
				errs <- err
			}()
		}
		cached := 0
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
			if (<-results).Cached {
				cached++
			}
		}
		if cached != 1 {
			t.Fatalf("two concurrent executions of one key: %d reported cached, want exactly 1 (the claim must serialise them)", cached)
		}
	})
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
