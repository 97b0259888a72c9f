package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
)

// PlanStore is the read-only part of the cache that planning needs.
// *cache.Cache implements it. Planning never writes.
type PlanStore interface {
	// Lookup returns the outputs stored for key (ok false when absent).
	Lookup(key string) (refs []cache.OutputRef, ok bool, err error)
	// LastRecord returns the key record of the most recent run of address.
	LastRecord(address string) (rec *cache.KeyRecord, ok bool, err error)
}

// PipelineHistory is a PlanStore that keeps which runs of a pipeline
// planned which key records (*cache.Cache implements it): MakePlan then
// explains a stage that runs against the latest run of the same pipeline
// ("never run" if it has none), never against another pipeline's stage of
// the same address, and says when a cached key was stored by another
// pipeline.
type PipelineHistory interface {
	// LastKeysOf returns, for each of addresses that a run of pipeline
	// planned, the key the latest such run planned.
	LastKeysOf(pipeline string, addresses []string) (map[string]string, error)
	// Record returns the key record stored for key.
	Record(key string) (rec *cache.KeyRecord, ok bool, err error)
}

// PayloadChecker is a PlanStore that can check stored payloads without
// loading them (*cache.Cache implements it): each file exists with its
// recorded size and, with rehash, its digest. MakePlan uses it to re-hash
// the outputs of the pipeline's leaves before serving them from the cache.
type PayloadChecker interface {
	CheckPayloads(refs []cache.OutputRef, rehash bool) error
}

// RemovalCounter is a PlanStore that counts the removals of stored
// outputs (gc, clear, repair, a damaged payload dropped, a key stored
// again; *cache.Cache implements it): -1 when it cannot tell. Run reuses
// the lookups of a plan made before it registered (RunOptions.Plan) only
// when the count did not change.
type RemovalCounter interface {
	Removals() (int64, error)
}

// LookupPreloader is a PlanStore that can read the index rows of many keys
// in one query before they are looked up one by one (*cache.Cache
// implements it; stores that wrap it keep their own Lookup). done forgets
// what was not looked up.
type LookupPreloader interface {
	PreloadLookups(keys []string) (done func())
}

// Store is the part of the cache an executor needs to run one stage
// instance: find, load and store artifacts, and claim keys so that two
// processes never compute the same key at once. *cache.Cache implements it.
type Store interface {
	PlanStore
	// Load reads and decodes one artifact, verifying its digest; a
	// mismatch returns an error wrapping cache.ErrCorrupt.
	Load(ref cache.OutputRef) (artifact.Artifact, error)
	// Store writes the outputs of rec.Key atomically and returns their refs.
	Store(rec *cache.KeyRecord, outputs map[string]artifact.Artifact) ([]cache.OutputRef, error)
	// Touch marks a key as used now.
	Touch(key string) error
	// Claim takes the lease on key, waiting while another live process holds it.
	Claim(ctx context.Context, key string) (release func(), err error)
}

// KeyPinner is a RunStore that can mark keys as used at once (not
// buffered), so that a gc running beside a live run keeps them. Run pins
// every planned key after recording the run and before looking any up.
// *cache.Cache implements it.
type KeyPinner interface {
	Pin(keys []string) error
}

// RunStore is a Store that also keeps the run history.
// *cache.Cache implements it.
type RunStore interface {
	Store
	BeginRun(pipeline string, args []string) (int64, error)
	RecordStage(runID int64, s cache.StageRecord) error
	FinishRun(runID int64, status string) error
}

// Task is one planned stage instance, ready to execute: its cache key with
// the key's components, its typed parameters and the stored outputs it
// consumes. A Task holds no process state, so it can be shipped to another
// process or machine (see TaskSpec).
type Task struct {
	// Record holds the key (Record.Key), the address and the key's components.
	Record *cache.KeyRecord
	// Type is the registered stage type of Record.StageType.
	Type *registry.Type
	// Params are the typed parameter values (every declared parameter).
	Params registry.Values
	// Inputs gives, per input slot, the stored outputs consumed, in order.
	Inputs map[string][]TaskInput
	// Resources are the instance's resource requests.
	Resources pipeline.Resources
	// Workers is the number of threads the stage may use (≥ 1).
	Workers int
	// Force computes the stage even when its key is already stored.
	Force bool
	// MemBudgetMB is the run's memory budget (run --mem) when the local
	// scheduler runs the task, else 0: the memory limit of a stage that
	// runs an outside program without resources { mem } (Job.MemLimitMB).
	MemBudgetMB int64
}

// Key returns the task's cache key.
func (t *Task) Key() string { return t.Record.Key }

// Address returns the task's instance address.
func (t *Task) Address() string { return t.Record.Address }

// TaskInput is one input artifact of a task.
type TaskInput struct {
	Label string          // address of the producer instance
	Ref   cache.OutputRef // the stored output
}

// Hooks connect a running stage to the caller: its own progress reports and
// log lines. Nil fields discard.
type Hooks struct {
	Progress func(done, total int, msg string)
	Logf     func(format string, args ...any)
}

// Result is what executing a task produced.
type Result struct {
	// Outputs are the stored outputs of the key, in the type's output order.
	Outputs []cache.OutputRef
	// Cached is true when the key turned out to be stored already (another
	// process finished it while this one waited for its claim): nothing ran.
	Cached bool
	// Metrics are the scalar metrics of the stage's KindMetrics outputs
	// (numeric entries of their "metrics" JSON member); nil if none.
	Metrics map[string]float64
	// Artifacts are the decoded outputs when the executor has them in
	// memory (the local executor), else nil. Consumers in the same process
	// use them instead of decoding the stored payloads again.
	Artifacts map[string]artifact.Artifact
	// Duration is the time the stage itself ran (0 when Cached).
	Duration time.Duration
}

// Executor runs one planned stage instance. After Execute returns without
// error the task's outputs are stored in the cache under its key. An
// executor must hold the key's claim while computing, re-check the cache
// after claiming (another process may have finished the key), never store a
// partial result, and return an error wrapping ctx.Err() when canceled.
//
// The local executor (Local) runs stages in this process; a cluster
// executor (executor/slurm) submits jobs that run `hylaflow exec-stage --store`.
// executortest.Run is the conformance suite every executor must pass.
type Executor interface {
	Execute(ctx context.Context, task *Task, hooks Hooks) (*Result, error)
}

// InProcess is implemented by an Executor that runs stages in this process
// (Local). The scheduler applies the memory budget (RunOptions.MemMB) to
// such executors only, and hands the decoded outputs a stage returns
// (Result.Artifacts) to SharedMemo, which its consumers load from; a nil
// memo shares nothing. Executors that run stages elsewhere (Slurm) leave
// memory to their own scheduler.
type InProcess interface {
	SharedMemo() *Memo
}

// StageError is the error of a stage that ran and failed (as opposed to a
// failure of the runner or the cache).
type StageError struct {
	Address string
	Err     error
}

func (e *StageError) Error() string { return fmt.Sprintf("stage %s: %v", e.Address, e.Err) }
func (e *StageError) Unwrap() error { return e.Err }

// InputError reports that an input of a task could not be loaded from the
// cache (for example a corrupt payload); the producer must be recomputed.
type InputError struct {
	Producer string // producer address (the input's label)
	Ref      cache.OutputRef
	Err      error
}

func (e *InputError) Error() string {
	return fmt.Sprintf("input %s/%s of %s: %v", e.Ref.Key, e.Ref.Name, e.Producer, e.Err)
}
func (e *InputError) Unwrap() error { return e.Err }

// TaskSpec is the serialisable form of a Task (JSON), for executors that
// run a task in another process: `hylaflow exec-stage --task FILE`.
type TaskSpec struct {
	Record    cache.KeyRecord        `json:"record"`
	Inputs    map[string][]TaskInput `json:"inputs,omitempty"`
	Resources pipeline.Resources     `json:"resources"`
	Workers   int                    `json:"workers"`
	Force     bool                   `json:"force,omitempty"`
}

// Spec returns the serialisable form of t.
func (t *Task) Spec() *TaskSpec {
	return &TaskSpec{Record: *t.Record, Inputs: t.Inputs, Resources: t.Resources, Workers: t.Workers, Force: t.Force}
}

// MarshalSpec returns t's spec as indented JSON.
func (t *Task) MarshalSpec() ([]byte, error) { return json.MarshalIndent(t.Spec(), "", "  ") }

// TaskFromSpec rebuilds a Task: the stage type from reg (its version must
// match the record's) and the typed parameters decoded from the record's
// canonical JSON by the type's schema. The key is recomputed and must
// match, so a tampered spec cannot store outputs under a foreign key.
func TaskFromSpec(reg *registry.Registry, spec *TaskSpec) (*Task, error) {
	rec := spec.Record
	want := rec.Key
	if cache.ComputeKey(&rec) != want {
		return nil, fmt.Errorf("task %s (%s): key does not match its components (recomputed %s)", want, rec.Address, rec.Key)
	}
	t, ok := reg.Lookup(rec.StageType)
	if !ok {
		return nil, fmt.Errorf("task %s (%s): unknown stage type %q", want, rec.Address, rec.StageType)
	}
	if t.Version != rec.Version {
		return nil, fmt.Errorf("task %s (%s): stage type %q is version %s here, the key was made by version %s",
			want, rec.Address, t.Name, t.Version, rec.Version)
	}
	params, err := registry.DecodeParams(t, rec.Params)
	if err != nil {
		return nil, fmt.Errorf("task %s (%s): %w", want, rec.Address, err)
	}
	if t, err = t.ForInstance(params); err != nil {
		return nil, fmt.Errorf("task %s (%s): %w", want, rec.Address, err)
	}
	for slot, ins := range spec.Inputs {
		refs := rec.Inputs[slot]
		if len(refs) != len(ins) {
			return nil, fmt.Errorf("task %s (%s): input %q has %d artifacts, the key names %d", want, rec.Address, slot, len(ins), len(refs))
		}
		for i, in := range ins {
			if id := in.Ref.ID().String(); refs[i] != id {
				return nil, fmt.Errorf("task %s (%s): input %q[%d] is %s, the key names %s", want, rec.Address, slot, i, id, refs[i])
			}
		}
	}
	workers := max(1, spec.Workers)
	return &Task{Record: &rec, Type: t, Params: params, Inputs: spec.Inputs, Resources: spec.Resources, Workers: workers, Force: spec.Force}, nil
}

// NewTask builds a task outside any pipeline: params are completed with
// the type's defaults (a required parameter must be given), the key record
// is made from the type, the parameters and the inputs' refs (a slot with
// no inputs is left out of the key), and the key is computed. Workers is 1.
func NewTask(t *registry.Type, address string, params registry.Values, inputs map[string][]TaskInput) (*Task, error) {
	full, err := t.Complete(params)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", address, err)
	}
	if t, err = t.ForInstance(full); err != nil {
		return nil, fmt.Errorf("%s: %w", address, err)
	}
	ids := map[string][]cache.OutputID{}
	for slot, ins := range inputs {
		if _, ok := t.Input(slot); !ok {
			return nil, fmt.Errorf("%s: stage type %q has no input %q", address, t.Name, slot)
		}
		for _, in := range ins {
			ids[slot] = append(ids[slot], in.Ref.ID())
		}
	}
	rec, err := keyRecord(t, address, full, ids)
	if err != nil {
		return nil, err
	}
	return &Task{Record: rec, Type: t, Params: full, Inputs: inputs, Workers: 1}, nil
}
