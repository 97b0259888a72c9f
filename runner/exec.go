package runner

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/sysprobe"
	"github.com/hylaflow/hylaflow/pipeline"
)

// Stage statuses, as recorded in the run history.
const (
	StatusCached   = "cached"
	StatusRan      = "ran"
	StatusFailed   = "failed"
	StatusSkipped  = "skipped"
	StatusCanceled = "canceled"
)

// Run statuses.
const (
	RunOK       = "ok"
	RunFailed   = "failed"
	RunCanceled = "canceled"
)

// RunOptions configure Run.
type RunOptions struct {
	PlanOptions
	// Jobs is the number of stages run at once (≤ 0: runtime.NumCPU()).
	Jobs int
	// Cores is the number of cores divided between running stages for
	// Job.Workers (≤ 0: runtime.NumCPU()).
	Cores int
	// KeepGoing continues with every stage that does not depend on a failed
	// one; without it no new stage starts after a failure (running ones finish).
	KeepGoing bool
	// Executor runs the stages (nil: a Local executor on the store).
	Executor Executor
	// Observer receives progress events (nil: none). It must be safe for
	// concurrent use.
	Observer Observer
	// Args are recorded with the run (the command line).
	Args []string
	// Provenance is a JSON document recorded with the run when the store
	// is a ProvenanceStore (nil: none): what produced the run.
	Provenance []byte
	// Plan, if set, is the plan of the run, made by MakePlan with the
	// same PlanOptions against the store Run is given (or the cache under
	// it), so the keys are not computed again. Its lookups are reused when
	// the store is a RemovalCounter whose count has not changed since the
	// plan was made (nothing was removed before Run pinned the keys); else
	// Run looks every key up again.
	Plan *Plan
	// MemMB is the memory budget, in MiB, of the stages the local executor
	// runs at once: a stage starts only while the memory of the running
	// stages plus its own fits, so big stages run one at a time instead of
	// exhausting memory; one that needs more than the whole budget runs
	// alone. A stage counts the larger of its resources { mem } and its
	// type's estimate from its inputs' sizes (MemEstimate), made when its
	// inputs are stored. 0 means 80% of the physical memory; < 0 means no
	// budget. Other executors (Slurm) leave memory to their scheduler.
	MemMB int64
}

// MemBudget reads run's --mem into the budget in MiB: "" is the default
// (DefaultMemMB), "0" none (-1), anything else a size for pipeline.ParseMem.
func MemBudget(flag string) (int64, error) {
	switch strings.TrimSpace(flag) {
	case "":
		return DefaultMemMB(), nil
	case "0":
		return -1, nil
	}
	return pipeline.ParseMem(flag)
}

// LimitHeap sets the Go runtime's soft memory limit to a budget of mb MiB
// (none when mb ≤ 0 or GOMEMLIMIT is set), so that the collector works
// harder as the heap nears the budget instead of letting garbage grow to
// twice the live data.
func LimitHeap(mb int64) {
	if mb > 0 && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(mb << 20)
	}
}

// DefaultMemMB returns the default memory budget: 80% of the memory this
// process may use — the physical memory (MemTotal of /proc/meminfo), or
// its cgroup's limit when that is lower (a container, systemd-run -p
// MemoryMax, a Slurm job) — or -1 (none) when it is unknown.
func DefaultMemMB() int64 {
	total := sysprobe.MemoryBytes()
	if total <= 0 {
		return -1
	}
	return total >> 20 * 8 / 10
}

// StageResult is the outcome of one stage instance in a run.
type StageResult struct {
	Address  string
	Key      string
	Status   string // StatusCached, StatusRan, …
	Reason   string // why it ran, or why it was skipped/canceled
	Start    time.Time
	Duration time.Duration
	Outputs  []cache.OutputRef
	Metrics  map[string]float64
	Err      error // failed: the stage's error
}

// RunResult is the outcome of a run.
type RunResult struct {
	RunID  int64
	Plan   *Plan
	Status string // RunOK, RunFailed, RunCanceled
	// Stages in plan order.
	Stages    []*StageResult
	ByAddress map[string]*StageResult
	Wall      time.Duration
	// Warnings are problems the run worked around, for the user to see:
	// a damaged cached output that was recomputed, a run record removed
	// from the cache while the run went on (cache clear).
	Warnings []string
}

// Count returns how many stages ended with status.
func (r *RunResult) Count(status string) int {
	n := 0
	for _, s := range r.Stages {
		if s.Status == status {
			n++
		}
	}
	return n
}

// Failed returns the stages that failed, in plan order.
func (r *RunResult) Failed() []*StageResult {
	var out []*StageResult
	for _, s := range r.Stages {
		if s.Status == StatusFailed {
			out = append(out, s)
		}
	}
	return out
}

// execStep is the scheduler's state of one plan step.
type execStep struct {
	*Step
	index      int
	res        *StageResult
	dependents []*execStep
	pending    map[string]bool // producer addresses not finished yet
	started    bool
	finished   bool
	force      bool
	retried    bool // recomputed once because a cached output was unreadable
	// inputRetried: retried once after an input's producer was recomputed.
	inputRetried bool
	// A stage whose key another process is computing waits in the
	// scheduler (not in a worker slot) until retryAt; busyWait is its
	// current retry interval.
	retryAt  time.Time
	busyWait time.Duration
	// mem is the memory (MiB) the budget counts for the stage while it
	// runs; memSaid: -v was told it waits for memory.
	mem     int64
	memSaid bool
}

// Retry intervals of a stage whose key another process is computing.
const (
	busyWaitMin = 20 * time.Millisecond
	busyWaitMax = 250 * time.Millisecond
)

type execDone struct {
	step *execStep
	res  *Result
	err  error
	at   time.Time
}

// Run plans p against store and executes the stages that are not cached,
// as many at once as opts.Jobs, each as soon as its inputs are done. It
// records the run and every stage's outcome in store. Stage failures and
// cancellation are reported in the result (Status); the error is for
// problems of the runner itself (planning, the run record).
//
// The run is recorded, and when store is a KeyPinner every planned key is
// marked used, before anything is looked up, so a concurrent `cache gc`
// (which keeps what live runs use) never removes what the plan counts as
// cached. With opts.Plan (looked up before the run was recorded) the
// lookups are reused only when the store's RemovalCounter shows that
// nothing was removed between them and the pin; else they are made again.
func Run(ctx context.Context, p *pipeline.Pipeline, store RunStore, opts RunOptions) (*RunResult, error) {
	start := time.Now()
	if err := checkCommands(p, opts.PlanOptions, false); err != nil {
		return nil, err
	}
	plan := opts.Plan
	if plan != nil {
		if plan.Pipeline != p {
			return nil, fmt.Errorf("run %s: RunOptions.Plan is the plan of another pipeline (%s)", p.File, plan.Pipeline.File)
		}
		if !samePlanOptions(plan.opts, opts.PlanOptions) {
			return nil, fmt.Errorf("run %s: RunOptions.Plan was made with other plan options", p.File)
		}
	} else {
		var err error
		if plan, err = planKeys(p, opts.PlanOptions); err != nil {
			return nil, err
		}
	}
	runID, err := beginRun(store, plan.Pipeline.Name, opts)
	if err != nil {
		return nil, err
	}
	pinned := false
	if pinner, ok := store.(KeyPinner); ok {
		keys := make([]string, len(plan.Steps))
		for i, s := range plan.Steps {
			keys[i] = s.Key()
		}
		if err := pinner.Pin(keys); err != nil {
			store.FinishRun(runID, RunFailed)
			return nil, fmt.Errorf("register the run's keys: %w", err)
		}
		pinned = true
	}
	reuse := false
	if opts.Plan != nil && plan.removals >= 0 {
		// The plan's lookups hold if nothing was removed between them and
		// the pin above; from the pin on, gc keeps the keys of this run.
		if rc, ok := store.(RemovalCounter); ok {
			n, err := rc.Removals()
			reuse = err == nil && n == plan.removals
		}
	}
	if !reuse {
		if err := planLookup(plan, store, opts.PlanOptions); err != nil {
			store.FinishRun(runID, RunFailed)
			return nil, err
		}
	}
	return execute(ctx, plan, store, opts, start, runID, pinned)
}

// samePlanOptions reports whether a and b plan the same way.
func samePlanOptions(a, b PlanOptions) bool {
	return a.NoCache == b.NoCache && a.AllowCommands == b.AllowCommands && slices.Equal(a.Force, b.Force)
}

// Execute runs a plan made by MakePlan (see Run); start is the run's start
// time. The run is recorded after the plan was made, so unlike Run it does
// not protect the plan's cached keys from a concurrent gc.
func Execute(ctx context.Context, plan *Plan, store RunStore, opts RunOptions, start time.Time) (*RunResult, error) {
	if err := checkCommands(plan.Pipeline, opts.PlanOptions, false); err != nil {
		return nil, err
	}
	runID, err := beginRun(store, plan.Pipeline.Name, opts)
	if err != nil {
		return nil, err
	}
	return execute(ctx, plan, store, opts, start, runID, false)
}

// execute runs plan's stages with a scheduler (exec_sched.go) and records
// the run under runID. pinned says that every key of the plan was marked
// used after the run began (KeyPinner), so cached stages need no touch.
func execute(ctx context.Context, plan *Plan, store RunStore, opts RunOptions, start time.Time, runID int64, pinned bool) (*RunResult, error) {
	s := newScheduler(plan, store, opts, start, runID)
	s.pinned = pinned
	s.servedCached()
	s.loop(ctx)
	s.finishRest(ctx)
	return s.finishRun(ctx)
}

// execRetryable reports whether a stage whose input from prod failed to
// load can be retried after (re)computing prod: prod has not been
// recomputed yet, is being recomputed, or was recomputed since es's task
// was built (then es is retried once).
func execRetryable(es, prod *execStep) bool {
	if prod == nil {
		return false
	}
	if !prod.retried || !prod.finished {
		return prod.res.Status == StatusCached || prod.started || prod.retried
	}
	// prod was recomputed after this task was built: retry it once more.
	return !es.inputRetried
}

func findOutput(refs []cache.OutputRef, name string) (cache.OutputRef, bool) {
	for _, r := range refs {
		if r.Name == name {
			return r, true
		}
	}
	return cache.OutputRef{}, false
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
