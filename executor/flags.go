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
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
)

// Flags choose where a run's stages execute: --executor local (in
// this process, the default) or slurm, with the Slurm executor's --store,
// --partition, --account and --max-jobs. Commands that run pipelines
// share them through RegisterFlags, as they share LoadOptions'.
//
// The Slurm executor's store is where the driver and its jobs exchange
// artifacts: --store DIR, a directory every compute node sees at the same
// path, or --store URL, a remote store (s3://, gs://, azblob://, file://)
// when the nodes share no file system. Without --store, the run's remote
// (Remote: --remote, $HYLAFLOW_REMOTE or hylaflow.conf) is the store.
type Flags struct {
	Executor  string // local or slurm
	Store     string // slurm: the shared store directory or a remote URL
	Partition string // slurm: partition of every job
	Account   string // slurm: account of every job
	MaxJobs   int    // slurm: jobs queued or running at once (0: -j's)

	// Remote is the run's remote store URL, if any, and RemoteHow where
	// it was set (the command fills them): the store when --store is not
	// given.
	Remote, RemoteHow string
	// Producer is recorded in what the Slurm executor pushes to a remote.
	Producer remote.Producer
}

// IsURL reports whether a --store value names a remote store rather than
// a directory.
func IsURL(store string) bool { return strings.Contains(store, "://") }

// SlurmDefaultJobs is run's -j for the Slurm executor when neither -j nor
// --max-jobs is given: stages wait in Slurm's queue, not in hylaflow's.
const SlurmDefaultJobs = 256

// RegisterFlags adds --executor, --store, --partition, --account and
// --max-jobs to fs, filling f.
func (f *Flags) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.Executor, "executor", "local", "local or slurm")
	fs.StringVar(&f.Store, "store", "", "slurm: shared store directory or remote store URL")
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
	opts := slurm.Options{Cluster: &slurmcmd.Client{}, Partition: f.Partition, Account: f.Account,
		MaxJobs: f.MaxJobs, Producer: f.Producer}
	switch {
	case f.Store == "" && f.Remote == "":
		return nil, 0, errors.New("--executor slurm needs --store DIR (a directory every compute node sees at the same path) " +
			"or a remote store: --store URL, or the run's remote (--remote URL, $HYLAFLOW_REMOTE, hylaflow.conf)")
	case f.Store == "":
		opts.Remote = f.Remote
	case IsURL(f.Store):
		opts.Remote = f.Store
	default:
		dir, err := filepath.Abs(f.Store)
		if err != nil {
			return nil, 0, fmt.Errorf("--store %s: %w", f.Store, err)
		}
		opts.Dir = dir
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
	opts.Logf = logf
	ex, err := slurm.New(store, opts)
	if err != nil {
		return nil, 0, err
	}
	if opts.Remote != "" {
		how := "--store"
		if f.Store == "" {
			how = f.RemoteHow
		}
		logf("jobs exchange artifacts through the remote store %s (set by %s); their logs go to %s",
			remote.Redact(opts.Remote), how, strings.TrimSuffix(remote.Redact(opts.Remote), "/")+"/slurm/logs/")
	}
	return ex, jobs, nil
}
