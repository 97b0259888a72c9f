package executor

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/runner"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
)

// Flags choose where a run's stages execute: --executor local (in
// this process, the default) or slurm, with the Slurm executor's --store,
// --partition, --account and --max-jobs. Commands that run pipelines
// share them through RegisterFlags, as they share LoadOptions'.
type Flags struct {
	Executor  string // local or slurm
	Store     string // slurm: the shared store directory
	Partition string // slurm: partition of every job
	Account   string // slurm: account of every job
	MaxJobs   int    // slurm: jobs queued or running at once (0: -j's)
}

// SlurmDefaultJobs is run's -j for the Slurm executor when neither -j nor
// --max-jobs is given: stages wait in Slurm's queue, not in hylaflow's.
const SlurmDefaultJobs = 256

// RegisterFlags adds --executor, --store, --partition, --account and
// --max-jobs to fs, filling f.
func (f *Flags) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.Executor, "executor", "local", "local or slurm")
	fs.StringVar(&f.Store, "store", "", "slurm: shared store directory")
	fs.StringVar(&f.Partition, "partition", "", "slurm: partition")
	fs.StringVar(&f.Account, "account", "", "slurm: account")
	fs.IntVar(&f.MaxJobs, "max-jobs", 0, "slurm: jobs queued or running at once")
}

// Check reports inconsistent executor flags.
func (f *Flags) Check() error {
	switch f.Executor {
	case "local":
		if f.Store != "" || f.Partition != "" || f.Account != "" || f.MaxJobs != 0 {
			return errors.New("--store, --partition, --account and --max-jobs need --executor slurm")
		}
		return nil
	case "slurm":
	default:
		return fmt.Errorf("--executor %q: want local or slurm", f.Executor)
	}
	if f.Store == "" {
		return errors.New("--executor slurm needs --store DIR (a directory every compute node sees at the same path)")
	}
	if f.MaxJobs < 0 {
		return fmt.Errorf("--max-jobs %d: want at least 0", f.MaxJobs)
	}
	return nil
}

// Preflight checks, before anything is opened or submitted, the flags and
// what would otherwise fail every stage: with --executor slurm, Slurm's
// commands must be on PATH.
func (f *Flags) Preflight() error {
	if err := f.Check(); err != nil || f.Executor != "slurm" {
		return err
	}
	if err := (&slurmcmd.Client{}).Preflight(); err != nil {
		return fmt.Errorf("--executor slurm: %w", err)
	}
	return nil
}

// Build returns the executor the flags select (nil: the runner's local
// default) over store and the number of stages to run at once: jobs, or,
// with --executor slurm and jobsSet false (no -j given), --max-jobs or
// SlurmDefaultJobs. The Slurm executor's log lines go to w with the time,
// its submissions only when verbose, nothing when quiet.
func (f *Flags) Build(store runner.Store, jobs int, jobsSet, verbose, quiet bool, w io.Writer) (runner.Executor, int, error) {
	if err := f.Check(); err != nil {
		return nil, 0, err
	}
	if f.Executor == "local" {
		return nil, jobs, nil
	}
	dir, err := filepath.Abs(f.Store)
	if err != nil {
		return nil, 0, fmt.Errorf("--store %s: %w", f.Store, err)
	}
	if !jobsSet {
		jobs = SlurmDefaultJobs
		if f.MaxJobs > 0 {
			jobs = f.MaxJobs
		}
	}
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		msg := fmt.Sprintf(format, a...)
		if quiet || (!verbose && strings.Contains(msg, ": submitted slurm job ")) {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%s slurm: %s\n", time.Now().Format("15:04:05"), msg)
	}
	ex, err := slurm.New(store, slurm.Options{Cluster: &slurmcmd.Client{}, Dir: dir, Partition: f.Partition,
		Account: f.Account, MaxJobs: f.MaxJobs, Logf: logf})
	if err != nil {
		return nil, 0, err
	}
	return ex, jobs, nil
}
