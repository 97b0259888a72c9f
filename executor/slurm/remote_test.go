package slurm_test

// The Slurm executor on a remote store (Options.Remote): the fake cluster
// runs each job in this process as `hylaflow exec-stage --store URL KEY`
// does, on a file:// remote (the same code as s3://; the real S3 server
// and cluster are in integration_test.go).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
	"github.com/hylaflow/hylaflow/stages"
)

// slurmRemoteEnv is a remote in a fresh directory and the node-local
// directories of the jobs: TMPDIR (their scratch caches) and the log
// directory.
type slurmRemoteEnv struct {
	url, dir, scratch, logs string
}

func newSlurmRemoteEnv(t *testing.T) slurmRemoteEnv {
	t.Helper()
	tmp := t.TempDir()
	e := slurmRemoteEnv{dir: filepath.Join(tmp, "remote"), scratch: filepath.Join(tmp, "node-tmp"), logs: filepath.Join(tmp, "node-logs")}
	for _, d := range []string{e.dir, e.scratch, e.logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.url = "file://" + e.dir
	t.Setenv("TMPDIR", e.scratch)
	return e
}

func (e slurmRemoteEnv) options(c slurmcmd.Cluster, log *slurmLog) slurm.Options {
	o := slurmTestOptions(c, "", log)
	o.Remote, o.LogDir, o.RemoteOptions = e.url, e.logs, remote.Options{Attempts: 1}
	return o
}

// executor makes a Slurm executor with store as the driver's store and
// the remote as the only store it shares with its jobs, over a fake
// cluster whose jobs run in this process with reg.
func (e slurmRemoteEnv) executor(t *testing.T, reg *registry.Registry, store runner.Store, log *slurmLog) (*slurm.Executor, *slurmcmd.Fake) {
	t.Helper()
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	f.Exec = slurmInProcess(reg)
	ex, err := slurm.New(store, e.options(f, log))
	if err != nil {
		t.Fatal(err)
	}
	return ex, f
}

// leftovers lists what the jobs left in their node-local directories.
func (e slurmRemoteEnv) leftovers(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, d := range []string{e.scratch, e.logs} {
		ents, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ents {
			out = append(out, filepath.Join(d, x.Name()))
		}
	}
	return out
}

func openCache(t *testing.T, dir string) *cache.Cache {
	t.Helper()
	c, err := cache.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSlurmRemoteConformance runs the executor conformance suite against
// the Slurm executor whose only shared store is a remote.
func TestSlurmRemoteConformance(t *testing.T) {
	reg := executortest.Types()
	executortest.Run(t, func(t *testing.T) executortest.Env {
		store := executortest.NewMemStore()
		ex, _ := newSlurmRemoteEnv(t).executor(t, reg, store, &slurmLog{})
		return executortest.Env{Executor: ex, Store: store}
	})
}

// TestSlurmRemoteRunsCommands: the command-stage part of the suite, with
// a real cache as the driver's store (its payloads are pushed raw).
func TestSlurmRemoteRunsCommands(t *testing.T) {
	reg := stages.Default()
	executortest.RunCommand(t, func(t *testing.T) executortest.Env {
		c := openCache(t, filepath.Join(t.TempDir(), "cache"))
		ex, _ := newSlurmRemoteEnv(t).executor(t, reg, c, &slurmLog{})
		return executortest.Env{Executor: ex, Store: c, Registry: reg}
	})
}

// A pipeline through the remote gives a local run's digests; the jobs
// leave nothing on their nodes (scratch caches and logs removed, the logs
// on the remote); every key is on the remote, so a second driver with an
// empty cache fetches all of them without a job, and the driver's own
// rerun submits nothing.
func TestSlurmRemoteMatchesLocal(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fanout.hcl")
	want := runLocal(t, p)
	e := newSlurmRemoteEnv(t)
	log := &slurmLog{}
	c := openCache(t, filepath.Join(t.TempDir(), "driver"))
	ex, f := e.executor(t, reg, c, log)
	res, err := runner.Run(context.Background(), p, c, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || res.Status != runner.RunOK {
		t.Fatalf("slurm run: %v, %+v; log %q", err, res, log.lines)
	}
	if got, w := digests(res), digests(want); !reflect.DeepEqual(got, w) {
		t.Errorf("digests differ from the local run:\n slurm %v\n local %v", got, w)
	}
	if n := len(f.Submitted()); n != 7 {
		t.Errorf("%d jobs, want 7", n)
	}
	if left := e.leftovers(t); len(left) != 0 {
		t.Errorf("the jobs left files on their node: %v", left)
	}
	r, err := remote.Open(context.Background(), e.url, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := &slurm.RemoteStore{Remote: r}
	for _, st := range res.Stages {
		rec, ok, err := r.Get(context.Background(), st.Key)
		if err != nil || !ok {
			t.Fatalf("%s: no remote record: %v", st.Address, err)
		}
		remoteDigests := map[string]string{}
		for _, o := range rec.Outputs {
			remoteDigests[o.Name] = o.Digest
		}
		for _, o := range st.Outputs {
			if remoteDigests[o.Name] != o.Digest || len(rec.Outputs) != len(st.Outputs) {
				t.Errorf("%s: remote record %+v; outputs %+v", st.Address, rec.Outputs, st.Outputs)
			}
		}
		d, ok, err := rs.ReadDone(context.Background(), st.Key)
		if err != nil || !ok || d.Status != slurm.DoneOK || d.JobID == "" {
			t.Fatalf("%s: done-record %+v, %v", st.Address, d, err)
		}
		b, ok, err := r.ReadFile(context.Background(), slurm.LogName(st.Key, d.JobID), 1<<20)
		if err != nil || !ok || !strings.HasPrefix(string(b), "job "+d.JobID+" of "+st.Key+" started") {
			t.Errorf("%s: log on the remote %q, %v", st.Address, b, err)
		}
	}
	// The driver's rerun: all cached locally.
	again, err := runner.Run(context.Background(), p, c, runner.RunOptions{Jobs: 8, Executor: ex})
	if err != nil || again.Count(runner.StatusCached) != 7 || len(f.Submitted()) != 7 {
		t.Errorf("rerun: %v, %d cached, %d jobs", err, again.Count(runner.StatusCached), len(f.Submitted()))
	}
	// Another driver with an empty cache, and the slurm/ records gone (as
	// if the keys had been pushed by `run --remote` elsewhere):
	// everything is on the remote.
	if err := os.RemoveAll(filepath.Join(e.dir, "slurm")); err != nil {
		t.Fatal(err)
	}
	log2 := &slurmLog{}
	c2 := openCache(t, filepath.Join(t.TempDir(), "driver2"))
	ex2, err := slurm.New(c2, e.options(f, log2))
	if err != nil {
		t.Fatal(err)
	}
	res2, err := runner.Run(context.Background(), p, c2, runner.RunOptions{Jobs: 8, Executor: ex2})
	if err != nil || res2.Status != runner.RunOK || len(f.Submitted()) != 7 {
		t.Fatalf("second driver: %v, %+v, %d jobs", err, res2, len(f.Submitted()))
	}
	if n := log2.count("on the remote already"); n != 7 {
		t.Errorf("%d stages fetched from the remote, want 7; log %q", n, log2.lines)
	}
	if got, w := digests(res2), digests(want); !reflect.DeepEqual(got, w) {
		t.Errorf("second driver's digests differ from the local run's:\n %v\n %v", got, w)
	}
}

// A job whose input payload is damaged on the remote never computes on
// it: it fails naming the payload and removes it; the driver uploads its
// own verified copy again and resubmits once, and the result has the
// local run's digest.
func TestSlurmRemoteDamagedInput(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fanout.hcl")
	want := runLocal(t, p)
	e := newSlurmRemoteEnv(t)
	f := slurmcmd.NewFake()
	t.Cleanup(f.Close)
	inner := slurmInProcess(reg)
	var damaged string
	f.Exec = func(ctx context.Context, id string, req *slurmcmd.SubmitRequest) int {
		// Before the first job of scale.y["s1"] runs, damage its input
		// (random.x["s1"]'s payload, pushed by that stage's job) in place:
		// same size, other bytes.
		if damaged == "" && req.Name == `hf:scale.y["s1"]` {
			damaged = flipInput(t, e, strings.TrimPrefix(req.Comment, "hylaflow "))
		}
		return inner(ctx, id, req)
	}
	log := &slurmLog{}
	c := openCache(t, filepath.Join(t.TempDir(), "driver"))
	ex, err := slurm.New(c, e.options(f, log))
	if err != nil {
		t.Fatal(err)
	}
	p1 := slurmTestPipeline(t, reg, "fanout.hcl")
	res, err := runner.Run(context.Background(), p1, c, runner.RunOptions{Jobs: 1, Executor: ex})
	if err != nil || res.Status != runner.RunOK {
		t.Fatalf("run: %v %+v; log %q", err, res, log.lines)
	}
	if damaged == "" {
		t.Fatal("no payload was damaged")
	}
	if got, w := digests(res), digests(want); !reflect.DeepEqual(got, w) {
		t.Errorf("digests differ from the local run:\n slurm %v\n local %v", got, w)
	}
	if n := log.count(`scale.y["s1"]: slurm job`); n < 1 || log.count("could not fetch an input soundly from the remote; uploading it again and resubmitting") != 1 {
		t.Errorf("the damaged input's restage was not logged once; log %q", log.lines)
	}
	if n := len(f.Submitted()); n != 8 {
		t.Errorf("%d jobs, want 8 (7 stages and one resubmission)", n)
	}
}

// flipInput damages, on the file remote of e, the payload of the first
// input of key's task, and returns its name.
func flipInput(t *testing.T, e slurmRemoteEnv, key string) string {
	t.Helper()
	r, err := remote.Open(context.Background(), e.url, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := (&slurm.RemoteStore{Remote: r}).ReadTask(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	name := remote.ObjectKey(spec.Inputs["in"][0].Ref.Digest)
	path := filepath.Join(e.dir, filepath.FromSlash(name))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// A failing stage's error carries its job's log from the remote; the
// remote holds no record of the failed key.
func TestSlurmRemoteFailingStage(t *testing.T) {
	reg := stages.Default()
	p := slurmTestPipeline(t, reg, "fail.hcl")
	e := newSlurmRemoteEnv(t)
	c := openCache(t, filepath.Join(t.TempDir(), "driver"))
	ex, _ := e.executor(t, reg, c, &slurmLog{})
	res, err := runner.Run(context.Background(), p, c, runner.RunOptions{Jobs: 4, Executor: ex, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	b := res.ByAddress["fail.b"]
	if res.Status != runner.RunFailed || b.Status != runner.StatusFailed || b.Err == nil {
		t.Fatalf("status %s, fail.b %+v", res.Status, b)
	}
	msg := b.Err.Error()
	for _, w := range []string{"boom on purpose", "slurm job", "end of its log " + e.url + "/slurm/logs/" + b.Key, " started"} {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	r, err := remote.Open(context.Background(), e.url, remote.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r.Get(context.Background(), b.Key); ok {
		t.Error("the failed key has a record on the remote")
	}
	if s := res.ByAddress["scale.d"].Status; s != runner.StatusRan {
		t.Errorf("scale.d is %s, want ran", s)
	}
}

// The remote down: for the driver, the stage fails with an error naming
// the remote; for the job alone, the job exits ExitRemote without a
// done-record, and the driver explains the exit status.
func TestSlurmRemoteDown(t *testing.T) {
	reg := stages.Default()
	typ, _ := reg.Lookup("value")
	task, err := runner.NewTask(typ, "value.a", registry.Values{"values": []float64{1, 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	down := "s3://hylaflow/lab?endpoint=http://127.0.0.1:9&region=us-east-1"
	t.Setenv("AWS_ACCESS_KEY_ID", "x")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "y")

	t.Run("driver", func(t *testing.T) {
		e := newSlurmRemoteEnv(t)
		f := slurmcmd.NewFake()
		t.Cleanup(f.Close)
		f.Exec = slurmInProcess(reg)
		o := e.options(f, &slurmLog{})
		o.Remote = down
		// One probe before any stage: the executor is not made.
		_, err := slurm.New(executortest.NewMemStore(), o)
		if !errors.Is(err, slurm.ErrRemoteUnusable) || !strings.Contains(err.Error(), "remote s3://hylaflow/lab") {
			t.Fatalf("New with the remote down: %v", err)
		}
		// Down after the start: the stage fails naming the remote and
		// nothing is submitted.
		o.Remote = e.url
		ex, err := slurm.New(executortest.NewMemStore(), o)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(e.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(e.dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(e.dir, []byte("not a directory"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = ex.Execute(context.Background(), task, runner.Hooks{})
		if err == nil || !strings.Contains(err.Error(), "remote "+e.url) || !strings.Contains(err.Error(), "value.a") {
			t.Fatalf("Execute with the remote gone: %v", err)
		}
		if n := len(f.Submitted()); n != 0 {
			t.Errorf("%d jobs submitted", n)
		}
	})
	t.Run("job", func(t *testing.T) {
		e := newSlurmRemoteEnv(t)
		f := slurmcmd.NewFake()
		t.Cleanup(f.Close)
		inner := slurmInProcess(reg)
		f.Exec = func(ctx context.Context, id string, req *slurmcmd.SubmitRequest) int {
			// The job's node cannot reach the remote.
			r := *req
			r.Command = append([]string(nil), req.Command...)
			r.Command[len(r.Command)-2] = down
			return inner(ctx, id, &r)
		}
		ex, err := slurm.New(executortest.NewMemStore(), e.options(f, &slurmLog{}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = ex.Execute(context.Background(), task, runner.Hooks{})
		if err == nil {
			t.Fatal("Execute succeeded with the job's remote down")
		}
		for _, w := range []string{"ended without a done-record", "exit status 69: the job could not use the remote store " + e.url,
			"the job uploaded no log to the remote: it stays on its node"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q lacks %q", err, w)
			}
		}
	})
}
