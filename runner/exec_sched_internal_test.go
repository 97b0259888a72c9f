package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
)

func TestMemBudget(t *testing.T) {
	cases := []struct {
		limit, used, mem int64
		running          int
		want             bool
	}{
		{-1, 1 << 40, 1 << 40, 5, true}, // no budget
		{100, 60, 40, 1, true},          // exactly fits
		{100, 60, 41, 1, false},         // one MiB over
		{100, 0, 500, 0, true},          // too big, but nothing runs: alone
		{100, 100, 0, 3, true},          // declares nothing
		{0, 0, 1, 1, false},
	}
	for _, c := range cases {
		b := memBudget{limit: c.limit, used: c.used}
		if got := b.fits(c.mem, c.running); got != c.want {
			t.Errorf("%+v: fits = %v, want %v", c, got, c.want)
		}
	}
	b := memBudget{limit: 100}
	b.take(70)
	b.take(30)
	if b.fits(1, 2) {
		t.Error("a full budget admits more")
	}
	b.release(70)
	if !b.fits(70, 1) || b.used != 30 {
		t.Errorf("after release: used %d", b.used)
	}
}

func TestReadyQueue(t *testing.T) {
	st := func(i int) *execStep { return &execStep{index: i} }
	idx := func(q readyQueue) []int {
		var out []int
		for _, es := range q {
			out = append(out, es.index)
		}
		return out
	}
	s1, s3, s5, s7 := st(1), st(3), st(5), st(7)
	var q readyQueue
	for _, es := range []*execStep{s5, s1, s7, s3} {
		q = q.insert(es)
	}
	if got := idx(q); !slices.Equal(got, []int{1, 3, 5, 7}) {
		t.Errorf("insert order %v", got)
	}
	q = q.remove(s3)
	q = q.remove(st(9)) // not queued: unchanged
	if got := idx(q); !slices.Equal(got, []int{1, 5, 7}) {
		t.Errorf("after remove %v", got)
	}
	q = q.remove(s1).remove(s5).remove(s7)
	if len(q) != 0 {
		t.Errorf("left %v", idx(q))
	}
}

func TestNextBusyWait(t *testing.T) {
	var d time.Duration
	var got []time.Duration
	for range 6 {
		d = nextBusyWait(d)
		got = append(got, d)
	}
	want := []time.Duration{busyWaitMin, 2 * busyWaitMin, 4 * busyWaitMin, 8 * busyWaitMin, busyWaitMax, busyWaitMax}
	if !slices.Equal(got, want) {
		t.Errorf("retry intervals %v, want %v", got, want)
	}
}

func TestStageWorkers(t *testing.T) {
	for _, c := range []struct{ cores, jobs, active, cpus, want int }{
		{8, 4, 2, 0, 4},  // two stages share eight cores
		{8, 4, 10, 0, 2}, // at most jobs run at once
		{8, 4, 0, 0, 8},  // nothing else active
		{2, 8, 5, 0, 1},  // never below one
		{8, 1, 1, 3, 3},  // capped by resources { cpus }
		{8, 2, 2, 16, 4}, // a cap above the share does nothing
	} {
		if got := stageWorkers(c.cores, c.jobs, c.active, c.cpus); got != c.want {
			t.Errorf("stageWorkers%+v = %d, want %d", c, got, c.want)
		}
	}
}

// schedPlan is a → (b, c), c consumes a twice; a is cached.
func schedPlan() *Plan {
	typ := &registry.Type{Name: "t", Version: "1", Outputs: []registry.Output{{Name: "out", Kind: artifact.KindAny}}}
	a := &Step{Instance: &pipeline.Instance{Address: "t.a", Block: "t.a", Type: typ}, Record: &cache.KeyRecord{Key: "ka"}, Cached: true,
		Outputs: []cache.OutputRef{{Key: "ka", Name: "out"}}}
	b := &Step{Instance: &pipeline.Instance{Address: "t.b", Block: "t.b", Type: typ, Inputs: map[string][]pipeline.InputRef{"x": {{Producer: "t.a", Output: "out"}}}},
		Record: &cache.KeyRecord{Key: "kb"}, Reason: "never run"}
	c := &Step{Instance: &pipeline.Instance{Address: `t.c["1"]`, Block: "t.c", Type: typ, Inputs: map[string][]pipeline.InputRef{
		"x": {{Producer: "t.a", Output: "out"}, {Producer: "t.b", Output: "out"}}, "y": {{Producer: "t.a", Output: "out"}}}},
		Record: &cache.KeyRecord{Key: "kc"}, Damaged: true}
	p := &Plan{Steps: []*Step{a, b, c}, ByAddress: map[string]*Step{}}
	for _, s := range p.Steps {
		p.ByAddress[s.Instance.Address] = s
	}
	return p
}

func TestBuildAndLinkSteps(t *testing.T) {
	steps := buildSteps(schedPlan(), RunOptions{PlanOptions: PlanOptions{Force: []string{"t.c"}}})
	byAddr := map[string]*execStep{}
	for _, es := range steps {
		byAddr[es.Instance.Address] = es
	}
	linkSteps(steps, byAddr)
	a, b, c := steps[0], steps[1], steps[2]
	if a.force || b.force || !c.force {
		t.Errorf("force a %v b %v c %v, want only c (forced by block)", a.force, b.force, c.force)
	}
	if c.res.Key != "kc" || b.res.Reason != "never run" {
		t.Errorf("results %+v %+v", b.res, c.res)
	}
	if len(a.dependents) != 2 || len(b.dependents) != 1 || b.dependents[0] != c {
		t.Errorf("dependents a %d b %d", len(a.dependents), len(b.dependents))
	}
	// A cached producer is not waited for; a consumed-twice one once.
	if len(b.pending) != 0 || fmt.Sprint(c.pending) != "map[t.b:true]" {
		t.Errorf("pending b %v c %v", b.pending, c.pending)
	}
	if got := buildSteps(schedPlan(), RunOptions{PlanOptions: PlanOptions{NoCache: true}}); !got[0].force || !got[1].force {
		t.Error("--no-cache does not force every step")
	}
	uses := memoUses(steps)
	want := map[memoUse]int{{"t.a", "out"}: 3, {"t.b", "out"}: 1}
	if fmt.Sprint(uses) != fmt.Sprint(want) {
		t.Errorf("memo uses %v, want %v", uses, want)
	}
}

// recStore records what the recorder writes; fail makes every write fail.
type recStore struct {
	RunStore
	mu      sync.Mutex
	stages  []string
	touched []string
	status  string
	fail    error
	lost    bool
}

func (s *recStore) Touch(key string) error {
	s.touched = append(s.touched, key)
	return s.fail
}

func (s *recStore) RecordStage(_ int64, r cache.StageRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stages = append(s.stages, r.Address+" "+r.Status+" "+r.Error)
	return s.fail
}

func (s *recStore) FinishRun(_ int64, status string) error {
	s.status = status
	if s.lost {
		return fmt.Errorf("finish: %w", cache.ErrRunLost)
	}
	return nil
}

type eventLog struct {
	mu  sync.Mutex
	got []string
}

func (o *eventLog) Event(e Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, fmt.Sprintf("%d %s %s", e.Kind, e.Address, e.Status))
}

func TestRecorder(t *testing.T) {
	st, obs := &recStore{}, &eventLog{}
	r := &recorder{store: st, runID: 1, obs: obs}
	r.touch("k1")
	r.stage(&StageResult{Address: "a", Status: StatusFailed, Err: errors.New("boom")})
	if lost := r.close(RunFailed); lost != nil || r.err != nil {
		t.Fatalf("lost %v err %v", lost, r.err)
	}
	if fmt.Sprint(st.stages) != "[a failed boom]" || st.status != RunFailed || fmt.Sprint(st.touched) != "[k1]" {
		t.Errorf("store got %v %s %v", st.stages, st.status, st.touched)
	}
	if len(obs.got) != 1 || !strings.HasSuffix(obs.got[0], " a failed") {
		t.Errorf("events %v", obs.got)
	}

	// The first error is kept.
	st = &recStore{fail: errors.New("disk full")}
	r = &recorder{store: st, runID: 1, obs: nopObserver{}}
	r.touch("k1")
	r.stage(&StageResult{Address: "a", Status: StatusRan})
	r.close(RunOK)
	if r.err == nil || r.err.Error() != "touch k1: disk full" {
		t.Errorf("error %v", r.err)
	}

	// A lost run record is a warning, not the run's error.
	st = &recStore{lost: true}
	r = &recorder{store: st, runID: 1, obs: nopObserver{}}
	lost := r.close(RunOK)
	if !errors.Is(lost, cache.ErrRunLost) || r.err != nil {
		t.Errorf("lost %v, err %v", lost, r.err)
	}
}

// inProcessExec is an executor other than Local that runs stages here: the
// scheduler finds its memo and applies the memory budget through
// InProcess, with no knowledge of its type.
type inProcessExec struct {
	memo *Memo
}

func (e *inProcessExec) SharedMemo() *Memo { return e.memo }
func (e *inProcessExec) Execute(ctx context.Context, task *Task, _ Hooks) (*Result, error) {
	return nil, errors.New("not run in this test")
}

type remoteExec struct{}

func (remoteExec) Execute(context.Context, *Task, Hooks) (*Result, error) {
	return nil, errors.New("remote")
}

func TestSchedulerFindsInProcess(t *testing.T) {
	plan := schedPlan()
	plan.Steps[1].Instance.Resources.MemMB = 1 << 20
	memo := NewMemo()
	s := newScheduler(plan, &recStore{}, RunOptions{Executor: &inProcessExec{memo: memo}, MemMB: 512}, time.Now(), 1)
	if s.memo != memo || s.mem.limit != 512 {
		t.Errorf("in-process executor: memo %p (want %p), budget %d", s.memo, memo, s.mem.limit)
	}
	// The cached producer's output is announced for its three loads.
	if memo.Len() != 1 {
		t.Errorf("memo holds %d entries, want the cached output announced", memo.Len())
	}
	// A stage larger than the budget is told when it starts (its
	// estimate needs its inputs), not here.
	if len(s.result.Warnings) != 1 || !strings.Contains(s.result.Warnings[0], "t.c") {
		t.Errorf("warnings %q", s.result.Warnings)
	}
	s = newScheduler(schedPlan(), &recStore{}, RunOptions{Executor: remoteExec{}, MemMB: 512}, time.Now(), 1)
	if s.memo != nil || s.mem.limit != -1 {
		t.Errorf("remote executor: memo %v, budget %d; want none", s.memo, s.mem.limit)
	}
}

// workersExec runs nothing: it reports each task's workers and waits for
// the run's context to end.
type workersExec struct {
	memo *Memo
	got  chan [2]any
}

func (e *workersExec) SharedMemo() *Memo { return e.memo }
func (e *workersExec) Execute(ctx context.Context, task *Task, _ Hooks) (*Result, error) {
	e.got <- [2]any{task.Key(), task.Workers}
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestLaunchRoundWorkers: the workers of a stage are the cores divided
// between the stages admitted with it, never counting the ready stages
// left waiting (for a slot or for memory), so a stage that ends up
// running alone gets every core whatever else was ready at that moment.
func TestLaunchRoundWorkers(t *testing.T) {
	typ := &registry.Type{Name: "t", Version: "1", Outputs: []registry.Output{{Name: "out", Kind: artifact.KindAny}}}
	plan := func(mem ...int64) *Plan {
		p := &Plan{ByAddress: map[string]*Step{}}
		for i, m := range mem {
			addr := fmt.Sprintf("t.s%d", i)
			st := &Step{Instance: &pipeline.Instance{Address: addr, Block: addr, Type: typ, Resources: pipeline.Resources{MemMB: m}},
				Record: &cache.KeyRecord{Key: fmt.Sprintf("k%d", i)}, Reason: "never run"}
			p.Steps = append(p.Steps, st)
			p.ByAddress[addr] = st
		}
		return p
	}
	for _, c := range []struct {
		name        string
		mem         []int64
		jobs, cores int
		want        map[string]int // key → workers of the stages started
	}{
		{"alone, the next waits for memory", []int64{400, 400}, 2, 2, map[string]int{"k0": 2}},
		{"alone, the others wait for a slot", []int64{10, 10, 10}, 1, 4, map[string]int{"k0": 4}},
		{"two admitted share", []int64{10, 10, 10}, 2, 2, map[string]int{"k0": 1, "k1": 1}},
		{"two admitted, the third waits for memory", []int64{10, 400, 300}, 3, 4, map[string]int{"k0": 2, "k1": 2}},
		{"more stages than cores", []int64{10, 10, 10}, 3, 2, map[string]int{"k0": 1, "k1": 1, "k2": 1}},
	} {
		for round := range 3 { // identical runs: identical allotments
			exe := &workersExec{memo: NewMemo(), got: make(chan [2]any, 8)}
			s := newScheduler(plan(c.mem...), &recStore{}, RunOptions{Executor: exe, MemMB: 512, Jobs: c.jobs, Cores: c.cores}, time.Now(), 1)
			ctx, cancel := context.WithCancel(context.Background())
			s.servedCached()
			s.launchReady(ctx)
			got := map[string]int{}
			for range s.running {
				r := <-exe.got
				got[r[0].(string)] = r[1].(int)
			}
			cancel()
			for range s.running {
				<-s.doneCh
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%s (run %d): workers %v, want %v", c.name, round, got, c.want)
			}
		}
	}
}
