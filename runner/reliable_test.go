package runner_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/progress"
	"github.com/hylaflow/hylaflow/runner"
)

// openCaches opens two handles on one new cache directory, as two
// processes would.
func openCaches(t *testing.T) (*cache.Cache, *cache.Cache) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cache")
	a, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	b, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return a, b
}

// gcAtLookup runs gc (from another handle) just before its n-th Lookup.
type gcAtLookup struct {
	*cache.Cache
	n, at int
	gc    func()
}

func (s *gcAtLookup) Lookup(key string) ([]cache.OutputRef, bool, error) {
	s.n++
	if s.n == s.at {
		s.gc()
	}
	return s.Cache.Lookup(key)
}

// Issue 19 item 2: a gc in the middle of a run's plan lookups (here
// keeping no finished run, so only what live runs use survives) removes
// nothing the run counts as cached: the run is recorded and its keys are
// marked used before the first lookup.
func TestGCDuringPlanKeepsPlannedKeys(t *testing.T) {
	c, other := openCaches(t)
	p := execLoad(t, nil, execFanout)
	if r := execRun(t, p, c, runner.RunOptions{Jobs: 2}); r.Count(runner.StatusRan) != 5 {
		t.Fatalf("first run: %v", execStatuses(r))
	}
	var rep cache.GCReport
	var gcErr error
	s := &gcAtLookup{Cache: c, at: 3, gc: func() { rep, gcErr = other.GC(cache.GCOptions{KeepRuns: 0}) }}
	r := execRun(t, p, s, runner.RunOptions{Jobs: 2})
	if gcErr != nil {
		t.Fatal(gcErr)
	}
	if s.n < 3 {
		t.Fatalf("only %d lookups; the gc never ran", s.n)
	}
	if rep.Keys != 0 || rep.Objects != 0 {
		t.Errorf("gc during the run removed %d keys and %d payloads, want none", rep.Keys, rep.Objects)
	}
	if got := r.Count(runner.StatusCached); got != 5 || r.Status != runner.RunOK {
		t.Errorf("run with a gc during its plan: %s, %d cached, want all 5: %v", r.Status, got, execStatuses(r))
	}
	for _, st := range r.Stages {
		if _, ok, err := c.Lookup(st.Key); !ok || err != nil {
			t.Errorf("%s is gone after the run: ok=%v err=%v", st.Address, ok, err)
		}
	}
	// Once no run is live, the same gc removes them.
	if rep, err := other.GC(cache.GCOptions{KeepRuns: 0}); err != nil || rep.Keys != 5 {
		t.Errorf("gc after the run: %+v %v, want the 5 keys removed", rep, err)
	}
}

// clearOnFirstRan clears the cache (from another handle) when the first
// stage has run.
type clearOnFirstRan struct {
	once  sync.Once
	clear func() error
	err   error
}

func (o *clearOnFirstRan) Event(e runner.Event) {
	if e.Kind == runner.EventDone && e.Status == runner.StatusRan {
		o.once.Do(func() { o.err = o.clear() })
	}
}

// Issue 19 item 2: cache clear while a run goes on loses the run record,
// not the run: every stage succeeds, the run is ok with a warning, and no
// stage record is left without its run.
func TestClearDuringRunKeepsExitHonest(t *testing.T) {
	c, other := openCaches(t)
	p := execLoad(t, nil, execFanout)
	obs := &clearOnFirstRan{clear: other.Clear}
	r, err := runner.Run(context.Background(), p, c, runner.RunOptions{Jobs: 1, Observer: obs})
	if obs.err != nil {
		t.Fatal(obs.err)
	}
	if err != nil {
		t.Fatalf("run with a clear during it: %v, want no error", err)
	}
	if r.Status != runner.RunOK || r.Count(runner.StatusFailed) != 0 {
		t.Fatalf("run with a clear during it: %s %v", r.Status, execStatuses(r))
	}
	if got := r.ByAddress["sum.all"].Metrics["total"]; got != 36 {
		t.Errorf("total %v, want 36", got)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "was removed from the cache while it ran") {
		t.Errorf("warnings %q, want one saying the run record was lost", r.Warnings)
	}
	runs, err := c.Runs(0)
	if err != nil || len(runs) != 0 {
		t.Errorf("runs after the clear: %+v %v, want none", runs, err)
	}
	// The next run records normally and finds what was stored after the clear.
	r2 := execRun(t, p, c, runner.RunOptions{Jobs: 1})
	if len(r2.Warnings) != 0 || r2.Count(runner.StatusRan) != 1 {
		t.Errorf("next run: %v, warnings %q; want only value.src (stored before the clear) recomputed", execStatuses(r2), r2.Warnings)
	}
	d, err := c.Run(r2.RunID)
	if err != nil || len(d.Stages) != 5 {
		t.Fatalf("the next run's record: %+v %v", d, err)
	}
}

// execShared: one source, eight sleeping stages (distinct keys), one sink.
const execShared = `
stage "value" "src" { values = [1, 2, 3] }
stage "sleep" "s" {
  for_each = toset([for i in range(8) : tostring(i)])
  in       = stage.value.src
  ms       = 150 + tonumber(each.key)
}
stage "sum" "all" { in = stage.sleep.s }
`

// Issue 19 item 3: two runs on one cache at once share the work. A run
// whose next stage another run is computing runs other ready stages
// meanwhile instead of waiting in its worker slot; every stage is computed
// exactly once, and both runs compute some of the sleeping stages.
func TestTwoRunsShareWork(t *testing.T) {
	c, other := openCaches(t)
	p := execLoad(t, nil, execShared)
	var wg sync.WaitGroup
	results := make([]*runner.RunResult, 2)
	errs := make([]error, 2)
	start := time.Now()
	logs := make([]*syncWriter, 2)
	for i, s := range []*cache.Cache{c, other} {
		logs[i] = &syncWriter{w: &bytes.Buffer{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = runner.Run(context.Background(), p, s, runner.RunOptions{Jobs: 2, Observer: progress.NewLogProgress(logs[i], progress.Normal)})
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	ran := map[string]int{}
	for i, r := range results {
		if errs[i] != nil || r.Status != runner.RunOK {
			t.Fatalf("run %d: %v %v", i, errs[i], r)
		}
		sleeps := 0
		for _, st := range r.Stages {
			if st.Status == runner.StatusRan {
				ran[st.Address]++
				if strings.HasPrefix(st.Address, "sleep.") {
					sleeps++
				}
			}
		}
		if sleeps < 2 {
			t.Errorf("run %d computed %d of the 8 sleeping stages, want its share (≥ 2): %v", i, sleeps, execStatuses(r))
		}
		if sum := r.ByAddress["sum.all"]; sum.Status == runner.StatusRan && sum.Metrics["total"] != 48 {
			t.Errorf("run %d: total %v, want 48", i, sum.Metrics["total"])
		}
	}
	for _, st := range results[0].Stages {
		if ran[st.Address] != 1 {
			t.Errorf("%s computed %d times, want once", st.Address, ran[st.Address])
		}
	}
	// The log says which stages waited for the other run: each such stage
	// has one waiting line, after its start line, and ends cached there.
	waited := 0
	for i, r := range results {
		log := logs[i].w.(*bytes.Buffer).String()
		for _, st := range r.Stages {
			n := strings.Count(log, " waiting  "+st.Address+"  (another process is computing it")
			if n == 0 {
				continue
			}
			waited++
			if n != 1 || st.Status != runner.StatusCached ||
				strings.Index(log, " start    "+st.Address+"\n") > strings.Index(log, " waiting  "+st.Address) {
				t.Errorf("run %d: %s waited %d times and ended %s; log:\n%s", i, st.Address, n, st.Status, log)
			}
		}
	}
	if waited == 0 {
		// Both runs computed sleeping stages, so they overlapped, and a run
		// meets the stages the other holds before it finds free ones.
		t.Errorf("no waiting line in either log:\n%s\n%s", logs[0].w, logs[1].w)
	}
	t.Logf("two runs of 8 × 150 ms stages at -j 2 each: %v (one run alone: about 600 ms of sleeping); %d stages waited for the other run", wall, waited)
}

// concurrency records the most stages running at once.
type concurrency struct {
	mu        sync.Mutex
	now, peak int
}

func (c *concurrency) Event(e runner.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e.Kind {
	case runner.EventStart:
		c.now++
		c.peak = max(c.peak, c.now)
	case runner.EventDone:
		if e.Status == runner.StatusRan {
			c.now--
		}
	}
}

// execMem: six 3 GiB stages and one of 10 GiB, none depending on another.
const execMem = `
stage "sleep" "big" {
  for_each = toset([for i in range(6) : tostring(i)])
  ms       = 60 + tonumber(each.key)
  resources { mem = "3G" }
}
stage "sleep" "huge" {
  ms = 40
  resources { mem = "10G" }
}
`

// Issue 19 item 6: the local scheduler admits stages within the memory
// budget: at most two 3 GiB stages at once in 8 GiB whatever -j, and a
// stage larger than the budget runs alone, with a warning.
func TestMemoryBudgetAdmission(t *testing.T) {
	for _, tc := range []struct {
		name     string
		memMB    int64
		wantPeak int
		warn     bool
	}{
		{"8 GiB", 8 << 10, 2, true},
		{"20 GiB", 20 << 10, 6, false},
		{"no budget", -1, 7, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := openCaches(t)
			obs := &concurrency{}
			r := execRun(t, execLoad(t, nil, execMem), c, runner.RunOptions{Jobs: 7, MemMB: tc.memMB, Observer: obs})
			if r.Status != runner.RunOK || r.Count(runner.StatusRan) != 7 {
				t.Fatalf("run: %s %v", r.Status, execStatuses(r))
			}
			if obs.peak != tc.wantPeak {
				t.Errorf("at most %d stages ran at once, want %d", obs.peak, tc.wantPeak)
			}
			warned := len(r.Warnings) == 1 && strings.Contains(r.Warnings[0], "sleep.huge needs about 10240 MiB, more than the memory budget of 8192 MiB (--mem): it ran alone")
			if warned != tc.warn {
				t.Errorf("warnings %q, want the huge stage's: %v", r.Warnings, tc.warn)
			}
		})
	}
}

// countLookups counts the lookups made through it.
type countLookups struct {
	*cache.Cache
	n int
}

func (s *countLookups) Lookup(key string) ([]cache.OutputRef, bool, error) {
	s.n++
	return s.Cache.Lookup(key)
}

// onPlanEvent calls f once, when the run announces its plan (after it has
// registered and pinned its keys).
type onPlanEvent struct {
	once sync.Once
	f    func()
}

func (o *onPlanEvent) Event(e runner.Event) {
	if e.Kind == runner.EventPlan {
		o.once.Do(o.f)
	}
}

// Issue 35: a run given the plan that decided it (RunOptions.Plan, made
// before the run registered) reuses its keys and, when nothing was removed
// meanwhile, its lookups; a gc in the window between that plan and the
// run's pin is noticed (the removals count changed) and every key is
// looked up again, so what it removed is recomputed, never served; a gc
// once the run has pinned its keys removes nothing of it.
func TestRunReusesPlanAcrossGC(t *testing.T) {
	c, other := openCaches(t)
	p := execLoad(t, nil, execFanout)
	if r := execRun(t, p, c, runner.RunOptions{Jobs: 2}); r.Count(runner.StatusRan) != 5 {
		t.Fatalf("first run: %v", execStatuses(r))
	}
	plan := func() *runner.Plan {
		t.Helper()
		plan, err := runner.MakePlan(p, c, runner.PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if run, cached := plan.Counts(); run != 0 || cached != 5 {
			t.Fatalf("plan: %d to run, %d cached", run, cached)
		}
		return plan
	}

	// Nothing removed: no lookup again.
	s := &countLookups{Cache: c}
	r := execRun(t, p, s, runner.RunOptions{Jobs: 2, Plan: plan()})
	if s.n != 0 || r.Count(runner.StatusCached) != 5 || r.Status != runner.RunOK {
		t.Fatalf("run with an unchanged plan: %d lookups (want 0), %v", s.n, execStatuses(r))
	}

	// A gc between the plan and the run (no run live: it removes all).
	pl := plan()
	if rep, err := other.GC(cache.GCOptions{KeepRuns: 0}); err != nil || rep.Keys != 5 {
		t.Fatalf("gc between plan and run: %+v %v, want the 5 keys removed", rep, err)
	}
	s = &countLookups{Cache: c}
	r = execRun(t, p, s, runner.RunOptions{Jobs: 2, Plan: pl})
	if s.n < 5 || r.Count(runner.StatusRan) != 5 || r.Status != runner.RunOK {
		t.Fatalf("run after a gc removed its plan's keys: %d lookups, %v; want every key looked up and run", s.n, execStatuses(r))
	}
	for _, st := range r.Stages {
		if _, ok, err := c.Lookup(st.Key); !ok || err != nil {
			t.Errorf("%s not stored after the run: ok=%v err=%v", st.Address, ok, err)
		}
	}

	// A gc once the run has pinned its keys keeps them all.
	var rep cache.GCReport
	var gcErr error
	obs := &onPlanEvent{f: func() { rep, gcErr = other.GC(cache.GCOptions{KeepRuns: 0}) }}
	r = execRun(t, p, c, runner.RunOptions{Jobs: 2, Plan: plan(), Observer: obs})
	if gcErr != nil {
		t.Fatal(gcErr)
	}
	if rep.Keys != 0 || rep.Objects != 0 || r.Count(runner.StatusCached) != 5 || r.Status != runner.RunOK {
		t.Fatalf("gc during a run with a reused plan removed %d keys, %d payloads; run %v", rep.Keys, rep.Objects, execStatuses(r))
	}
	for _, st := range r.Stages {
		if err := c.CheckPayloads(st.Outputs, true); err != nil {
			t.Errorf("%s after the run: %v", st.Address, err)
		}
	}
	// A plan made with other options is refused, not misused.
	if _, err := runner.Run(context.Background(), p, c, runner.RunOptions{Plan: plan(), PlanOptions: runner.PlanOptions{NoCache: true}}); err == nil {
		t.Error("a plan made with other options was accepted")
	}
}
