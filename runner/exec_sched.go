package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/cache"
)

// The scheduler of a run: which planned stages start when. It knows
// executors only through the Executor interface (and InProcess, for the
// memory budget and the memo); what it decides is recorded through a
// recorder. execute drives it:
//
//	newScheduler   steps, dependencies, the memo's use counts, the budget
//	servedCached   the stages the plan found cached finish first
//	loop           launch ready stages within -j and the budget, collect
//	               results (ran, busy, unreadable input, failed, canceled)
//	finishRest     whatever never started: skipped or canceled
//	result         the run's status and its record

// scheduler is the state of one run.
type scheduler struct {
	plan   *Plan
	opts   RunOptions
	exe    Executor
	obs    Observer
	rec    *recorder
	pinned bool // the plan's keys were marked used when the run began
	jobs   int  // stages at once (-j)
	cores  int  // cores divided between running stages
	start  time.Time
	result *RunResult

	steps  []*execStep
	byAddr map[string]*execStep
	ready  readyQueue  // runnable, in plan order
	wait   []*execStep // busy elsewhere: retried at retryAt
	memo   *Memo       // the in-process executor's shared artifacts, or nil
	uses   map[memoUse]int
	mem    memBudget
	// memDropped counts the bytes of decoded artifacts the memo let go
	// to stay within the budget.
	memDropped int64
	shapes     func(cache.OutputRef) map[string][]int // the store's, for estimates; nil: none
	doneCh     chan execDone

	running  int
	stopping bool   // a stage failed without KeepGoing: start nothing new
	failedBy string // the stage whose failure stopped the run
	keyLocks sync.Map
}

// memoUse names one output of an instance for the memo's use counts.
type memoUse struct{ producer, output string }

func newScheduler(plan *Plan, store RunStore, opts RunOptions, start time.Time, runID int64) *scheduler {
	s := &scheduler{plan: plan, opts: opts, exe: opts.Executor, obs: opts.Observer, jobs: opts.Jobs, cores: opts.Cores,
		start: start, byAddr: map[string]*execStep{}, doneCh: make(chan execDone), mem: memBudget{limit: -1},
		result: &RunResult{RunID: runID, Plan: plan, ByAddress: map[string]*StageResult{}}}
	if s.jobs <= 0 {
		s.jobs = runtime.NumCPU()
	}
	if s.cores <= 0 {
		s.cores = runtime.NumCPU()
	}
	if s.exe == nil {
		s.exe = NewLocal(store)
	}
	if s.obs == nil {
		s.obs = nopObserver{}
	}
	s.rec = &recorder{store: store, runID: runID, obs: s.obs}
	s.shapes = shapesOf(store)
	// Memory and the memo belong to this process: they apply to executors
	// that run stages here.
	if ip, ok := s.exe.(InProcess); ok {
		s.memo = ip.SharedMemo()
		s.mem.limit = opts.MemMB
		if s.mem.limit == 0 {
			s.mem.limit = DefaultMemMB()
		}
	}
	s.steps = buildSteps(plan, opts)
	for _, es := range s.steps {
		s.byAddr[es.Instance.Address] = es
		if es.Damaged {
			s.warn("%s: %s; recomputing it", es.Instance.Address, es.Reason)
		}
		s.result.Stages = append(s.result.Stages, es.res)
		s.result.ByAddress[es.res.Address] = es.res
	}
	linkSteps(s.steps, s.byAddr)
	if s.memo != nil {
		s.uses = memoUses(s.steps)
		for _, es := range s.steps {
			if !es.Cached {
				continue
			}
			for _, ref := range es.Outputs {
				if n := s.uses[memoUse{es.Instance.Address, ref.Name}]; n > 0 {
					s.memo.Expect(ref.Key, ref.Name, n)
				}
			}
		}
	}
	return s
}

func (s *scheduler) warn(format string, args ...any) {
	s.result.Warnings = append(s.result.Warnings, fmt.Sprintf(format, args...))
}

// buildSteps makes the scheduler's state of every plan step: its result
// and whether it must be computed even when stored.
func buildSteps(plan *Plan, opts RunOptions) []*execStep {
	forced := map[string]bool{}
	for _, f := range opts.Force {
		forced[f] = true
	}
	steps := make([]*execStep, len(plan.Steps))
	for i, s := range plan.Steps {
		steps[i] = &execStep{Step: s, index: i, pending: map[string]bool{},
			res:   &StageResult{Address: s.Instance.Address, Key: s.Key(), Reason: s.Reason},
			force: opts.NoCache || forced[s.Instance.Address] || forced[s.Instance.Block] || s.Damaged}
	}
	return steps
}

// linkSteps records each step's dependents and the producers it waits
// for (those not cached).
func linkSteps(steps []*execStep, byAddr map[string]*execStep) {
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
}

// memoUses counts, per output, the loads the stages that run will make, so
// the memo keeps a decoded artifact until its last consumer has it.
func memoUses(steps []*execStep) map[memoUse]int {
	uses := map[memoUse]int{}
	for _, es := range steps {
		if es.Cached {
			continue
		}
		for _, refs := range es.Instance.Inputs {
			for _, r := range refs {
				uses[memoUse{r.Producer, r.Output}]++
			}
		}
	}
	return uses
}

// servedCached finishes the steps the plan found cached (before anything
// runs) and queues the steps whose inputs are all available.
func (s *scheduler) servedCached() {
	s.obs.Event(Event{Kind: EventPlan, Time: s.start, Total: len(s.steps)})
	for _, es := range s.steps {
		if es.Cached {
			es.res.Start = s.start
			es.res.Outputs = es.Outputs
			if !s.pinned { // a pinned key was marked used when the run began
				s.rec.touch(es.Key())
			}
			s.finish(es, StatusCached, "")
		}
	}
	for _, es := range s.steps {
		if !es.Cached && len(es.pending) == 0 {
			s.ready = append(s.ready, es)
		}
	}
}

// finish ends es with status (and reason, if given) and records it.
func (s *scheduler) finish(es *execStep, status, reason string) {
	es.finished = true
	es.res.Status = status
	if reason != "" {
		es.res.Reason = reason
	}
	s.rec.stage(es.res)
}

// skipDependents marks every transitive dependent of es skipped.
func (s *scheduler) skipDependents(es *execStep, cause string) {
	for _, d := range es.dependents {
		if d.finished || d.started {
			continue
		}
		d.res.Start = time.Now()
		s.finish(d, StatusSkipped, "input from "+cause+" failed")
		s.skipDependents(d, cause)
	}
}

// task builds the executor's task of es from the outputs of its producers.
func (s *scheduler) task(es *execStep) *Task {
	task := &Task{Record: es.Record, Type: es.Instance.Type, Params: es.Instance.Params,
		Inputs: map[string][]TaskInput{}, Resources: es.Instance.Resources, Force: es.force,
		MemBudgetMB: max(0, s.mem.limit)}
	for slot, refs := range es.Instance.Inputs {
		list := make([]TaskInput, 0, len(refs))
		for _, r := range refs {
			prod := s.byAddr[r.Producer]
			ref, _ := findOutput(prod.res.Outputs, r.Output)
			if ref.Key == "" {
				ref = cache.OutputRef{Key: prod.Key(), Name: r.Output}
			}
			list = append(list, TaskInput{Label: r.Producer, Ref: ref})
		}
		task.Inputs[slot] = list
	}
	// Divide the cores between the stages running once this launch
	// round is over (launchReady admits the whole round before it starts
	// any), so a batch of stages gets equal shares. Stages still ready
	// but not admitted (no free slot, or waiting for memory) do not count:
	// a stage that runs alone gets every core, however many wait.
	task.Workers = stageWorkers(s.cores, s.jobs, s.running, es.Instance.Resources.CPUs)
	return task
}

// stageWorkers is a stage's share of cores when active stages run at once
// (at most jobs), capped by the CPUs it declares (0: none).
func stageWorkers(cores, jobs, active, cpus int) int {
	w := max(1, cores/max(1, min(jobs, active)))
	if cpus > 0 {
		w = min(w, cpus)
	}
	return w
}

// launch starts es on the executor in its own goroutine; the outcome
// arrives on doneCh.
func (s *scheduler) launch(ctx context.Context, es *execStep) {
	s.admit(es)
	s.startStage(ctx, es)
}

// admit counts es as running and takes its memory from the budget.
func (s *scheduler) admit(es *execStep) {
	es.started = true
	s.running++
	es.mem = s.memOf(es)
	if s.mem.limit >= 0 && es.mem > s.mem.limit {
		s.warn("%s needs about %d MiB, more than the memory budget of %d MiB (--mem): it ran alone", es.Instance.Address, es.mem, s.mem.limit)
	}
	s.mem.take(es.mem)
	s.shrinkMemo()
	if s.mem.limit > 0 && es.mem*4 >= s.mem.limit {
		// A big stage: collect the garbage of those before it and return
		// it to the system first. Left to itself, the collector runs
		// concurrently with the new stage's first allocations (decoding
		// gigabytes of inputs) and, on a busy machine, falls behind them:
		// the heap holds both for a while, past the budget.
		debug.FreeOSMemory()
	}
}

// startStage runs the admitted es on the executor in its own goroutine; its
// workers are its share of the cores among the stages admitted so far.
func (s *scheduler) startStage(ctx context.Context, es *execStep) {
	task := s.task(es)
	addr := es.Instance.Address
	es.res.Start = time.Now()
	if es.busyWait == 0 {
		// A retry after another process held the key is not a new start
		// (-v would print one line per retry).
		s.obs.Event(Event{Kind: EventStart, Time: es.res.Start, Address: addr, Reason: es.res.Reason, MemMB: es.mem})
	}
	obs := s.obs
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
		mu, _ := s.keyLocks.LoadOrStore(task.Key(), &sync.Mutex{})
		mu.(*sync.Mutex).Lock()
		res, err := s.exe.Execute(ctx, task, hooks)
		mu.(*sync.Mutex).Unlock()
		s.doneCh <- execDone{step: es, res: res, err: err, at: time.Now()}
	}()
}

// memOf is the memory (MiB) the budget counts for es, whose inputs are
// all stored: the larger of its declaration and its type's estimate.
func (s *scheduler) memOf(es *execStep) int64 {
	if s.mem.limit < 0 {
		return es.Instance.Resources.MemMB
	}
	mb, _ := MemEstimate(es.Instance, func(producer string) []cache.OutputRef {
		if p := s.byAddr[producer]; p != nil && p.finished {
			return p.res.Outputs
		}
		return nil
	}, s.shapes)
	return mb
}

// shrinkMemo keeps the decoded artifacts the memo holds for later
// consumers within what the running stages leave of the memory budget;
// what it drops is loaded from the cache again when needed.
func (s *scheduler) shrinkMemo() {
	if s.memo == nil || s.mem.limit < 0 {
		return
	}
	room := max(0, s.mem.limit-s.mem.used) << 20
	if dropped := s.memo.Shrink(room); dropped > 0 {
		s.memDropped += dropped
	}
}

// fits reports whether es may start now under the memory budget; the
// first time it does not, -v says that it waits for memory.
func (s *scheduler) fits(es *execStep) bool {
	need := s.memOf(es)
	if s.mem.fits(need, s.running) {
		return true
	}
	if !es.memSaid {
		es.memSaid = true
		s.obs.Event(Event{Kind: EventProgress, Time: time.Now(), Address: es.Instance.Address,
			Msg: fmt.Sprintf("waits for memory: needs about %d MiB, %d of the %d MiB budget (--mem) are taken by %d running stages", need, s.mem.used, s.mem.limit, s.running)})
	}
	return false
}

// launchReady starts ready stages in plan order while slots are free; one
// that does not fit the memory budget now is passed over for smaller
// ones, and starts when enough running stages have finished.
//
// The round is admitted first and started after, so that every stage of
// it knows how many run beside it (task): the workers a stage gets depend
// on the stages admitted, never on those left waiting, whose number
// depends on when earlier stages happened to finish.
func (s *scheduler) launchReady(ctx context.Context) {
	var round []*execStep
	for i := 0; s.running < s.jobs && i < len(s.ready); {
		if es := s.ready[i]; s.fits(es) {
			s.ready = append(s.ready[:i], s.ready[i+1:]...)
			s.admit(es)
			round = append(round, es)
			continue
		}
		i++
	}
	for _, es := range round {
		s.startStage(ctx, es)
	}
}

// retryWaiting gives free slots to the stages another process was
// computing whose retry time has come, and returns the earliest retry
// time of those still waiting (zero: none waits).
func (s *scheduler) retryWaiting(ctx context.Context) time.Time {
	now := time.Now()
	for i := 0; i < len(s.wait) && s.running < s.jobs; {
		if es := s.wait[i]; (!es.retryAt.After(now) && s.fits(es)) || len(es.pending) > 0 {
			s.wait = append(s.wait[:i], s.wait[i+1:]...)
			// A stage whose input is being recomputed meanwhile
			// returns to ready when that is done.
			if len(es.pending) == 0 {
				s.launch(ctx, es)
			}
			continue
		}
		i++
	}
	var next time.Time
	for _, es := range s.wait {
		if next.IsZero() || es.retryAt.Before(next) {
			next = es.retryAt
		}
	}
	return next
}

// loop runs the stages until none runs or waits. Stages run under a
// context that the scheduler cancels when ctx is done, marked so that
// executors that can report a BusyError instead of waiting for a claim.
func (s *scheduler) loop(ctx context.Context) {
	stageCtx, cancelStages := context.WithCancel(ctx)
	defer cancelStages()
	execCtx := withoutClaimWait(stageCtx)
	for {
		var nextRetry time.Time
		if !s.stopping && ctx.Err() == nil {
			s.launchReady(execCtx)
			nextRetry = s.retryWaiting(execCtx)
		}
		if s.running == 0 && nextRetry.IsZero() {
			return
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
		case d = <-s.doneCh:
		case <-retry:
			got = false
		case <-ctx.Done():
			cancelStages()
			if s.running > 0 {
				d = <-s.doneCh
			} else {
				got = false
			}
		}
		if timer != nil {
			timer.Stop()
		}
		if got {
			s.done(ctx, d)
		}
	}
}

// done takes the outcome of one executed stage.
func (s *scheduler) done(ctx context.Context, d execDone) {
	s.running--
	es := d.step
	s.mem.release(es.mem)
	es.res.Duration = d.at.Sub(es.res.Start)
	var inErr *InputError
	var busy *BusyError
	switch {
	case errors.As(d.err, &busy):
		s.busy(es)
	case d.err == nil:
		s.succeeded(es, d.res)
	case errCanceled(d.err) && ctx.Err() != nil:
		es.res.Err = d.err
		s.finish(es, StatusCanceled, "run canceled")
	case errors.As(d.err, &inErr) && execRetryable(es, s.byAddr[inErr.Producer]):
		s.inputUnreadable(es, inErr)
	default:
		es.res.Err = d.err
		s.finish(es, StatusFailed, "")
		s.skipDependents(es, es.Instance.Address)
		if !s.opts.KeepGoing && !s.stopping {
			s.stopping = true
			s.failedBy = es.Instance.Address
		}
	}
}

// busy puts es, whose key another process computes, to wait outside the
// worker slots; it is tried again later (it is then usually cached).
func (s *scheduler) busy(es *execStep) {
	es.started = false
	first := es.busyWait == 0
	es.busyWait = nextBusyWait(es.busyWait)
	es.retryAt = time.Now().Add(es.busyWait)
	s.wait = append(s.wait, es)
	if first {
		// Once: the retries are silent, as their starts are.
		s.obs.Event(Event{Kind: EventWait, Time: time.Now(), Address: es.Instance.Address,
			Msg: "another process is computing it; running other stages meanwhile"})
	}
}

// nextBusyWait doubles a busy stage's retry interval within
// [busyWaitMin, busyWaitMax].
func nextBusyWait(d time.Duration) time.Duration { return min(max(2*d, busyWaitMin), busyWaitMax) }

// succeeded records es's outputs, hands its decoded artifacts to the memo
// and readies the dependents that waited only for it.
func (s *scheduler) succeeded(es *execStep, res *Result) {
	es.res.Outputs, es.res.Metrics = res.Outputs, res.Metrics
	status := StatusRan
	if res.Cached {
		status = StatusCached
		es.res.Reason = ""
	} else if res.Duration > 0 {
		es.res.Duration = res.Duration
	}
	if s.memo != nil && res.Artifacts != nil {
		for name, a := range res.Artifacts {
			if n := s.uses[memoUse{es.Instance.Address, name}]; n > 0 {
				ref, _ := findOutput(res.Outputs, name)
				s.memo.Put(es.Key(), name, a, ref.Size, n)
			}
		}
	}
	s.shrinkMemo()
	s.finish(es, status, "")
	for _, dep := range es.dependents {
		if !dep.pending[es.Instance.Address] {
			continue
		}
		delete(dep.pending, es.Instance.Address)
		if len(dep.pending) == 0 && !dep.started && !dep.finished {
			s.ready = s.ready.insert(dep)
		}
	}
}

// inputUnreadable handles a stage whose stored input could not be read
// (corrupt or vanished payload): its producer is recomputed once, then the
// stage is retried.
func (s *scheduler) inputUnreadable(es *execStep, inErr *InputError) {
	prod := s.byAddr[inErr.Producer]
	es.started = false
	switch {
	case prod.retried && prod.finished:
		// Recomputed since this task was built: retry with the new outputs.
		es.inputRetried = true
		s.ready = s.ready.insert(es)
	case prod.retried:
		es.pending[prod.Instance.Address] = true
	default:
		es.pending[prod.Instance.Address] = true
		prod.retried, prod.finished, prod.started, prod.force = true, false, false, true
		prod.res.Reason = fmt.Sprintf("stored output unreadable (%v)", inErr.Err)
		if s.memo != nil {
			s.memo.Drop(inErr.Ref.Key, inErr.Ref.Name)
		}
		for _, dep := range prod.dependents {
			if !dep.started && !dep.finished {
				dep.pending[prod.Instance.Address] = true
				s.ready = s.ready.remove(dep)
			}
		}
		if len(prod.pending) == 0 {
			s.ready = s.ready.insert(prod)
		}
	}
}

// finishRest ends every step that never finished: canceled when ctx is
// done, else skipped (naming the failure that stopped the run).
func (s *scheduler) finishRest(ctx context.Context) {
	for _, es := range s.steps {
		if es.finished {
			continue
		}
		es.res.Start = time.Now()
		switch {
		case ctx.Err() != nil:
			s.finish(es, StatusCanceled, "run canceled")
		case s.failedBy != "":
			s.finish(es, StatusSkipped, "not started: "+s.failedBy+" failed")
		default:
			s.finish(es, StatusSkipped, "not started")
		}
	}
}

// finishRun sets the run's status and wall time and closes its record.
func (s *scheduler) finishRun(ctx context.Context) (*RunResult, error) {
	r := s.result
	r.Wall = time.Since(s.start)
	switch {
	case ctx.Err() != nil:
		r.Status = RunCanceled
	case r.Count(StatusFailed) > 0:
		r.Status = RunFailed
	default:
		r.Status = RunOK
	}
	if lost := s.rec.close(r.Status); lost != nil {
		// The run record was removed while the run went on (cache clear):
		// the stages' outcomes stand, only the history is lost.
		s.warn("the record of run %d was removed from the cache while it ran (cache clear?): %v; the stages' results above stand", r.RunID, lost)
	}
	return r, s.rec.err
}

// recorder writes a run's history: each stage's outcome (also told to the
// observer) and the run's end. It keeps the first error.
type recorder struct {
	store RunStore
	runID int64
	obs   Observer
	err   error
}

func (r *recorder) note(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

// touch marks a cached key as used by this run.
func (r *recorder) touch(key string) {
	if err := r.store.Touch(key); err != nil {
		r.note(fmt.Errorf("touch %s: %w", key, err))
	}
}

// stage records one stage's outcome and tells the observer.
func (r *recorder) stage(res *StageResult) {
	err := r.store.RecordStage(r.runID, cache.StageRecord{
		Address: res.Address, Key: res.Key, Status: res.Status, Reason: res.Reason,
		Start: res.Start, Duration: res.Duration, Error: errString(res.Err), Metrics: res.Metrics,
	})
	if err != nil {
		r.note(fmt.Errorf("record stage %s: %w", res.Address, err))
	}
	r.obs.Event(Event{Kind: EventDone, Time: time.Now(), Address: res.Address, Status: res.Status,
		Reason: res.Reason, Duration: res.Duration, Err: res.Err})
}

// close records the run's end. When the first error says the run record
// was removed (cache.ErrRunLost), it is returned as lost and cleared:
// that loses the history, not the results.
func (r *recorder) close(status string) (lost error) {
	if err := r.store.FinishRun(r.runID, status); err != nil {
		r.note(fmt.Errorf("finish the run record: %w", err))
	}
	if errors.Is(r.err, cache.ErrRunLost) {
		lost, r.err = r.err, nil
	}
	return lost
}

// memBudget admits stages by their memory (MiB, MemEstimate): a stage
// starts while the running stages' memory plus its own fits the limit, or
// when nothing runs (one larger than the whole budget runs alone).
// A negative limit admits everything.
type memBudget struct {
	limit, used int64
}

func (b *memBudget) fits(mem int64, running int) bool {
	return b.limit < 0 || running == 0 || b.used+mem <= b.limit
}

func (b *memBudget) take(mem int64)    { b.used += mem }
func (b *memBudget) release(mem int64) { b.used -= mem }

// readyQueue holds runnable steps in plan order.
type readyQueue []*execStep

// insert adds es at its plan position.
func (q readyQueue) insert(es *execStep) readyQueue {
	i := 0
	for i < len(q) && q[i].index < es.index {
		i++
	}
	q = append(q, nil)
	copy(q[i+1:], q[i:])
	q[i] = es
	return q
}

// remove drops es if queued.
func (q readyQueue) remove(es *execStep) readyQueue {
	for i, r := range q {
		if r == es {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q
}
