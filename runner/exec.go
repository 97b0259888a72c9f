package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/cache"
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
	// MemMB is the memory budget, in MiB, of the stages the local executor
	// runs at once: a stage starts only while the declared memory of the
	// running stages plus its own (resources { mem }) fits, so big stages
	// run one at a time instead of exhausting memory; one that needs more
	// than the whole budget runs alone. Stages that declare nothing count
	// 0. 0 means 80% of the physical memory; < 0 means no budget. Other
	// executors (Slurm) leave memory to their scheduler.
	MemMB int64
}

// ParseMem reads a memory size as resources { mem } does ("8G", "512M",
// "1.5GB", "2048" = MiB) into MiB, rounding up.
func ParseMem(s string) (int64, error) { return parseMem(s) }

// DefaultMemMB returns the default memory budget: 80% of the physical
// memory (MemTotal of /proc/meminfo), or -1 (none) when it is unknown.
func DefaultMemMB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 {
					return kb / 1024 * 8 / 10
				}
			}
		}
	}
	return -1
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
// cached.
func Run(ctx context.Context, p *Pipeline, store RunStore, opts RunOptions) (*RunResult, error) {
	start := time.Now()
	plan, err := planKeys(p, opts.PlanOptions)
	if err != nil {
		return nil, err
	}
	runID, err := beginRun(store, plan.Pipeline.Name, opts)
	if err != nil {
		return nil, err
	}
	if pinner, ok := store.(KeyPinner); ok {
		keys := make([]string, len(plan.Steps))
		for i, s := range plan.Steps {
			keys[i] = s.Key()
		}
		if err := pinner.Pin(keys); err != nil {
			store.FinishRun(runID, RunFailed)
			return nil, fmt.Errorf("register the run's keys: %w", err)
		}
	}
	if err := planLookup(plan, store, opts.PlanOptions); err != nil {
		store.FinishRun(runID, RunFailed)
		return nil, err
	}
	return execute(ctx, plan, store, opts, start, runID)
}

// Execute runs a plan made by MakePlan (see Run); start is the run's start
// time. The run is recorded after the plan was made, so unlike Run it does
// not protect the plan's cached keys from a concurrent gc.
func Execute(ctx context.Context, plan *Plan, store RunStore, opts RunOptions, start time.Time) (*RunResult, error) {
	runID, err := beginRun(store, plan.Pipeline.Name, opts)
	if err != nil {
		return nil, err
	}
	return execute(ctx, plan, store, opts, start, runID)
}

func execute(ctx context.Context, plan *Plan, store RunStore, opts RunOptions, start time.Time, runID int64) (*RunResult, error) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	cores := opts.Cores
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	exe := opts.Executor
	if exe == nil {
		exe = NewLocal(store)
	}
	obs := opts.Observer
	if obs == nil {
		obs = nopObserver{}
	}
	var memo *Memo
	budget := int64(-1)
	if l, ok := exe.(*Local); ok {
		memo = l.Memo
		budget = opts.MemMB
		if budget == 0 {
			budget = DefaultMemMB()
		}
	}
	result := &RunResult{RunID: runID, Plan: plan, ByAddress: map[string]*StageResult{}}
	forced := map[string]bool{}
	for _, f := range opts.Force {
		forced[f] = true
	}

	steps := make([]*execStep, len(plan.Steps))
	byAddr := map[string]*execStep{}
	for i, s := range plan.Steps {
		es := &execStep{Step: s, index: i, pending: map[string]bool{},
			res:   &StageResult{Address: s.Instance.Address, Key: s.Key(), Reason: s.Reason},
			force: opts.NoCache || forced[s.Instance.Address] || forced[s.Instance.Block] || s.Damaged}
		steps[i] = es
		byAddr[s.Instance.Address] = es
		if s.Damaged {
			result.Warnings = append(result.Warnings, fmt.Sprintf("%s: %s; recomputing it", s.Instance.Address, s.Reason))
		}
		result.Stages = append(result.Stages, es.res)
		result.ByAddress[es.res.Address] = es.res
	}
	for _, es := range steps {
		seen := map[string]bool{}
		for _, refs := range es.Instance.Inputs {
			for _, r := range refs {
				if seen[r.Producer] {
					continue
				}
				seen[r.Producer] = true
				prod := byAddr[r.Producer]
				prod.dependents = append(prod.dependents, es)
				if !prod.Cached {
					es.pending[r.Producer] = true
				}
			}
		}
	}
	// Decoded artifacts are shared between the consumers in this process;
	// count the loads each output will serve so the memo can drop it after
	// the last one.
	uses := map[string]int{}
	if memo != nil {
		for _, es := range steps {
			if es.Cached {
				continue
			}
			for _, refs := range es.Instance.Inputs {
				for _, r := range refs {
					uses[r.Producer+"\x00"+r.Output]++
				}
			}
		}
		for _, es := range steps {
			if !es.Cached {
				continue
			}
			for _, ref := range es.Outputs {
				if n := uses[es.Instance.Address+"\x00"+ref.Name]; n > 0 {
					memo.Expect(ref.Key, ref.Name, n)
				}
			}
		}
	}

	var recordErr error
	record := func(es *execStep) {
		r := es.res
		err := store.RecordStage(runID, cache.StageRecord{
			Address: r.Address, Key: r.Key, Status: r.Status, Reason: r.Reason,
			Start: r.Start, Duration: r.Duration, Error: errString(r.Err), Metrics: r.Metrics,
		})
		if err != nil && recordErr == nil {
			recordErr = fmt.Errorf("record stage %s: %w", r.Address, err)
		}
		obs.Event(Event{Kind: EventDone, Time: time.Now(), Address: r.Address, Status: r.Status,
			Reason: r.Reason, Duration: r.Duration, Err: r.Err})
	}
	finish := func(es *execStep, status, reason string) {
		es.finished = true
		es.res.Status = status
		if reason != "" {
			es.res.Reason = reason
		}
		record(es)
	}

	obs.Event(Event{Kind: EventPlan, Time: start, Total: len(steps)})
	// Cached steps are done before anything runs.
	var ready []*execStep
	for _, es := range steps {
		if es.Cached {
			es.res.Start = start
			es.res.Outputs = es.Outputs
			if err := store.Touch(es.Key()); err != nil && recordErr == nil {
				recordErr = fmt.Errorf("touch %s: %w", es.Key(), err)
			}
			finish(es, StatusCached, "")
		}
	}
	for _, es := range steps {
		if !es.Cached && len(es.pending) == 0 {
			ready = append(ready, es)
		}
	}

	stageCtx, cancelStages := context.WithCancel(ctx)
	defer cancelStages()
	// Executors that can return a BusyError instead of waiting for a key
	// another process computes; such stages wait in `waiting` while the
	// worker slots run other ready stages.
	execCtx := withoutClaimWait(stageCtx)
	var waiting []*execStep
	doneCh := make(chan execDone)
	running := 0
	stopping := false // after a failure without KeepGoing
	var keyLocks sync.Map
	var failedBy string
	// Memory admission: the declared memory of the running stages.
	var memUsed int64
	fits := func(es *execStep) bool {
		return budget < 0 || running == 0 || memUsed+es.Instance.Resources.MemMB <= budget
	}
	if budget >= 0 {
		for _, es := range steps {
			if m := es.Instance.Resources.MemMB; m > budget && !es.Cached {
				result.Warnings = append(result.Warnings, fmt.Sprintf("%s declares mem %d MiB, more than the memory budget of %d MiB (--mem): it runs alone", es.Instance.Address, m, budget))
			}
		}
	}

	// skipDependents marks every transitive dependent of es skipped.
	var skipDependents func(es *execStep, cause string)
	skipDependents = func(es *execStep, cause string) {
		for _, d := range es.dependents {
			if d.finished || d.started {
				continue
			}
			d.res.Start = time.Now()
			finish(d, StatusSkipped, "input from "+cause+" failed")
			skipDependents(d, cause)
		}
	}
	launch := func(es *execStep) {
		es.started = true
		running++
		memUsed += es.Instance.Resources.MemMB
		task := &Task{Record: es.Record, Type: es.Instance.Type, Params: es.Instance.Params,
			Inputs: map[string][]TaskInput{}, Resources: es.Instance.Resources, Force: es.force}
		for slot, refs := range es.Instance.Inputs {
			list := make([]TaskInput, 0, len(refs))
			for _, r := range refs {
				prod := byAddr[r.Producer]
				ref, _ := findOutput(prod.res.Outputs, r.Output)
				if ref.Key == "" {
					ref = cache.OutputRef{Key: prod.Key(), Name: r.Output}
				}
				list = append(list, TaskInput{Label: r.Producer, Ref: ref})
			}
			task.Inputs[slot] = list
		}
		// Divide the cores between the stages running once this launch
		// round is over, so a batch of stages gets equal shares.
		task.Workers = max(1, cores/max(1, min(jobs, running+len(ready))))
		if c := es.Instance.Resources.CPUs; c > 0 {
			task.Workers = min(task.Workers, c)
		}
		addr := es.Instance.Address
		es.res.Start = time.Now()
		if es.busyWait == 0 {
			// A retry after another process held the key is not a new start
			// (-v would print one line per retry).
			obs.Event(Event{Kind: EventStart, Time: es.res.Start, Address: addr, Reason: es.res.Reason})
		}
		hooks := Hooks{
			Progress: func(done, total int, msg string) {
				obs.Event(Event{Kind: EventProgress, Time: time.Now(), Address: addr, Done: done, Total: total, Msg: msg})
			},
			Logf: func(format string, args ...any) {
				obs.Event(Event{Kind: EventLog, Time: time.Now(), Address: addr, Msg: fmt.Sprintf(format, args...)})
			},
		}
		go func() {
			// Two instances with the same key run one after the other in
			// this process; the second finds the first's outputs.
			mu, _ := keyLocks.LoadOrStore(task.Key(), &sync.Mutex{})
			mu.(*sync.Mutex).Lock()
			res, err := exe.Execute(execCtx, task, hooks)
			mu.(*sync.Mutex).Unlock()
			doneCh <- execDone{step: es, res: res, err: err, at: time.Now()}
		}()
	}

	for {
		canceled := ctx.Err() != nil
		// Ready stages in plan order; one that does not fit the memory
		// budget now is passed over for smaller ones, and starts when
		// enough running stages have finished.
		for i := 0; !stopping && !canceled && running < jobs && i < len(ready); {
			if es := ready[i]; fits(es) {
				ready = append(ready[:i], ready[i+1:]...)
				launch(es)
				continue
			}
			i++
		}
		// Free slots retry the stages another process was computing.
		var nextRetry time.Time
		if !stopping && !canceled {
			now := time.Now()
			for i := 0; i < len(waiting) && running < jobs; {
				if es := waiting[i]; (!es.retryAt.After(now) && fits(es)) || len(es.pending) > 0 {
					waiting = append(waiting[:i], waiting[i+1:]...)
					// A stage whose input is being recomputed meanwhile
					// returns to ready when that is done.
					if len(es.pending) == 0 {
						launch(es)
					}
					continue
				}
				i++
			}
			for _, es := range waiting {
				if nextRetry.IsZero() || es.retryAt.Before(nextRetry) {
					nextRetry = es.retryAt
				}
			}
		}
		if running == 0 && nextRetry.IsZero() {
			break
		}
		var retry <-chan time.Time
		var timer *time.Timer
		if !nextRetry.IsZero() {
			timer = time.NewTimer(time.Until(nextRetry))
			retry = timer.C
		}
		var d execDone
		got := true
		select {
		case d = <-doneCh:
		case <-retry:
			got = false
		case <-ctx.Done():
			cancelStages()
			if running > 0 {
				d = <-doneCh
			} else {
				got = false
			}
		}
		if timer != nil {
			timer.Stop()
		}
		if !got {
			continue
		}
		running--
		es := d.step
		memUsed -= es.Instance.Resources.MemMB
		es.res.Duration = d.at.Sub(es.res.Start)
		var inErr *InputError
		var busy *BusyError
		switch {
		case errors.As(d.err, &busy):
			// Another process computes this key: wait for it outside the
			// worker slots, then try again (it is then usually cached).
			es.started = false
			es.busyWait = min(max(2*es.busyWait, busyWaitMin), busyWaitMax)
			es.retryAt = time.Now().Add(es.busyWait)
			waiting = append(waiting, es)
			obs.Event(Event{Kind: EventProgress, Time: time.Now(), Address: es.Instance.Address,
				Msg: "another process is computing it; running other stages meanwhile"})
		case d.err == nil:
			es.res.Outputs, es.res.Metrics = d.res.Outputs, d.res.Metrics
			status := StatusRan
			if d.res.Cached {
				status = StatusCached
				es.res.Reason = ""
			} else if d.res.Duration > 0 {
				es.res.Duration = d.res.Duration
			}
			if memo != nil && d.res.Artifacts != nil {
				for name, a := range d.res.Artifacts {
					if n := uses[es.Instance.Address+"\x00"+name]; n > 0 {
						memo.Put(es.Key(), name, a, n)
					}
				}
			}
			finish(es, status, "")
			for _, dep := range es.dependents {
				if !dep.pending[es.Instance.Address] {
					continue
				}
				delete(dep.pending, es.Instance.Address)
				if len(dep.pending) == 0 && !dep.started && !dep.finished {
					ready = insertReady(ready, dep)
				}
			}
		case errCanceled(d.err) && ctx.Err() != nil:
			es.res.Err = d.err
			finish(es, StatusCanceled, "run canceled")
		case errors.As(d.err, &inErr) && execRetryable(es, byAddr[inErr.Producer]):
			// A stored input could not be read (corrupt or vanished payload):
			// recompute its producer once, then retry this stage.
			prod := byAddr[inErr.Producer]
			es.started = false
			switch {
			case prod.retried && prod.finished:
				// Recomputed since this task was built: retry with the new outputs.
				es.inputRetried = true
				ready = insertReady(ready, es)
			case prod.retried:
				es.pending[prod.Instance.Address] = true
			default:
				es.pending[prod.Instance.Address] = true
				prod.retried, prod.finished, prod.started, prod.force = true, false, false, true
				prod.res.Reason = fmt.Sprintf("stored output unreadable (%v)", inErr.Err)
				if memo != nil {
					memo.Drop(inErr.Ref.Key, inErr.Ref.Name)
				}
				for _, dep := range prod.dependents {
					if !dep.started && !dep.finished {
						dep.pending[prod.Instance.Address] = true
						ready = removeReady(ready, dep)
					}
				}
				if len(prod.pending) == 0 {
					ready = insertReady(ready, prod)
				}
			}
		default:
			es.res.Err = d.err
			finish(es, StatusFailed, "")
			skipDependents(es, es.Instance.Address)
			if !opts.KeepGoing && !stopping {
				stopping = true
				failedBy = es.Instance.Address
			}
		}
	}
	for _, es := range steps {
		if es.finished {
			continue
		}
		es.res.Start = time.Now()
		switch {
		case ctx.Err() != nil:
			finish(es, StatusCanceled, "run canceled")
		case failedBy != "":
			finish(es, StatusSkipped, "not started: "+failedBy+" failed")
		default:
			finish(es, StatusSkipped, "not started")
		}
	}
	result.Wall = time.Since(start)
	switch {
	case ctx.Err() != nil:
		result.Status = RunCanceled
	case result.Count(StatusFailed) > 0:
		result.Status = RunFailed
	default:
		result.Status = RunOK
	}
	if err := store.FinishRun(runID, result.Status); err != nil && recordErr == nil {
		recordErr = fmt.Errorf("finish the run record: %w", err)
	}
	if errors.Is(recordErr, cache.ErrRunLost) {
		// The run record was removed while the run went on (cache clear):
		// the stages' outcomes stand, only the history is lost.
		result.Warnings = append(result.Warnings, fmt.Sprintf("the record of run %d was removed from the cache while it ran (cache clear?): %v; the stages' results above stand", runID, recordErr))
		recordErr = nil
	}
	return result, recordErr
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

func insertReady(ready []*execStep, es *execStep) []*execStep {
	i := 0
	for i < len(ready) && ready[i].index < es.index {
		i++
	}
	ready = append(ready, nil)
	copy(ready[i+1:], ready[i:])
	ready[i] = es
	return ready
}

func removeReady(ready []*execStep, es *execStep) []*execStep {
	for i, r := range ready {
		if r == es {
			return append(ready[:i], ready[i+1:]...)
		}
	}
	return ready
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
