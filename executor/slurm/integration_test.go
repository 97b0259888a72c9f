package slurm_test

// Integration tests of the Slurm executor against a real cluster: the
// single-node cluster of scripts/slurm-dev-cluster.sh (scripts/ci-slurm.sh
// starts it, runs these tests with HYLAFLOW_SLURM=1 and stops it). The jobs
// run a hylaflow binary built from this module; the driver runs in this
// process or, for the kill and Ctrl-C tests, as `hylaflow run` subprocesses.

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
	"github.com/hylaflow/hylaflow/stages"
)

// slurmCluster returns a client for the running dev cluster; the test is
// skipped unless HYLAFLOW_SLURM=1.
func slurmCluster(t testing.TB) *slurmcmd.Client {
	t.Helper()
	if os.Getenv("HYLAFLOW_SLURM") != "1" {
		t.Skip("set HYLAFLOW_SLURM=1 with a cluster up (scripts/slurm-dev-cluster.sh up)")
	}
	return &slurmcmd.Client{}
}

// The hylaflow binary the jobs and drivers run, built once per test
// binary by slurmBuild and removed by TestMain.
var (
	slurmBinOnce sync.Once
	slurmBinDir  string
	slurmBinErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if slurmBinDir != "" {
		os.RemoveAll(slurmBinDir)
	}
	os.Exit(code)
}

// slurmBuild returns the path of a hylaflow binary built from this module.
func slurmBuild(t testing.TB) string {
	t.Helper()
	slurmBinOnce.Do(func() {
		slurmBinDir, slurmBinErr = os.MkdirTemp("", "hylaflow-slurm-test")
		if slurmBinErr != nil {
			return
		}
		// The remote helper beside it: the jobs reach an s3:// store through it.
		if out, err := exec.Command("go", "build", "-o", slurmBinDir+string(filepath.Separator), "github.com/hylaflow/hylaflow/cmd/hylaflow", "github.com/hylaflow/hylaflow/cmd/hylaflow-remote").CombinedOutput(); err != nil {
			slurmBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if slurmBinErr != nil {
		t.Fatal(slurmBinErr)
	}
	return filepath.Join(slurmBinDir, "hylaflow")
}

func slurmOpenCache(t testing.TB, dir string) *cache.Cache {
	t.Helper()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func slurmClusterOptions(bin string, cl slurmcmd.Cluster, dir string, log *slurmLog) slurm.Options {
	return slurm.Options{Cluster: cl, Dir: dir, Command: []string{bin},
		Poll: 200 * time.Millisecond, Grace: 5 * time.Second, Logf: log.logf}
}

// slurmSubmissions reads the store's submission records: address → record.
func slurmSubmissions(t *testing.T, dir string) map[string]*slurm.Submission {
	t.Helper()
	st := &slurm.Store{Dir: dir}
	files, _ := filepath.Glob(filepath.Join(dir, "jobs", "*.json"))
	out := map[string]*slurm.Submission{}
	for _, f := range files {
		key := strings.TrimSuffix(filepath.Base(f), ".json")
		sub, ok, err := st.ReadSubmission(key)
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			out[sub.Address] = sub
		}
	}
	return out
}

// TestSlurmClusterMatchesLocal runs a fan-out/fan-in pipeline through the
// cluster: the digests equal a local run's, every job left a done-record
// naming its job id and ended COMPLETED, and a second run submits nothing.
func TestSlurmClusterMatchesLocal(t *testing.T) {
	cl := slurmCluster(t)
	bin := slurmBuild(t)
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fanout.hcl")
	ctx := context.Background()
	local := slurmOpenCache(t, filepath.Join(t.TempDir(), "local"))
	want, err := runner.Run(ctx, p, local, runner.RunOptions{Jobs: 2})
	if err != nil || want.Status != runner.RunOK {
		t.Fatalf("local run: %v %+v", err, want)
	}

	c := slurmOpenCache(t, filepath.Join(t.TempDir(), "cache"))
	dir := t.TempDir()
	log := &slurmLog{}
	ex, err := slurm.New(c, slurmClusterOptions(bin, cl, dir, log))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(ctx, p, c, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || res.Status != runner.RunOK {
		t.Fatalf("slurm run: %v %+v; log %q", err, res, log.lines)
	}
	if got, w := digests(res), digests(want); !reflect.DeepEqual(got, w) {
		t.Errorf("digests differ from the local run:\n slurm %v\n local %v", got, w)
	}
	subs := slurmSubmissions(t, dir)
	if len(subs) != 7 {
		t.Fatalf("%d submission records, want 7", len(subs))
	}
	for addr, sub := range subs {
		d, ok, err := ex.Store().ReadDone(sub.Key)
		if err != nil || !ok || d.Status != slurm.DoneOK || d.JobID != sub.JobID || d.Host == "" || d.Address != addr {
			t.Errorf("%s: done-record %+v, %v (submission %+v)", addr, d, err, sub)
		}
		// The done-record comes before the job ends (COMPLETING, then COMPLETED).
		var j slurmcmd.JobInfo
		slurmWaitUntil(t, addr+"'s job to end", 30*time.Second, func() bool {
			j, err = cl.Job(ctx, sub.JobID)
			return err != nil || j.State.Terminal()
		})
		if err != nil || j.State != slurmcmd.StateCompleted || j.ExitCode != 0 {
			t.Errorf("%s: job %+v, %v", addr, j, err)
		}
		if _, err := os.Stat(ex.Store().LogPath(sub.Key, sub.JobID)); err != nil {
			t.Errorf("%s: job log: %v", addr, err)
		}
	}
	n := log.count("submitted slurm job")
	again, err := runner.Run(ctx, p, c, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || again.Count(runner.StatusCached) != 7 || log.count("submitted slurm job") != n {
		t.Errorf("second run: %v, %d cached, %d submissions (was %d)", err, again.Count(runner.StatusCached), log.count("submitted slurm job"), n)
	}
}

// TestSlurmClusterFailingStage: the failing stage's job reports the
// stage's error; with keep-going, the independent stage still runs.
func TestSlurmClusterFailingStage(t *testing.T) {
	cl := slurmCluster(t)
	bin := slurmBuild(t)
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fail.hcl")
	ctx := context.Background()
	c := slurmOpenCache(t, filepath.Join(t.TempDir(), "cache"))
	dir := t.TempDir()
	ex, err := slurm.New(c, slurmClusterOptions(bin, cl, dir, &slurmLog{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(ctx, p, c, runner.RunOptions{Jobs: 4, Executor: ex, KeepGoing: true})
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
	sub := slurmSubmissions(t, dir)["fail.b"]
	if sub == nil {
		t.Fatal("no submission record for fail.b")
	}
	var j slurmcmd.JobInfo
	slurmWaitUntil(t, "fail.b's job to end", 30*time.Second, func() bool {
		j, err = cl.Job(ctx, sub.JobID)
		return err != nil || j.State.Terminal()
	})
	if err != nil || j.State != slurmcmd.StateFailed || j.ExitCode != 1 {
		t.Errorf("fail.b's job: %+v, %v; want FAILED with exit 1", j, err)
	}
	if _, ok, _ := c.Lookup(sub.Key); ok {
		t.Error("the failed stage's key is stored")
	}
}

// TestSlurmClusterConformance runs the executor conformance suite, and its
// command-stage part, with every task as a real Slurm job. The jobs run the hylaflow binary, so the
// tasks use its stage types (the built-in generic stages, over bundles).
func TestSlurmClusterConformance(t *testing.T) {
	cl := slurmCluster(t)
	bin := slurmBuild(t)
	values := func(a artifact.Artifact) ([]float64, error) {
		b, err := bundle.From(a)
		if err != nil {
			return nil, err
		}
		return b.Floats(stages.GenericMemberValues)
	}
	executortest.Run(t, func(t *testing.T) executortest.Env {
		store := executortest.NewMemStore()
		ex, err := slurm.New(store, slurmClusterOptions(bin, cl, t.TempDir(), &slurmLog{}))
		if err != nil {
			t.Fatal(err)
		}
		return executortest.Env{Executor: ex, Store: store, Registry: stages.Default(), Values: values}
	})
	executortest.RunCommand(t, func(t *testing.T) executortest.Env {
		store := executortest.NewMemStore()
		ex, err := slurm.New(store, slurmClusterOptions(bin, cl, t.TempDir(), &slurmLog{}))
		if err != nil {
			t.Fatal(err)
		}
		return executortest.Env{Executor: ex, Store: store, Registry: stages.Default()}
	})
}

// slurmDriver is a `hylaflow run --executor slurm` subprocess.
type slurmDriver struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	done   chan struct{}
	code   int
}

func slurmStartDriver(t *testing.T, bin, store, cdir string, args ...string) *slurmDriver {
	t.Helper()
	argv := append([]string{"run", "--executor", "slurm", "--store", store, "--cache", cdir, "-v"}, args...)
	d := &slurmDriver{cmd: exec.Command(bin, argv...), done: make(chan struct{})}
	d.cmd.Stderr = &d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.cmd.Wait()
		d.code = d.cmd.ProcessState.ExitCode()
		close(d.done)
	}()
	t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.done
	})
	return d
}

func (d *slurmDriver) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-d.done:
		return d.code
	case <-time.After(limit):
		t.Fatalf("driver still running after %v; stderr:\n%s", limit, d.stderr.String())
		return 0
	}
}

func slurmWaitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSlurmClusterDriverKilled kills the driver (SIGKILL) once the three
// sleep jobs are queued. While no driver runs, the short sleep finishes and
// the test scancels the "lost" one. The restarted driver ingests the short
// one's done-record, re-attaches to the long one, submits the lost one
// again and finishes; every key is then in the cache, and the sum is right.
func TestSlurmClusterDriverKilled(t *testing.T) {
	cl := slurmCluster(t)
	bin := slurmBuild(t)
	ctx := context.Background()
	tmp := t.TempDir()
	store, cdir := filepath.Join(tmp, "store"), filepath.Join(tmp, "cache")
	file, err := filepath.Abs(filepath.Join("testdata", "restart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	d1 := slurmStartDriver(t, bin, store, cdir, file)
	var subs map[string]*slurm.Submission
	slurmWaitUntil(t, "the three sleep submissions", 60*time.Second, func() bool {
		subs = slurmSubmissions(t, store)
		return subs["sleep.short"] != nil && subs["sleep.long"] != nil && subs["sleep.lost"] != nil
	})
	d1.cmd.Process.Signal(syscall.SIGKILL)
	if code := d1.wait(t, 10*time.Second); code != -1 {
		t.Fatalf("killed driver exit code %d", code)
	}
	short, long, lost := subs["sleep.short"], subs["sleep.long"], subs["sleep.lost"]
	t.Cleanup(func() { cl.Cancel(context.Background(), long.JobID, lost.JobID) })
	if err := cl.Cancel(ctx, lost.JobID); err != nil {
		t.Fatal(err)
	}
	st := &slurm.Store{Dir: store}
	slurmWaitUntil(t, "the short sleep's done-record", 60*time.Second, func() bool {
		_, ok, _ := st.ReadDone(short.Key)
		return ok
	})
	slurmWaitUntil(t, "the lost job's end", 30*time.Second, func() bool {
		j, err := cl.Job(ctx, lost.JobID)
		return err == nil && j.State.Terminal()
	})
	if j, err := cl.Job(ctx, long.JobID); err != nil || j.State.Terminal() {
		t.Fatalf("the long job ended before the restart: %+v %v", j, err)
	}

	d2 := slurmStartDriver(t, bin, store, cdir, file)
	if code := d2.wait(t, 120*time.Second); code != 0 {
		t.Fatalf("restarted driver: exit %d; stderr:\n%s", code, d2.stderr.String())
	}
	log := d2.stderr.String()
	for _, want := range []string{
		"sleep.short: ingested the done-record of slurm job " + short.JobID + " from an earlier run",
		"sleep.long: re-attached to slurm job " + long.JobID,
		"sleep.lost: slurm job " + lost.JobID + " of an earlier run ended CANCELLED without an ok done-record; submitting again",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("restarted driver's log lacks %q:\n%s", want, log)
		}
	}
	if n := strings.Count(log, "submitted slurm job"); n != 2 {
		t.Errorf("restarted driver submitted %d jobs, want 2 (sleep.lost again, sum.total):\n%s", n, log)
	}

	// Everything is in the driver's cache now: a local run computes nothing.
	p := slurmTestPipeline(t, stages.Default(), "restart.hcl")
	c := slurmOpenCache(t, cdir)
	res, err := runner.Run(ctx, p, c, runner.RunOptions{Jobs: 2})
	if err != nil || res.Count(runner.StatusCached) != 5 {
		t.Fatalf("local rerun: %v, %d of 5 cached", err, res.Count(runner.StatusCached))
	}
	vec := func(addr string) []float64 {
		var ref cache.OutputRef
		for _, o := range res.ByAddress[addr].Outputs {
			if o.Name == "out" {
				ref = o
			}
		}
		art, err := c.Load(ref)
		if err != nil {
			t.Fatal(err)
		}
		a, err := bundle.From(art)
		if err != nil {
			t.Fatal(err)
		}
		v, err := a.Floats(stages.GenericMemberValues)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	x, sum := vec("random.x"), vec("sum.total")
	if len(x) != 20 || len(sum) != 20 {
		t.Fatalf("lengths %d, %d", len(x), len(sum))
	}
	for i := range x {
		if want := x[i] + x[i] + x[i]; sum[i] != want {
			t.Fatalf("sum[%d] = %v, want 3·x = %v", i, sum[i], want)
		}
	}
}

// TestSlurmClusterCancel interrupts the driver (Ctrl-C) while its jobs run
// and wait: it exits 130 and every job it submitted ends CANCELLED, except
// the source, which had completed.
func TestSlurmClusterCancel(t *testing.T) {
	cl := slurmCluster(t)
	bin := slurmBuild(t)
	ctx := context.Background()
	tmp := t.TempDir()
	store, cdir := filepath.Join(tmp, "store"), filepath.Join(tmp, "cache")
	file, err := filepath.Abs(filepath.Join("testdata", "restart.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	d := slurmStartDriver(t, bin, store, cdir, "-var", "long_ms=120000", file)
	var subs map[string]*slurm.Submission
	slurmWaitUntil(t, "a running sleep job", 60*time.Second, func() bool {
		subs = slurmSubmissions(t, store)
		if subs["sleep.long"] == nil || subs["sleep.lost"] == nil {
			return false
		}
		j, err := cl.Job(ctx, subs["sleep.long"].JobID)
		return err == nil && j.State == slurmcmd.StateRunning
	})
	t.Cleanup(func() { cl.Cancel(context.Background(), subs["sleep.long"].JobID, subs["sleep.lost"].JobID) })
	d.cmd.Process.Signal(syscall.SIGINT)
	if code := d.wait(t, 60*time.Second); code != 130 {
		t.Fatalf("interrupted driver: exit %d, want 130; stderr:\n%s", code, d.stderr.String())
	}
	for addr, sub := range subs {
		want := slurmcmd.StateCancelled
		if addr == "random.x" || addr == "sleep.short" {
			if j, err := cl.Job(ctx, sub.JobID); err == nil && j.State == slurmcmd.StateCompleted {
				continue // finished before the interrupt
			}
		}
		var j slurmcmd.JobInfo
		slurmWaitUntil(t, addr+"'s job to end", 30*time.Second, func() bool {
			j, err = cl.Job(ctx, sub.JobID)
			return err == nil && j.State.Terminal()
		})
		if j.State != want {
			t.Errorf("%s: job %s, want %s", addr, j, want)
		}
		if d, ok, _ := (&slurm.Store{Dir: store}).ReadDone(sub.Key); ok && addr != "random.x" && addr != "sleep.short" {
			t.Errorf("%s: a canceled job wrote a done-record %+v", addr, d)
		}
	}
}

// BenchmarkSlurmClusterStage measures the Slurm executor's per-stage
// latency: Execute of one tiny stage (submit, queue, launch, run, done-
// record, ingest) per iteration, one at a time. Compare with
// BenchmarkLocalStage. The metrics split the time: queue+launch (submission
// to the job's start), run (the job's hylaflow process) and ingest (the
// done-record's end to Execute's return, including the done-record poll).
func BenchmarkSlurmClusterStage(b *testing.B) {
	cl := slurmCluster(b)
	bin := slurmBuild(b)
	slurmBenchStage(b, func(store runner.Store) (runner.Executor, *slurm.Store) {
		ex, err := slurm.New(store, slurmClusterOptions(bin, cl, b.TempDir(), &slurmLog{}))
		if err != nil {
			b.Fatal(err)
		}
		return ex, ex.Store()
	})
}

// BenchmarkSlurmClusterRemoteStage is BenchmarkSlurmClusterStage with the
// remote store ($HYLAFLOW_SLURM_REMOTE) instead of a shared directory: the
// per-stage cost of exchanging through the object store (the driver's
// checks and writes, the job's scratch cache, fetch and push).
func BenchmarkSlurmClusterRemoteStage(b *testing.B) {
	cl := slurmCluster(b)
	base := os.Getenv("HYLAFLOW_SLURM_REMOTE")
	if base == "" {
		b.Skip("set HYLAFLOW_SLURM_REMOTE=s3://BUCKET/PREFIX")
	}
	bin := slurmBuild(b)
	slurmBenchStage(b, func(store runner.Store) (runner.Executor, *slurm.Store) {
		opts := slurmClusterOptions(bin, cl, "", &slurmLog{})
		opts.Remote = fmt.Sprintf("%s/bench-%d", strings.TrimSuffix(base, "/"), time.Now().UnixNano())
		ex, err := slurm.New(store, opts)
		if err != nil {
			b.Fatal(err)
		}
		return ex, nil
	})
}

// BenchmarkLocalStage is BenchmarkSlurmClusterStage's baseline: the same
// stages with the local executor on a real cache.
func BenchmarkLocalStage(b *testing.B) {
	slurmBenchStage(b, func(store runner.Store) (runner.Executor, *slurm.Store) {
		return runner.NewLocal(store), nil
	})
}

func slurmBenchStage(b *testing.B, mk func(runner.Store) (runner.Executor, *slurm.Store)) {
	c := slurmOpenCache(b, filepath.Join(b.TempDir(), "cache"))
	ex, st := mk(c)
	typ, _ := stages.Default().Lookup("value")
	base := float64(time.Now().UnixNano())
	var queue, run, ingest time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		task, err := runner.NewTask(typ, "value.bench", registry.Values{"values": []float64{base, float64(i)}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ex.Execute(context.Background(), task, runner.Hooks{}); err != nil {
			b.Fatal(err)
		}
		returned := time.Now()
		if st != nil {
			sub, _, _ := st.ReadSubmission(task.Key())
			d, _, _ := st.ReadDone(task.Key())
			if sub != nil && d != nil {
				queue += d.Start.Sub(sub.Submitted)
				run += d.End.Sub(d.Start)
				ingest += returned.Sub(d.End)
			}
		}
	}
	if st != nil && b.N > 0 {
		n := float64(b.N)
		b.ReportMetric(float64(queue.Milliseconds())/n, "queue-ms/op")
		b.ReportMetric(float64(run.Milliseconds())/n, "run-ms/op")
		b.ReportMetric(float64(ingest.Milliseconds())/n, "ingest-ms/op")
	}
}

// slurmRemoteURL returns the remote store the remote-backed cluster tests
// use, under a prefix of their own: $HYLAFLOW_SLURM_REMOTE (scripts/ci-slurm.sh
// points it at SeaweedFS, scripts/s3-dev-server.sh), with the cluster up.
func slurmRemoteURL(t *testing.T) string {
	t.Helper()
	slurmCluster(t)
	base := os.Getenv("HYLAFLOW_SLURM_REMOTE")
	if base == "" {
		t.Skip("set HYLAFLOW_SLURM_REMOTE=s3://BUCKET/PREFIX (scripts/ci-slurm.sh starts scripts/s3-dev-server.sh)")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + fmt.Sprintf("/%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	return u.String()
}

// slurmHidingWrapper writes a job command that runs bin in a private mount
// namespace where hide is an empty tmpfs: a job of it cannot read anything
// under hide (the driver's cache), whatever paths it is given. The wrapper
// refuses to run bin if hide still shows a file.
func slurmHidingWrapper(t *testing.T, bin, hide string) string {
	t.Helper()
	if out, err := exec.Command("unshare", "--mount", "true").CombinedOutput(); err != nil {
		t.Fatalf("unshare --mount (the test hides the driver's cache from the jobs with it): %v %s", err, out)
	}
	w := filepath.Join(slurmBinDir, "hide-"+filepath.Base(hide))
	script := `#!/bin/sh
# run hylaflow with the driver's directory hidden (an empty tmpfs over it)
exec unshare --mount --propagation private /bin/sh -c '
mount -t tmpfs hidden "$0" || exit 70
[ -z "$(ls -A "$0")" ] || { echo "the driver directory $0 is visible" >&2; exit 70; }
exec "$@"' ` + "'" + hide + "' '" + bin + `' "$@"
`
	if err := os.WriteFile(w, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSlurmClusterRemoteOnly runs the fan-out pipeline through the real
// cluster with a remote store (SeaweedFS) as the only thing the driver and
// its jobs share: each job runs with the driver's directory hidden from it
// (slurmHidingWrapper) and its scratch cache in a fresh $TMPDIR directory.
// The digests equal a local run's, every job's log is on the remote, the
// scratch directories are gone, and a second run submits nothing.
func TestSlurmClusterRemoteOnly(t *testing.T) {
	cl := slurmCluster(t)
	rurl := slurmRemoteURL(t)
	bin := slurmBuild(t)
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fanout.hcl")
	ctx := context.Background()
	want, err := runner.Run(ctx, p, executortest.NewMemStore(), runner.RunOptions{Jobs: 2})
	if err != nil || want.Status != runner.RunOK {
		t.Fatalf("local run: %v %+v", err, want)
	}
	driver := t.TempDir()
	c := slurmOpenCache(t, filepath.Join(driver, "cache"))
	scratch := filepath.Join(slurmBinDir, "scratch-"+filepath.Base(driver))
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		t.Fatal(err)
	}
	log := &slurmLog{}
	opts := slurmClusterOptions(slurmHidingWrapper(t, bin, driver), cl, "", log)
	opts.Remote, opts.Env = rurl, []string{"TMPDIR=" + scratch}
	ex, err := slurm.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(ctx, p, c, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || res.Status != runner.RunOK {
		t.Fatalf("slurm run: %v %+v; log %q", err, res, log.lines)
	}
	if got, w := digests(res), digests(want); !reflect.DeepEqual(got, w) {
		t.Errorf("digests differ from the local run:\n slurm %v\n local %v", got, w)
	}
	r, err := remote.Open(ctx, rurl, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := &slurm.RemoteStore{Remote: r}
	for _, st := range res.Stages {
		d, ok, err := rs.ReadDone(ctx, st.Key)
		if err != nil || !ok || d.Status != slurm.DoneOK || d.JobID == "" {
			t.Fatalf("%s: done-record %+v, %v", st.Address, d, err)
		}
		b, ok, err := r.ReadFile(ctx, slurm.LogName(st.Key, d.JobID), 1<<20)
		if err != nil || !ok || !strings.Contains(string(b), "scratch cache in "+scratch) {
			t.Errorf("%s: job log on the remote %q, %v", st.Address, b, err)
		}
	}
	if ents, _ := os.ReadDir(scratch); len(ents) != 0 {
		t.Errorf("the jobs left %d entries in their TMPDIR", len(ents))
	}
	n := log.count("submitted slurm job")
	again, err := runner.Run(ctx, p, c, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || again.Count(runner.StatusCached) != 7 || log.count("submitted slurm job") != n {
		t.Errorf("second run: %v, %d cached, %d submissions (was %d)", err, again.Count(runner.StatusCached), log.count("submitted slurm job"), n)
	}
}

// TestSlurmClusterRemoteDamagedInput: an input payload damaged on the S3
// server (same size, other bytes) between its producer's job and its
// consumer's: the consumer's job refuses it (digest), removes it and
// fails naming it; the driver uploads its verified copy again and the
// resubmitted job computes the local run's digest.
func TestSlurmClusterRemoteDamagedInput(t *testing.T) {
	cl := slurmCluster(t)
	rurl := slurmRemoteURL(t)
	bin := slurmBuild(t)
	reg := stages.Default()
	ctx := context.Background()
	c := slurmOpenCache(t, filepath.Join(t.TempDir(), "cache"))
	log := &slurmLog{}
	opts := slurmClusterOptions(bin, cl, "", log)
	opts.Remote = rurl
	ex, err := slurm.New(c, opts)
	if err != nil {
		t.Fatal(err)
	}
	vt, _ := reg.Lookup("value")
	st, _ := reg.Lookup("scale")
	src, err := runner.NewTask(vt, "value.src", registry.Values{"values": []float64{1, 2, 3, float64(time.Now().UnixNano())}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r1, err := ex.Execute(ctx, src, runner.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	var in cache.OutputRef
	for _, o := range r1.Outputs {
		if o.Name == "out" {
			in = o
		}
	}
	r, err := remote.Open(ctx, rurl, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.Bucket().ReadAll(ctx, remote.ObjectKey(in.Digest))
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := r.Bucket().WriteAll(ctx, remote.ObjectKey(in.Digest), b, nil); err != nil {
		t.Fatal(err)
	}
	task, err := runner.NewTask(st, "scale.x", registry.Values{"factor": 2.0},
		map[string][]runner.TaskInput{"in": {{Label: "value.src", Ref: in}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Execute(ctx, task, runner.Hooks{})
	if err != nil {
		t.Fatalf("Execute over a damaged input: %v; log %q", err, log.lines)
	}
	if log.count("could not fetch an input soundly from the remote; uploading it again and resubmitting") != 1 {
		t.Errorf("no restage in the log %q", log.lines)
	}
	local := executortest.NewMemStore()
	lsrc, err := runner.NewLocal(local).Execute(ctx, src, runner.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	var lin cache.OutputRef
	for _, o := range lsrc.Outputs {
		if o.Name == "out" {
			lin = o
		}
	}
	ltask, err := runner.NewTask(st, "scale.x", registry.Values{"factor": 2.0},
		map[string][]runner.TaskInput{"in": {{Label: "value.src", Ref: lin}}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := runner.NewLocal(local).Execute(ctx, ltask, runner.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range res.Outputs {
		got[o.Name] = o.Digest
	}
	for _, o := range want.Outputs {
		if got[o.Name] != o.Digest {
			t.Errorf("output %s: digest %s, local %s", o.Name, got[o.Name], o.Digest)
		}
	}
	if ok, err := r.Has(ctx, remote.ObjectKey(in.Digest)); err != nil || !ok {
		t.Errorf("the input's payload is not back on the remote: %v", err)
	} else if b2, _ := r.Bucket().ReadAll(ctx, remote.ObjectKey(in.Digest)); bytes.Equal(b2, b) {
		t.Error("the damaged payload is still on the remote")
	}
}

// TestSlurmClusterRemoteConformance runs the conformance suite's tasks as
// real Slurm jobs exchanging artifacts through the remote store only.
func TestSlurmClusterRemoteConformance(t *testing.T) {
	cl := slurmCluster(t)
	slurmRemoteURL(t)
	bin := slurmBuild(t)
	values := func(a artifact.Artifact) ([]float64, error) {
		b, err := bundle.From(a)
		if err != nil {
			return nil, err
		}
		return b.Floats(stages.GenericMemberValues)
	}
	env := func(t *testing.T) executortest.Env {
		store := executortest.NewMemStore()
		opts := slurmClusterOptions(bin, cl, "", &slurmLog{})
		opts.Remote = slurmRemoteURL(t)
		ex, err := slurm.New(store, opts)
		if err != nil {
			t.Fatal(err)
		}
		return executortest.Env{Executor: ex, Store: store, Registry: stages.Default(), Values: values}
	}
	executortest.Run(t, env)
	executortest.RunCommand(t, env)
}
