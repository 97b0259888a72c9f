package executor_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/executor"
	"github.com/hylaflow/hylaflow/runner/executortest"
)

// --executor slurm checks that Slurm's commands are on PATH before
// anything starts, naming the missing ones.
func TestExecutorFlagsPreflight(t *testing.T) {
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	// With the commands present (here: stand-ins), only the missing one is named.
	for _, name := range []string{"sbatch", "squeue", "scontrol"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f := &executor.Flags{Executor: "slurm", Store: "s"}
	if err := f.Preflight(); err == nil || !strings.HasPrefix(err.Error(), "--executor slurm: scancel not found on PATH") {
		t.Errorf("preflight with scancel missing: %v", err)
	}
	if err := os.WriteFile(filepath.Join(bin, "scancel"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Preflight(); err != nil {
		t.Errorf("preflight with every command present: %v", err)
	}
	if err := (&executor.Flags{Executor: "local"}).Preflight(); err != nil {
		t.Errorf("local executor: %v", err)
	}
}

// Check names inconsistent executor flags.
func TestExecutorFlagsCheck(t *testing.T) {
	for _, tt := range []struct {
		f    executor.Flags
		want string
	}{
		{executor.Flags{Executor: "local"}, ""},
		{executor.Flags{Executor: "slurm", Store: "s", MaxJobs: 3}, ""},
		{executor.Flags{Executor: "local", Partition: "p"}, "--store, --partition, --account and --max-jobs need --executor slurm"},
		{executor.Flags{Executor: "pbs"}, `--executor "pbs": want local or slurm`},
		{executor.Flags{Executor: "slurm"}, ""}, // the store may be the run's remote: Build checks
		{executor.Flags{Executor: "slurm", Store: "s3://lab/hylaflow"}, ""},
		{executor.Flags{Executor: "slurm", Store: "s", MaxJobs: -1}, "--max-jobs -1: want at least 0"},
	} {
		err := tt.f.Check()
		if (tt.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.f, err, tt.want)
		}
	}
}

func TestExecutorFlagsBuild(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		jobs     int
		isSlurm  bool
		wantJobs int
	}{
		{nil, 2, false, 2},
		{[]string{"-j", "3"}, 3, false, 3},
		{[]string{"--executor", "slurm", "--store", "S"}, 2, true, executor.SlurmDefaultJobs},
		{[]string{"--executor", "slurm", "--store", "S", "--max-jobs", "40"}, 2, true, 40},
		{[]string{"--executor", "slurm", "--store", "S", "--max-jobs", "40", "-j", "7"}, 7, true, 7},
	} {
		dir := t.TempDir()
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		j := fs.Int("j", 2, "")
		var f executor.Flags
		f.RegisterFlags(fs)
		args := append([]string(nil), tt.args...)
		for i, a := range args {
			if a == "S" {
				args[i] = filepath.Join(dir, "store")
			}
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		ex, jobs, err := f.Build(executortest.NewMemStore(), *j, slices.Contains(args, "-j"), false, false, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		if jobs != tt.wantJobs || (ex != nil) != tt.isSlurm {
			t.Errorf("%v: executor %T, -j %d; want slurm=%v, -j %d", tt.args, ex, jobs, tt.isSlurm, tt.wantJobs)
		}
		if tt.isSlurm {
			if _, err := os.Stat(filepath.Join(dir, "store", "objects")); err != nil {
				t.Errorf("%v: the store was not initialised: %v", tt.args, err)
			}
		}
	}
}

// The Slurm executor's store: a directory, a remote URL given as --store,
// or the run's remote when --store is absent; none of them is an error
// that names every way to give one.
func TestExecutorFlagsBuildStore(t *testing.T) {
	dir := t.TempDir()
	url := "file://" + filepath.Join(dir, "remote")
	for _, tt := range []struct {
		f       executor.Flags
		want    string // a line of the log, or the error
		wantErr bool
	}{
		{executor.Flags{Executor: "slurm", Store: url}, "jobs exchange artifacts through the remote store " + url + " (set by --store); their logs go to " + url + "/slurm/logs/", false},
		{executor.Flags{Executor: "slurm", Remote: url, RemoteHow: "HYLAFLOW_REMOTE"}, "(set by HYLAFLOW_REMOTE)", false},
		{executor.Flags{Executor: "slurm", Store: filepath.Join(dir, "store"), Remote: url}, "", false},
		{executor.Flags{Executor: "slurm"}, "--executor slurm needs --store DIR (a directory every compute node sees at the same path) or a remote store: --store URL, or the run's remote (--remote URL, $HYLAFLOW_REMOTE, hylaflow.conf)", true},
		{executor.Flags{Executor: "slurm", Store: "ftp://x/y"}, `scheme "ftp": want s3://, gs://, azblob:// or file://`, true},
	} {
		var log bytes.Buffer
		ex, _, err := tt.f.Build(executortest.NewMemStore(), 2, false, false, false, &log)
		switch {
		case tt.wantErr:
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%+v: error %v, want %q", tt.f, err, tt.want)
			}
		case err != nil || ex == nil:
			t.Errorf("%+v: %v", tt.f, err)
		case !strings.Contains(log.String(), tt.want):
			t.Errorf("%+v: log %q lacks %q", tt.f, log.String(), tt.want)
		case tt.want == "" && log.Len() != 0:
			t.Errorf("%+v: a directory store logged %q", tt.f, log.String())
		}
	}
}
