package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/internal/progress"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	"github.com/hylaflow/hylaflow/stages"
)

// execLoad loads an in-memory pipeline with the built-in stages (or reg).
func execLoad(t *testing.T, reg *registry.Registry, src string) *pipeline.Pipeline {
	t.Helper()
	if reg == nil {
		reg = stages.Default()
	}
	p, diags := pipeline.LoadSource(reg, "test.hcl", []byte(src), pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	return p
}

func execRun(t *testing.T, p *pipeline.Pipeline, s runner.RunStore, opts runner.RunOptions) *runner.RunResult {
	t.Helper()
	res, err := runner.Run(context.Background(), p, s, opts)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

func execStatuses(r *runner.RunResult) map[string]string {
	m := map[string]string{}
	for _, s := range r.Stages {
		m[s.Address] = s.Status
	}
	return m
}

const execFanout = `
stage "value" "src" { values = [1, 2, 3] }
stage "scale" "x" {
  for_each = toset(["1", "2", "3"])
  in = stage.value.src
  factor = tonumber(each.value)
}
stage "sum" "all" { in = stage.scale.x }
`

func TestRunThenCached(t *testing.T) {
	s := executortest.NewMemStore()
	p := execLoad(t, nil, execFanout)
	r1 := execRun(t, p, s, runner.RunOptions{Jobs: 2})
	if r1.Status != runner.RunOK || r1.Count(runner.StatusRan) != 5 {
		t.Fatalf("first run: %s, statuses %v", r1.Status, execStatuses(r1))
	}
	sum := r1.ByAddress["sum.all"]
	want := map[string]float64{"total": 36, "mean": 12, "count": 3, "length": 3}
	for k, v := range want {
		if sum.Metrics[k] != v {
			t.Errorf("metric %s = %v, want %v (all %v)", k, sum.Metrics[k], v, sum.Metrics)
		}
	}
	// Everything ran in this process: consumers got the producers' outputs
	// from memory, nothing was decoded from the store.
	if n := s.Loads(); n != 0 {
		t.Errorf("%d artifacts loaded from the store during a cold in-process run, want 0", n)
	}
	r2 := execRun(t, p, s, runner.RunOptions{Jobs: 2})
	if r2.Count(runner.StatusCached) != 5 {
		t.Fatalf("second run: statuses %v, want all cached", execStatuses(r2))
	}
	if n := s.Loads(); n != 0 {
		t.Errorf("a fully cached run decoded %d artifacts, want 0 (lazy)", n)
	}
	var buf bytes.Buffer
	progress.WriteSummary(&buf, r2)
	if !strings.HasPrefix(buf.String(), "nothing to do: all 5 stages cached") {
		t.Errorf("summary %q", buf.String())
	}
	run, _ := s.Run(r2.RunID)
	if run.Status != runner.RunOK || len(run.Stages) != 5 {
		t.Errorf("run record: status %s, %d stages", run.Status, len(run.Stages))
	}
	for _, st := range run.Stages {
		if st.Status != runner.StatusCached {
			t.Errorf("recorded %s as %s", st.Address, st.Status)
		}
	}
}

func TestCachedProducerDecodedOnce(t *testing.T) {
	s := executortest.NewMemStore()
	execRun(t, execLoad(t, nil, execFanout), s, runner.RunOptions{Jobs: 1})
	// Change the consumers only: value.src stays cached and is loaded once
	// for its three consumers.
	p := execLoad(t, nil, strings.Replace(execFanout, "tonumber(each.value)", "tonumber(each.value) + 0.5", 1))
	r := execRun(t, p, s, runner.RunOptions{Jobs: 3})
	if st := execStatuses(r); st["value.src"] != runner.StatusCached || st[`scale.x["2"]`] != runner.StatusRan || st["sum.all"] != runner.StatusRan {
		t.Fatalf("statuses %v", st)
	}
	if n := s.Loads(); n != 1 {
		t.Errorf("cached producer decoded %d times for 3 consumers, want 1", n)
	}
	if got := r.ByAddress["sum.all"].Metrics["total"]; got != 6*(1.5+2.5+3.5) {
		t.Errorf("total %v, want %v", got, 6*(1.5+2.5+3.5))
	}
}

const execRandom = `
stage "random" "r" {
  for_each = toset([for i in range(12) : tostring(i)])
  n = 50
  seed = tonumber(each.key)
}
stage "scale" "s" {
  for_each = toset([for i in range(12) : tostring(i)])
  in = stage.random.r[each.key]
  factor = 0.5
}
stage "sum" "all" { in = stage.scale.s }
`

func execDigests(r *runner.RunResult) map[string]string {
	m := map[string]string{}
	for _, s := range r.Stages {
		for _, o := range s.Outputs {
			m[s.Address+"/"+o.Name] = o.Digest
		}
	}
	return m
}

func TestDeterministicAcrossJobsAndReruns(t *testing.T) {
	p := execLoad(t, nil, execRandom)
	a := execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 1})
	b := execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 4, Cores: 4})
	s := executortest.NewMemStore()
	c1 := execRun(t, p, s, runner.RunOptions{Jobs: 3, PlanOptions: runner.PlanOptions{NoCache: true}})
	c2 := execRun(t, p, s, runner.RunOptions{Jobs: 2, PlanOptions: runner.PlanOptions{NoCache: true}})
	if c2.Count(runner.StatusRan) != 25 {
		t.Fatalf("--no-cache rerun: %v, want all 25 ran", execStatuses(c2))
	}
	da := execDigests(a)
	if len(da) != 26 {
		t.Fatalf("%d digests, want 26", len(da))
	}
	for name, other := range map[string]*runner.RunResult{"-j 4": b, "--no-cache": c1, "--no-cache again": c2} {
		db := execDigests(other)
		for k, v := range da {
			if db[k] != v {
				t.Errorf("%s: %s digest %s, -j 1 gave %s", name, k, db[k], v)
			}
		}
	}
	// Different seeds give different vectors.
	if da[`random.r["0"]/out`] == da[`random.r["1"]/out`] {
		t.Error("seeds 0 and 1 gave identical vectors")
	}
}

// execRegistry returns the built-in generic stages, with scale at version.
func execRegistry(t *testing.T, scaleVersion string) *registry.Registry {
	t.Helper()
	def := stages.Default()
	r := registry.New()
	for _, name := range []string{"value", "random", "scale", "sum", "sleep", "fail"} {
		typ, _ := def.Lookup(name)
		c := *typ
		if name == "scale" {
			c.Version = scaleVersion
		}
		if err := r.Register(&c); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestPlanReasons(t *testing.T) {
	const base = `
stage "value" "src" { values = [1, 2] }
stage "scale" "x" {
  in = stage.value.src
  factor = 2
}
stage "sum" "all" { in = [stage.scale.x] }
`
	tests := []struct {
		name    string
		src     string
		version string
		opts    runner.PlanOptions
		want    map[string]string // address → reason ("" = cached)
	}{
		{name: "unchanged", src: base, version: "1", want: map[string]string{"value.src": "", "scale.x": "", "sum.all": ""}},
		{name: "param", src: strings.Replace(base, "factor = 2", "factor = 2.5", 1), version: "1",
			want: map[string]string{"value.src": "", "scale.x": "param factor changed 2 → 2.5", "sum.all": "input in changed (scale.x reruns)"}},
		{name: "input", src: strings.Replace(base, "[1, 2]", "[1, 3]", 1), version: "1",
			want: map[string]string{"value.src": "param values changed [1,2] → [1,3]", "scale.x": "input in changed (value.src reruns)", "sum.all": "input in changed (scale.x reruns)"}},
		{name: "version", src: base, version: "2",
			want: map[string]string{"value.src": "", "scale.x": "stage version 1 → 2", "sum.all": "input in changed (scale.x reruns)"}},
		{name: "forced", src: base, version: "1", opts: runner.PlanOptions{Force: []string{"scale.x"}},
			want: map[string]string{"value.src": "", "scale.x": "forced", "sum.all": ""}},
		{name: "new stage", src: base + `stage "value" "extra" { values = [] }`, version: "1",
			want: map[string]string{"value.src": "", "scale.x": "", "sum.all": "", "value.extra": "never run"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := executortest.NewMemStore()
			execRun(t, execLoad(t, execRegistry(t, "1"), base), s, runner.RunOptions{Jobs: 2})
			plan, err := runner.MakePlan(execLoad(t, execRegistry(t, tt.version), tt.src), s, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range plan.Steps {
				want, ok := tt.want[st.Instance.Address]
				if !ok {
					t.Errorf("unexpected step %s", st.Instance.Address)
					continue
				}
				if st.Cached != (want == "") || st.Reason != want {
					t.Errorf("%s: cached=%v reason %q, want %q", st.Instance.Address, st.Cached, st.Reason, want)
				}
			}
			if before := len(s.Keys()); before != 3 {
				t.Errorf("store holds %d keys", before)
			}
		})
	}
	t.Run("outputs missing", func(t *testing.T) {
		s := executortest.NewMemStore()
		p := execLoad(t, nil, base)
		r := execRun(t, p, s, runner.RunOptions{})
		s.Forget(r.ByAddress["scale.x"].Key)
		plan, err := runner.MakePlan(p, s, runner.PlanOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if st := plan.ByAddress["scale.x"]; st.Cached || st.Reason != "outputs missing" {
			t.Errorf("scale.x: cached=%v reason %q", st.Cached, st.Reason)
		}
		if !plan.ByAddress["sum.all"].Cached {
			t.Error("sum.all should stay cached: its key did not change")
		}
	})
	t.Run("unknown force", func(t *testing.T) {
		_, err := runner.MakePlan(execLoad(t, nil, base), nil, runner.PlanOptions{Force: []string{"scale.y"}})
		if err == nil || !strings.Contains(err.Error(), "scale.y") {
			t.Errorf("err %v", err)
		}
	})
}

func TestPlanNeverWrites(t *testing.T) {
	s := executortest.NewMemStore()
	p := execLoad(t, nil, execFanout)
	if _, err := runner.MakePlan(p, s, runner.PlanOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(s.Keys()) != 0 {
		t.Fatal("planning stored something")
	}
	if _, ok := s.Run(1); ok {
		t.Fatal("planning recorded a run")
	}
}

const execFailing = `
stage "fail" "a" { message = "broken on purpose" }
stage "sleep" "after_a" {
  in = stage.fail.a
  ms = 0
}
stage "value" "b" { values = [1] }
stage "value" "c" { values = [2] }
stage "scale" "d" { in = stage.value.c }
`

func TestFailureStopsOrKeepsGoing(t *testing.T) {
	p := execLoad(t, nil, execFailing)
	stop := execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 1})
	st := execStatuses(stop)
	if stop.Status != runner.RunFailed || st["fail.a"] != runner.StatusFailed || st["sleep.after_a"] != runner.StatusSkipped {
		t.Fatalf("without --keep-going: %s %v", stop.Status, st)
	}
	// -j 1 starts fail.a first (smallest address); nothing starts after it fails.
	for _, a := range []string{"value.b", "value.c", "scale.d"} {
		if st[a] != runner.StatusSkipped {
			t.Errorf("without --keep-going %s is %s, want skipped", a, st[a])
		}
	}
	if r := stop.ByAddress["value.b"].Reason; r != "not started: fail.a failed" {
		t.Errorf("reason %q", r)
	}
	if r := stop.ByAddress["sleep.after_a"].Reason; r != "input from fail.a failed" {
		t.Errorf("reason %q", r)
	}
	if err := stop.ByAddress["fail.a"].Err; err == nil || !strings.Contains(err.Error(), "broken on purpose") {
		t.Errorf("error %v", err)
	}

	keep := execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 1, KeepGoing: true})
	st = execStatuses(keep)
	want := map[string]string{"fail.a": "failed", "sleep.after_a": "skipped", "value.b": "ran", "value.c": "ran", "scale.d": "ran"}
	for a, w := range want {
		if st[a] != w {
			t.Errorf("--keep-going: %s is %s, want %s", a, st[a], w)
		}
	}
	var buf bytes.Buffer
	progress.WriteSummary(&buf, keep)
	// The error itself was printed by the progress display as the stage
	// failed; the summary names the stage without repeating it.
	if got := buf.String(); !strings.HasPrefix(got, "5 stages: 3 ran, 0 cached, 1 failed, 1 skipped in ") ||
		!strings.HasSuffix(got, fmt.Sprintf("\nfailed (errors above; hylaflow runs show %d lists them): fail.a\n", keep.RunID)) ||
		strings.Contains(got, "broken on purpose") {
		t.Errorf("summary:\n%s", got)
	}
}

func TestCancelRecordsCanceledAndResumes(t *testing.T) {
	const src = `
stage "value" "quick" { values = [1] }
stage "sleep" "long" {
  for_each = toset(["a", "b", "c"])
  ms = 30000
}
stage "sum" "after" { in = [stage.value.quick] }
`
	s := executortest.NewMemStore()
	p := execLoad(t, nil, src)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(400*time.Millisecond, cancel)
	start := time.Now()
	var log bytes.Buffer
	r, err := runner.Run(ctx, p, s, runner.RunOptions{Jobs: 2, Observer: progress.NewLogProgress(&log, progress.Normal)})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("cancel took %v", d)
	}
	st := execStatuses(r)
	if r.Status != runner.RunCanceled {
		t.Fatalf("status %s %v", r.Status, st)
	}
	canceled := 0
	for _, a := range []string{`sleep.long["a"]`, `sleep.long["b"]`, `sleep.long["c"]`} {
		if st[a] != runner.StatusCanceled {
			t.Errorf("%s is %s, want canceled", a, st[a])
		}
		if _, ok, _ := s.Lookup(r.ByAddress[a].Key); ok {
			t.Errorf("%s stored outputs after cancellation", a)
		}
		canceled++
	}
	// No line per canceled stage; one summary line counts them.
	if strings.Contains(log.String(), "canceled") {
		t.Errorf("progress has lines for canceled stages:\n%s", log.String())
	}
	stopped, notStarted, ran := 0, 0, 0
	for _, st := range r.Stages {
		started := strings.Contains(log.String(), "start    "+st.Address+"\n")
		switch {
		case st.Status == runner.StatusRan:
			ran++
		case st.Status == runner.StatusCanceled && started:
			stopped++
		case st.Status == runner.StatusCanceled:
			notStarted++
		}
	}
	var sum bytes.Buffer
	progress.WriteSummary(&sum, r)
	want := fmt.Sprintf(": %s stopped, %d finished (%d ran, 0 cached), %d not started; the next run resumes\n",
		progress.Plural(stopped, "stage", "stages"), ran, ran, notStarted)
	if got := sum.String(); !strings.HasPrefix(got, "canceled after ") || !strings.HasSuffix(got, want) || strings.Count(got, "\n") != 1 {
		t.Errorf("summary %q, want one line ending %q", got, want)
	}
	if stopped != 2 {
		t.Errorf("%d sleeps started with -j 2 before the cancel, want 2:\n%s", stopped, log.String())
	}
	run, _ := s.Run(r.RunID)
	if run.Status != runner.RunCanceled || len(run.Stages) != 5 {
		t.Errorf("run record %s with %d stages", run.Status, len(run.Stages))
	}
	// A rerun with short sleeps completes.
	p2 := execLoad(t, nil, strings.Replace(src, "30000", "10", 1))
	r2 := execRun(t, p2, s, runner.RunOptions{Jobs: 2})
	if r2.Status != runner.RunOK {
		t.Fatalf("rerun: %s %v", r2.Status, execStatuses(r2))
	}
}

func TestCorruptCachedInputIsRecomputed(t *testing.T) {
	s := executortest.NewMemStore()
	execRun(t, execLoad(t, nil, execFanout), s, runner.RunOptions{Jobs: 2})
	p := execLoad(t, nil, strings.Replace(execFanout, "tonumber(each.value)", "tonumber(each.value) * 10", 1))
	plan, err := runner.MakePlan(p, s, runner.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	src := plan.ByAddress["value.src"]
	if !src.Cached {
		t.Fatal("value.src should be cached")
	}
	s.Corrupt(src.Key())
	r := execRun(t, p, s, runner.RunOptions{Jobs: 2})
	if r.Status != runner.RunOK {
		t.Fatalf("run with a corrupt cached input: %s %v (%v)", r.Status, execStatuses(r), r.Failed())
	}
	if got := r.ByAddress["value.src"]; got.Status != runner.StatusRan || !strings.Contains(got.Reason, "unreadable") {
		t.Errorf("value.src: %s (%s), want ran because its payload was unreadable", got.Status, got.Reason)
	}
	if got := r.ByAddress["sum.all"].Metrics["total"]; got != 360 {
		t.Errorf("total %v, want 360", got)
	}
	if s.Stores(src.Key()) != 2 {
		t.Errorf("value.src stored %d times, want 2", s.Stores(src.Key()))
	}
}

func TestForceBlockAndNoCacheRecompute(t *testing.T) {
	s := executortest.NewMemStore()
	p := execLoad(t, nil, execFanout)
	execRun(t, p, s, runner.RunOptions{})
	r := execRun(t, p, s, runner.RunOptions{PlanOptions: runner.PlanOptions{Force: []string{"scale.x"}}})
	st := execStatuses(r)
	for a, w := range map[string]string{"value.src": "cached", `scale.x["1"]`: "ran", `scale.x["2"]`: "ran", `scale.x["3"]`: "ran", "sum.all": "cached"} {
		if st[a] != w {
			t.Errorf("--force scale.x: %s is %s, want %s", a, st[a], w)
		}
	}
	if r.ByAddress[`scale.x["1"]`].Reason != "forced" {
		t.Errorf("reason %q", r.ByAddress[`scale.x["1"]`].Reason)
	}
}

func TestSameKeyTwiceInOnePipeline(t *testing.T) {
	s := executortest.NewMemStore()
	p := execLoad(t, nil, `
stage "random" "a" { n = 5 }
stage "random" "b" { n = 5 }
stage "sum" "ab" { in = [stage.random.a, stage.random.b] }
`)
	r := execRun(t, p, s, runner.RunOptions{Jobs: 2})
	a, b := r.ByAddress["random.a"], r.ByAddress["random.b"]
	if a.Key != b.Key {
		t.Fatal("identical stages got different keys")
	}
	if n := r.Count(runner.StatusRan); n != 2 || s.Stores(a.Key) != 1 {
		t.Errorf("ran %d (want 2: one random and the sum), stored the shared key %d times (want 1); %v", n, s.Stores(a.Key), execStatuses(r))
	}
}

// TestJobsBoundsParallelismAndWorkers runs a probe stage type that records
// how many instances run at once and the workers each gets.
func TestJobsBoundsParallelismAndWorkers(t *testing.T) {
	var mu sync.Mutex
	running, peak := 0, 0
	var workers []int
	reg := registry.New()
	def := stages.Default()
	sleepT, _ := def.Lookup("sleep")
	probe := *sleepT
	probe.Name = "probe"
	inner := sleepT.Run
	probe.Run = func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
		mu.Lock()
		running++
		peak = max(peak, running)
		workers = append(workers, job.Workers)
		mu.Unlock()
		defer func() { mu.Lock(); running--; mu.Unlock() }()
		return inner(ctx, job)
	}
	if err := reg.Register(&probe); err != nil {
		t.Fatal(err)
	}
	p := execLoad(t, reg, `
stage "probe" "p" {
  for_each = toset([for i in range(8) : tostring(i)])
  ms = 100 + tonumber(each.key)
}
`)
	r := execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 3, Cores: 6})
	if r.Status != runner.RunOK {
		t.Fatal(r.Status)
	}
	if peak != 3 {
		t.Errorf("peak parallelism %d with -j 3, want 3", peak)
	}
	for _, w := range workers {
		if w != 2 {
			t.Errorf("workers %v: want 6 cores / 3 running = 2 each", workers)
			break
		}
	}
	// A stage running alone gets every core, capped by its resources.
	workers = nil
	one := execLoad(t, reg, `stage "probe" "a" { ms = 1 }`)
	execRun(t, one, executortest.NewMemStore(), runner.RunOptions{Jobs: 3, Cores: 6})
	capped := execLoad(t, reg, `
stage "probe" "b" {
  ms = 2
  resources { cpus = 4 }
}`)
	execRun(t, capped, executortest.NewMemStore(), runner.RunOptions{Jobs: 3, Cores: 6})
	if len(workers) != 2 || workers[0] != 6 || workers[1] != 4 {
		t.Errorf("workers %v, want [6 4] (alone; capped by cpus = 4)", workers)
	}
}

func TestLogProgressLines(t *testing.T) {
	var buf bytes.Buffer
	lp := progress.NewLogProgress(&buf, progress.Normal)
	lp.Clock = func(time.Time) string { return "12:00:01" }
	p := execLoad(t, nil, execFailing)
	execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 1, KeepGoing: true, Observer: lp})
	got := buf.String()
	for _, want := range []string{
		"12:00:01 failed   fail.a  ",
		": stage fail.a: broken on purpose\n",
		"12:00:01 skipped  sleep.after_a  (input from fail.a failed)\n",
		"12:00:01 ran      scale.d  ",
		"12:00:01 start    scale.d\n", // a start line for each stage that runs
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log output lacks %q:\n%s", want, got)
		}
	}
	// A stage another process computes: a waiting line, once, at Normal.
	buf.Reset()
	wait := runner.Event{Kind: runner.EventWait, Address: "train.x", Msg: "another process is computing it"}
	lp.Event(wait)
	if got, want := buf.String(), "12:00:01 waiting  train.x  (another process is computing it)\n"; got != want {
		t.Errorf("waiting line %q, want %q", got, want)
	}
	buf.Reset()
	quiet := progress.NewLogProgress(&buf, progress.Quiet)
	quiet.Event(wait)
	if buf.Len() != 0 {
		t.Errorf("quiet output has a waiting line: %q", buf.String())
	}
	buf.Reset()
	q := progress.NewLogProgress(&buf, progress.Quiet)
	execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 1, KeepGoing: true, Observer: q})
	if lines := strings.Count(buf.String(), "\n"); lines != 1 || !strings.Contains(buf.String(), "failed   fail.a") || strings.Contains(buf.String(), "start") {
		t.Errorf("quiet output:\n%s", buf.String())
	}
}

func TestTermProgressDraws(t *testing.T) {
	var buf bytes.Buffer
	tp := progress.NewTermProgress(&syncWriter{w: &buf}, progress.Normal, 60)
	p := execLoad(t, nil, `stage "sleep" "s" { ms = 400 }`)
	execRun(t, p, executortest.NewMemStore(), runner.RunOptions{Observer: tp})
	tp.Close()
	out := buf.String()
	if !strings.Contains(out, "  sleep.s  ") || !strings.Contains(out, "sleeping") || !strings.Contains(out, "\x1b[2A\x1b[J") ||
		!strings.Contains(out, "\n[0/1 stages] 1 running, ") || !strings.Contains(out, "ran      sleep.s") {
		t.Errorf("terminal output %q", out)
	}
}

// syncWriter serialises writes (the terminal display writes from its ticker too).
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}
