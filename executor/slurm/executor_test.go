package slurm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/executor"
	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
	"github.com/hylaflow/hylaflow/stages"
)

func slurmTestPipeline(t *testing.T, reg *registry.Registry, name string) *pipeline.Pipeline {
	t.Helper()
	p, diags := pipeline.Load(reg, filepath.Join("testdata", name), pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatalf("load %s: %v", name, diags)
	}
	return p
}

// slurmInProcess makes fake jobs run `hylaflow exec-stage --store DIR KEY`
// (or --store URL) in this process: the command's last two words are the
// store and KEY. A job on a remote store runs as exec-stage runs it: its
// scratch cache in a fresh directory under $TMPDIR, its log the file
// $HYLAFLOW_JOB_LOG names (here: the request's Output, where it writes a
// first line as the batch script's output would begin).
func slurmInProcess(reg *registry.Registry) func(ctx context.Context, id string, req *slurmcmd.SubmitRequest) int {
	return func(ctx context.Context, id string, req *slurmcmd.SubmitRequest) int {
		n := len(req.Command)
		if n < 4 || req.Command[n-4] != "exec-stage" || req.Command[n-3] != "--store" {
			return 2
		}
		store, key := req.Command[n-2], req.Command[n-1]
		if !executor.IsURL(store) {
			if _, err := slurm.RunJob(ctx, store, reg, key, id, runner.Hooks{}); err != nil {
				return 1
			}
			return 0
		}
		logFile := ""
		for _, kv := range req.Env {
			if v, ok := strings.CutPrefix(kv, slurm.JobLogEnv+"="); ok {
				logFile = v
			}
		}
		if logFile != "" {
			os.WriteFile(strings.ReplaceAll(logFile, "%j", id), []byte("job "+id+" of "+key+" started\n"), 0o644)
		}
		_, err := slurm.RunRemoteJob(ctx, store, reg, key, id, slurm.RemoteJobOptions{LogFile: logFile,
			Remote: remote.Options{Attempts: 1}})
		switch {
		case errors.Is(err, slurm.ErrRemoteUnusable):
			return slurm.ExitRemote
		case err != nil:
			return 1
		}
		return 0
	}
}

// slurmLog collects the executor's log lines.
type slurmLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *slurmLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *slurmLog) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, substr) {
			n++
		}
	}
	return n
}

func slurmTestOptions(c slurmcmd.Cluster, dir string, log *slurmLog) slurm.Options {
	return slurm.Options{Cluster: c, Dir: dir, Command: []string{"hylaflow"}, Poll: 10 * time.Millisecond,
		Grace: 150 * time.Millisecond, Logf: log.logf}
}

// digests maps each stage address to its outputs' digests.
func digests(res *runner.RunResult) map[string][]string {
	m := map[string][]string{}
	for _, s := range res.Stages {
		for _, o := range s.Outputs {
			m[s.Address] = append(m[s.Address], o.Name+"="+o.Digest)
		}
	}
	return m
}

func runLocal(t *testing.T, p *pipeline.Pipeline) *runner.RunResult {
	t.Helper()
	res, err := runner.Run(context.Background(), p, executortest.NewMemStore(), runner.RunOptions{Jobs: 2})
	if err != nil || res.Status != runner.RunOK {
		t.Fatalf("local run: %v, %+v", err, res)
	}
	return res
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// peakCluster measures the bound MaxJobs promises: at each submission it
// counts the jobs submitted whose done-record is not yet in the store
// (queued, running, or still writing their result) and keeps the maximum.
// The executor frees a job's slot when it reads the done-record, and only
// then may submit the next job; the job itself returns a moment after
// writing the record. Counting until Exec returns (as this test once did)
// therefore saw a finished job and its successor at once under load: a
// third live job that the executor had rightly stopped counting.
type peakCluster struct {
	*slurmcmd.Fake
	mu        sync.Mutex
	submitted []string // done-record paths of the jobs submitted
	peak      int
}

func (c *peakCluster) Submit(ctx context.Context, req *slurmcmd.SubmitRequest) (string, error) {
	n := len(req.Command)
	st := slurm.Store{Dir: req.Command[n-2]}
	c.mu.Lock()
	live := 1
	for _, done := range c.submitted {
		if _, err := os.Stat(done); err != nil {
			live++
		}
	}
	c.peak = max(c.peak, live)
	c.submitted = append(c.submitted, st.DonePath(req.Command[n-1]))
	c.mu.Unlock()
	return c.Fake.Submit(ctx, req)
}

func TestSlurmExecutorMatchesLocal(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fanout.hcl")
	want := runLocal(t, p)

	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	run := slurmInProcess(reg)
	pc := &peakCluster{Fake: f}
	f.Exec = run
	f.PendingDelay = 5 * time.Millisecond
	log := &slurmLog{}
	opts := slurmTestOptions(pc, t.TempDir(), log)
	opts.Partition, opts.Account, opts.MaxJobs = "debug", "lab", 2
	store := executortest.NewMemStore()
	ex, err := slurm.New(store, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || res.Status != runner.RunOK {
		t.Fatalf("slurm run: %v, %+v", err, res)
	}
	if got, w := digests(res), digests(want); !reflect.DeepEqual(got, w) {
		t.Errorf("digests differ from the local run:\n slurm %v\n local %v", got, w)
	}
	if res.ByAddress["sum.total"].Metrics["count"] != 3 {
		t.Errorf("metrics of sum.total: %v", res.ByAddress["sum.total"].Metrics)
	}
	if p := pc.peak; p != 2 {
		t.Errorf("at most %d jobs were queued or running at once, want MaxJobs = 2", p)
	}
	reqs := f.Submitted()
	if len(reqs) != 7 {
		t.Fatalf("%d jobs submitted, want 7", len(reqs))
	}
	for _, r := range reqs {
		rs := r.Resources
		if rs.CPUs != 1 || rs.MemMB != 200 || rs.Time != 5*time.Minute || rs.Partition != "debug" || rs.Account != "lab" {
			t.Errorf("job %s resources %+v", r.Name, rs)
		}
		if !strings.HasPrefix(r.Name, "hf:") || !strings.HasPrefix(r.Comment, "hylaflow ") {
			t.Errorf("job name %q comment %q", r.Name, r.Comment)
		}
	}
	// A second run is fully cached: nothing is submitted.
	res2, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || res2.Count(runner.StatusCached) != 7 || len(f.Submitted()) != 7 {
		t.Errorf("second run: %v, %d cached, %d submitted", err, res2.Count(runner.StatusCached), len(f.Submitted()))
	}
}

func TestSlurmExecutorFailingStage(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fail.hcl")
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	f.Exec = slurmInProcess(reg)
	store := executortest.NewMemStore()
	ex, err := slurm.New(store, slurmTestOptions(f, t.TempDir(), &slurmLog{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 4, Executor: ex, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	b := res.ByAddress["fail.b"]
	if res.Status != runner.RunFailed || b.Status != runner.StatusFailed || b.Err == nil ||
		!strings.Contains(b.Err.Error(), "boom on purpose") || !strings.Contains(b.Err.Error(), "slurm job") {
		t.Fatalf("status %s, fail.b %+v", res.Status, b)
	}
	if s := res.ByAddress["scale.c"].Status; s != runner.StatusSkipped {
		t.Errorf("scale.c is %s, want skipped", s)
	}
	if s := res.ByAddress["scale.d"].Status; s != runner.StatusRan {
		t.Errorf("scale.d is %s, want ran (keep-going)", s)
	}
}

// A job that dies before hylaflow writes its done-record (out of memory,
// launch failure, time limit) fails the stage with the job's state and log.
func TestSlurmExecutorJobDiesWithoutRecord(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fail.hcl")
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	dir := t.TempDir()
	f.Exec = func(ctx context.Context, id string, req *slurmcmd.SubmitRequest) int {
		os.WriteFile(strings.ReplaceAll(req.Output, "%j", id), []byte("slurmstepd: error: Detected 1 oom_kill event\n"), 0o644)
		return 137
	}
	store := executortest.NewMemStore()
	ex, err := slurm.New(store, slurmTestOptions(f, dir, &slurmLog{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 4, Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	a := res.ByAddress["value.a"]
	if a.Status != runner.StatusFailed || a.Err == nil {
		t.Fatalf("value.a: %+v", a)
	}
	msg := a.Err.Error()
	for _, want := range []string{"ended without a done-record", "FAILED", "exit 137", "oom_kill"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

// noCancel is a cluster whose driver was killed: it never scancels.
type noCancel struct{ *slurmcmd.Fake }

func (noCancel) Cancel(context.Context, ...string) error { return nil }

// TestSlurmExecutorDriverRestart kills the driver while its three first
// jobs are queued; meanwhile one job finishes, one is lost (purged) and one
// stays queued. The restarted driver ingests the first, resubmits the
// second, re-attaches to the third and finishes the pipeline with the
// digests of a local run.
func TestSlurmExecutorDriverRestart(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fanout.hcl")
	want := runLocal(t, p)
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	f.Exec = slurmInProcess(reg)
	f.Hold = true
	dir := t.TempDir()
	store := executortest.NewMemStore()

	log1 := &slurmLog{}
	ex1, err := slurm.New(store, slurmTestOptions(noCancel{f}, dir, log1))
	if err != nil {
		t.Fatal(err)
	}
	ctx, kill := context.WithCancel(context.Background())
	done := make(chan *runner.RunResult)
	go func() {
		res, _ := runner.Run(ctx, p, store, runner.RunOptions{Jobs: 8, Executor: ex1})
		done <- res
	}()
	waitFor(t, "3 submissions", func() bool { return log1.count("submitted slurm job") == 3 })
	kill()
	if res := <-done; res == nil || res.Status != runner.RunCanceled {
		t.Fatalf("killed driver: %+v", res)
	}
	ids := f.IDs()
	if len(ids) != 3 {
		t.Fatalf("jobs %v", ids)
	}
	// While no driver runs: one job finishes, one is lost, one stays queued.
	f.Release(ids[0])
	if err := f.Wait(context.Background(), ids[0]); err != nil {
		t.Fatal(err)
	}
	f.Forget(ids[1])
	f.Hold = false

	log2 := &slurmLog{}
	ex2, err := slurm.New(store, slurmTestOptions(f, dir, log2))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		res, _ := runner.Run(context.Background(), p, store, runner.RunOptions{Jobs: 8, Executor: ex2})
		done <- res
	}()
	waitFor(t, "re-attachment", func() bool { return log2.count("re-attached to slurm job "+ids[2]) == 1 })
	f.Release(ids[2])
	res := <-done
	if res == nil || res.Status != runner.RunOK {
		t.Fatalf("restarted driver: %+v", res)
	}
	if got, w := digests(res), digests(want); !reflect.DeepEqual(got, w) {
		t.Errorf("digests differ from the local run:\n slurm %v\n local %v", got, w)
	}
	if n := log2.count("ingested the done-record of slurm job " + ids[0]); n != 1 {
		t.Errorf("finished job ingested %d times; log %q", n, log2.lines)
	}
	if n := log2.count("slurm job " + ids[1] + " of an earlier run is gone from the queue without an ok done-record; submitting again"); n != 1 {
		t.Errorf("lost job reported %d times; log %q", n, log2.lines)
	}
	// 3 first jobs + 1 resubmission of the lost one + 4 later stages.
	if n := len(f.Submitted()); n != 8 {
		t.Errorf("%d submissions, want 8; log %q", n, log2.lines)
	}
}

// TestSlurmExecutorCancel cancels a run whose jobs are queued and running:
// every job of the run is scancelled and no output is stored.
func TestSlurmExecutorCancel(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fanout.hcl")
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	f.MaxRunning = 1
	started := make(chan struct{}, 8)
	f.Exec = func(ctx context.Context, id string, req *slurmcmd.SubmitRequest) int {
		started <- struct{}{}
		<-ctx.Done()
		return 143
	}
	log := &slurmLog{}
	store := executortest.NewMemStore()
	ex, err := slurm.New(store, slurmTestOptions(f, t.TempDir(), log))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *runner.RunResult)
	go func() {
		res, _ := runner.Run(ctx, p, store, runner.RunOptions{Jobs: 8, Executor: ex})
		done <- res
	}()
	waitFor(t, "3 submissions", func() bool { return log.count("submitted slurm job") == 3 })
	<-started
	cancel()
	res := <-done
	if res == nil || res.Status != runner.RunCanceled {
		t.Fatalf("canceled run: %+v", res)
	}
	for _, id := range f.IDs() {
		// scancel is asynchronous: a running job ends shortly after.
		c, stop := context.WithTimeout(context.Background(), 10*time.Second)
		if err := f.Wait(c, id); err != nil {
			t.Errorf("job %s still running after the run was canceled", id)
		}
		stop()
		if j, err := f.Job(context.Background(), id); err != nil || j.State != slurmcmd.StateCancelled {
			t.Errorf("job %s: %+v, %v", id, j, err)
		}
	}
	if keys := store.Keys(); len(keys) != 0 {
		t.Errorf("canceled run stored %v", keys)
	}
}

// TestSlurmConformance runs the executor conformance suite against the
// Slurm executor on the fake cluster, its jobs running in this process.
func TestSlurmConformance(t *testing.T) {
	reg := executortest.Types()
	executortest.Run(t, func(t *testing.T) executortest.Env {
		f := slurmcmd.NewFake()
		t.Cleanup(f.Close)
		f.Exec = slurmInProcess(reg)
		store := executortest.NewMemStore()
		ex, err := slurm.New(store, slurmTestOptions(f, t.TempDir(), &slurmLog{}))
		if err != nil {
			t.Fatal(err)
		}
		return executortest.Env{Executor: ex, Store: store}
	})
}

// TestSlurmRunsCommands: a command stage runs as a Slurm job like any
// other (fake cluster, the job's process in this one, rebuilding the task
// from its spec): its program gets its input, its declared outputs are
// stored, a failing program stores nothing.
func TestSlurmRunsCommands(t *testing.T) {
	reg := stages.Default()
	executortest.RunCommand(t, func(t *testing.T) executortest.Env {
		f := slurmcmd.NewFake()
		t.Cleanup(f.Close)
		f.Exec = slurmInProcess(reg)
		store := executortest.NewMemStore()
		ex, err := slurm.New(store, slurmTestOptions(f, t.TempDir(), &slurmLog{}))
		if err != nil {
			t.Fatal(err)
		}
		return executortest.Env{Executor: ex, Store: store, Registry: reg}
	})
}

// blindQueue is a cluster whose squeue never lists a job: every job looks
// purged from the queue.
type blindQueue struct{ *slurmcmd.Fake }

func (blindQueue) Jobs(context.Context, []string) (map[string]slurmcmd.JobInfo, error) {
	return map[string]slurmcmd.JobInfo{}, nil
}

// A job that vanishes from the queue without a done-record is submitted
// once more; when that one vanishes too, the stage fails (it never hangs and
// never reports success without outputs).
func TestSlurmExecutorJobVanishesTwice(t *testing.T) {
	reg := stages.Default()
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	f.Exec = func(context.Context, string, *slurmcmd.SubmitRequest) int { return 0 }
	log := &slurmLog{}
	store := executortest.NewMemStore()
	ex, err := slurm.New(store, slurmTestOptions(blindQueue{f}, t.TempDir(), log))
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := reg.Lookup("value")
	task, err := runner.NewTask(typ, "value.a", registry.Values{"values": []float64{1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Execute(context.Background(), task, runner.Hooks{})
	if err == nil || res != nil || !strings.Contains(err.Error(), "vanished from the queue without a done-record") {
		t.Fatalf("Execute = %+v, %v; want a vanished-job error", res, err)
	}
	if n := len(f.Submitted()); n != 2 {
		t.Errorf("%d submissions, want 2", n)
	}
	if n := log.count("vanished without a done-record; submitting again"); n != 1 {
		t.Errorf("resubmission logged %d times; log %q", n, log.lines)
	}
	if _, ok, _ := store.Lookup(task.Key()); ok {
		t.Error("a vanished job's key is stored")
	}
}

// slowSbatch is a cluster whose sbatch takes a while; it records how many
// run at once.
type slowSbatch struct {
	*slurmcmd.Fake
	inFlight, peak atomic.Int64
}

func (c *slowSbatch) Submit(ctx context.Context, req *slurmcmd.SubmitRequest) (string, error) {
	n := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	time.Sleep(20 * time.Millisecond)
	return c.Fake.Submit(ctx, req)
}

// Twelve stages ready at once are submitted at most four sbatch at a time.
func TestSlurmExecutorBoundsSbatch(t *testing.T) {
	reg := stages.Default()
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	f.Exec = slurmInProcess(reg)
	c := &slowSbatch{Fake: f}
	store := executortest.NewMemStore()
	ex, err := slurm.New(store, slurmTestOptions(c, t.TempDir(), &slurmLog{}))
	if err != nil {
		t.Fatal(err)
	}
	typ, _ := reg.Lookup("value")
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := range 12 {
		task, err := runner.NewTask(typ, fmt.Sprintf("value.v%d", i), registry.Values{"values": []float64{float64(i)}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := ex.Execute(context.Background(), task, runner.Hooks{})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n, p := len(f.Submitted()), c.peak.Load(); n != 12 || p != 4 {
		t.Errorf("%d submissions, at most %d sbatch at once; want 12 and 4", n, p)
	}
}
