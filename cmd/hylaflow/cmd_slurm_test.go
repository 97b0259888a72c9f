package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
)

func slurmCmdDispatch(args ...string) (int, string, string) {
	var out, errs bytes.Buffer
	code := app.Dispatch(args, &out, &errs)
	return code, out.String(), errs.String()
}

func TestSlurmCmdRunFlagErrors(t *testing.T) {
	file := filepath.Join("..", "..", "executor", "slurm", "testdata", "fanout.hcl")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown executor", []string{"--executor", "pbs"}, `--executor "pbs": want local or slurm`},
		{"store without slurm", []string{"--store", "x"}, "need --executor slurm"},
		{"partition without slurm", []string{"--partition", "gpu"}, "need --executor slurm"},
		{"slurm without store", []string{"--executor", "slurm", "--remote", "off"}, "needs --store DIR (a directory every compute node sees at the same path) or a remote store"},
		{"negative max-jobs", []string{"--executor", "slurm", "--store", "x", "--max-jobs", "-1"}, "--max-jobs -1: want at least 0"},
		{"bad store URL", []string{"--executor", "slurm", "--store", "ftp://lab/x"}, `scheme "ftp": want s3://`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// Stand-ins for Slurm's commands: the store is checked after
			// the preflight, which wants them on PATH.
			bin := t.TempDir()
			for _, name := range []string{"sbatch", "squeue", "scontrol", "scancel"} {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("PATH", bin)
			args := append([]string{"run", "--cache", filepath.Join(t.TempDir(), "cache")}, tt.args...)
			code, _, errs := slurmCmdDispatch(append(args, file)...)
			if code != cli.ExitUsage || !strings.Contains(errs, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errs, cli.ExitUsage, tt.want)
			}
		})
	}
}

// --executor slurm without Slurm's commands fails once, up front, naming
// them (exit 2), before the cache is created or a stage runs.
func TestSlurmCmdPreflight(t *testing.T) {
	file := filepath.Join("..", "..", "executor", "slurm", "testdata", "fanout.hcl")
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	cdir := filepath.Join(t.TempDir(), "cache")
	code, out, errs := slurmCmdDispatch("run", file, "--cache", cdir, "--executor", "slurm", "--store", t.TempDir())
	want := "hylaflow run: --executor slurm: sbatch, squeue, scontrol, scancel not found on PATH; "
	if code != cli.ExitUsage || !strings.HasPrefix(errs, want) || strings.Count(errs, "\n") != 1 || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line starting %q", code, out, errs, cli.ExitUsage, want)
	}
	if _, err := os.Stat(cdir); !os.IsNotExist(err) {
		t.Errorf("the failed preflight created the cache (%v)", err)
	}
}

// slurmCmdWriteTask writes the task of a new stage instance into a store, as
// the driver does before submitting, and returns its key.
func slurmCmdWriteTask(t *testing.T, dir, typ string, params registry.Values) string {
	t.Helper()
	st, ok := stages.Default().Lookup(typ)
	if !ok {
		t.Fatalf("no stage type %q", typ)
	}
	task, err := runner.NewTask(st, typ+".x", params, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&slurm.Store{Dir: dir}).Init(); err != nil {
		t.Fatal(err)
	}
	b, err := task.MarshalSpec()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks", task.Key()+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return task.Key()
}

func TestSlurmCmdJob(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SLURM_JOB_ID", "4242")
	st := &slurm.Store{Dir: dir}

	key := slurmCmdWriteTask(t, dir, "value", registry.Values{"values": []float64{1.5, -2}})
	code, out, errs := slurmCmdDispatch("exec-stage", "--store", dir, key)
	if code != cli.ExitOK || !strings.Contains(out, "ok in") {
		t.Fatalf("exec-stage --store: exit %d\n%s%s", code, out, errs)
	}
	d, ok, err := st.ReadDone(key)
	if err != nil || !ok || d.Status != slurm.DoneOK || d.JobID != "4242" || d.Host == "" || len(d.Outputs) != 1 {
		t.Fatalf("done-record %+v, %v, %v", d, ok, err)
	}
	art, err := st.LoadObject(d.Outputs[0].Digest, "out")
	if err != nil {
		t.Fatal(err)
	}
	a, err := bundle.From(art)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.Floats(stages.GenericMemberValues); err != nil || len(v) != 2 || v[0] != 1.5 || v[1] != -2 {
		t.Errorf("stored output %v, %v; want [1.5 -2]", v, err)
	}

	fkey := slurmCmdWriteTask(t, dir, "fail", registry.Values{"message": "no luck"})
	code, _, errs = slurmCmdDispatch("exec-stage", "--store", dir, fkey)
	if code != cli.ExitFailed || !strings.Contains(errs, "no luck") {
		t.Errorf("failing stage: exit %d, stderr %q", code, errs)
	}
	if d, ok, err := st.ReadDone(fkey); err != nil || !ok || d.Status != slurm.DoneFailed || !strings.Contains(d.Error, "no luck") {
		t.Errorf("failed done-record %+v, %v, %v", d, ok, err)
	}

	// A tampered task (its parameters no longer match its key) is refused
	// and leaves no done-record.
	tkey := slurmCmdWriteTask(t, dir, "value", registry.Values{"values": []float64{7}})
	path := filepath.Join(dir, "tasks", tkey+".json")
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Contains(b, []byte("[7]")) {
		t.Fatalf("task file %s: %v\n%s", path, err, b)
	}
	b = bytes.Replace(b, []byte("[7]"), []byte("[8]"), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = slurmCmdDispatch("exec-stage", "--store", dir, tkey)
	if code != cli.ExitFailed || !strings.Contains(errs, "key does not match") {
		t.Errorf("tampered task: exit %d, stderr %q", code, errs)
	}

	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"exec-stage", "--store", dir, "--force", key}, cli.ExitUsage, "Usage: hylaflow exec-stage"},
		{[]string{"exec-stage", "--store", dir}, cli.ExitUsage, "Usage: hylaflow exec-stage"},
		{[]string{"exec-stage", "--store", dir, "../etc/passwd"}, cli.ExitFailed, "expected 64 lowercase hex digits"},
		{[]string{"exec-stage", "--store", dir, strings.Repeat("0", 64)}, cli.ExitFailed, "no task spec"},
	} {
		code, _, errs := slurmCmdDispatch(tt.args...)
		if code != tt.code || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tt.args, code, errs, tt.code, tt.want)
		}
	}
}

// exec-stage --store URL: a key with no task spec on the remote is the
// job's failure (exit 1, naming the record); a remote the job cannot use
// exits 69 (slurm.ExitRemote) naming the remote, which the driver explains.
func TestSlurmCmdExecStageRemote(t *testing.T) {
	key := strings.Repeat("ab", 32)
	url := "file://" + t.TempDir()
	t.Setenv("TMPDIR", t.TempDir())
	code, _, errs := slurmCmdDispatch("exec-stage", "--store", url, key)
	if code != cli.ExitFailed || !strings.Contains(errs, "slurm/tasks/"+key+".json: no task spec") {
		t.Errorf("no task spec: exit %d, stderr %q", code, errs)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "x")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "y")
	code, _, errs = slurmCmdDispatch("exec-stage", "--store", "s3://lab/hylaflow?endpoint=http://127.0.0.1:9&region=us-east-1", key)
	if code != slurm.ExitRemote || !strings.Contains(errs, "the remote store could not be used: remote s3://lab/hylaflow") {
		t.Errorf("remote down: exit %d, stderr %q", code, errs)
	}
	if ents, _ := os.ReadDir(os.Getenv("TMPDIR")); len(ents) != 0 {
		t.Errorf("exec-stage left %d entries in $TMPDIR", len(ents))
	}
}
