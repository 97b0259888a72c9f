package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
)

// RecordStore is a Store that can return the key record stored for a key
// (the cache keeps every key's components). *cache.Cache implements it.
type RecordStore interface {
	Store
	Record(key string) (rec *cache.KeyRecord, ok bool, err error)
}

// ExecKey runs the stage instance of one cache key on its own, outside any
// pipeline: it rebuilds the Job from the key record stored in the cache
// (parameters decoded by the stage type's schema), loads the inputs the
// record names from the cache, runs the stage with the local executor and
// stores its outputs. A key that is stored already is not recomputed
// unless force is set. This is `hylaflow exec-stage KEY`.
func ExecKey(ctx context.Context, store RecordStore, reg *registry.Registry, key string, workers int, force bool, hooks Hooks) (*Result, error) {
	rec, ok, err := store.Record(key)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", key, err)
	}
	if !ok {
		return nil, fmt.Errorf("key %s: no key record in the cache (plan the pipeline that makes it, or pass a task file)", key)
	}
	spec := &TaskSpec{Record: *rec, Inputs: map[string][]TaskInput{}, Workers: workers, Force: force}
	for slot, refs := range rec.Inputs {
		list := make([]TaskInput, 0, len(refs))
		for i, r := range refs {
			id, err := cache.ParseOutputID(r)
			if err != nil {
				return nil, fmt.Errorf("key %s: input %q[%d] = %w", key, slot, i, err)
			}
			pkey, out := id.Key, id.Output
			outs, ok, err := store.Lookup(pkey)
			if err != nil {
				return nil, fmt.Errorf("key %s: input %q[%d]: %w", key, slot, i, err)
			}
			if !ok {
				return nil, fmt.Errorf("key %s: input %q[%d]: producer key %s is not in the cache", key, slot, i, pkey)
			}
			ref, ok := findOutput(outs, out)
			if !ok {
				return nil, fmt.Errorf("key %s: input %q[%d]: producer key %s has no output %q", key, slot, i, pkey, out)
			}
			label := pkey
			if prec, ok, err := store.Record(pkey); err == nil && ok && prec.Address != "" {
				label = prec.Address
			}
			list = append(list, TaskInput{Label: label, Ref: ref})
		}
		spec.Inputs[slot] = list
	}
	return ExecSpec(ctx, store, reg, spec, hooks)
}

// ExecSpec runs a task given as a TaskSpec (see TaskFromSpec) with the
// local executor on store.
func ExecSpec(ctx context.Context, store Store, reg *registry.Registry, spec *TaskSpec, hooks Hooks) (*Result, error) {
	task, err := TaskFromSpec(reg, spec)
	if err != nil {
		return nil, err
	}
	return (&Local{Store: store}).Execute(ctx, task, hooks)
}

// ExecSpecFile runs the task spec in file (TaskSpec's JSON, as MarshalSpec
// writes it) with workers threads, forced when force or the spec says so.
// This is `hylaflow exec-stage --task FILE`.
func ExecSpecFile(ctx context.Context, store Store, reg *registry.Registry, file string, workers int, force bool, hooks Hooks) (*Result, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var spec TaskSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, fmt.Errorf("%s: not a task spec: %w", file, err)
	}
	spec.Workers, spec.Force = workers, spec.Force || force
	return ExecSpec(ctx, store, reg, &spec, hooks)
}

// StampedHooks are Hooks that print a stage's progress and log lines on w,
// each after the time of day.
func StampedHooks(w io.Writer) Hooks {
	return Hooks{
		Progress: func(done, total int, msg string) {
			fmt.Fprintf(w, "%s progress %d/%d %s\n", time.Now().Format("15:04:05"), done, total, msg)
		},
		Logf: func(format string, a ...any) {
			fmt.Fprintf(w, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
		},
	}
}
