package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/slurm"
)

// slurm-job is what a Slurm executor's batch job runs on a compute node.
func init() {
	app.Register(&cli.Command{
		Name:    "slurm-job",
		Summary: "run one stage instance from a Slurm executor's shared store (internal)",
		Hidden:  true,
		Run:     slurmCmdJob,
	})
}

var slurmCmdJobUsage = helpText("slurm-job")

func slurmCmdJob(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("slurm-job")
	store := fs.String("store", "", "shared store `DIR` of the Slurm executor")
	verbose := fs.Bool("v", false, "print the stage's log lines")
	pos, err := cli.Parse(fs, args, stdout, slurmCmdJobUsage)
	if err != nil {
		return err
	}
	if *store == "" || len(pos) != 1 {
		return cli.UsageText(slurmCmdJobUsage, "want --store DIR and one KEY")
	}
	key := pos[0]
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hooks := runner.Hooks{}
	if *verbose {
		hooks.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	done, err := runner.SlurmRunJob(ctx, *store, cliRegistry(), key, os.Getenv("SLURM_JOB_ID"), hooks)
	switch {
	case ctx.Err() != nil:
		return cli.InCommand("slurm-job "+key, cli.Canceled(errors.New("canceled")))
	case err != nil:
		return cli.InCommand("slurm-job "+key, cli.Failed(err))
	}
	fmt.Fprintf(stdout, "hylaflow slurm-job %s (%s): ok in %v on %s\n", key, done.Address, done.Duration, done.Host)
	return nil
}

// slurmCmdRunFlags are the executor flags of hylaflow run.
type slurmCmdRunFlags struct {
	executor  string
	store     string
	partition string
	account   string
	maxJobs   int
}

// slurmCmdRegisterRunFlags adds --executor, --store, --partition, --account
// and --max-jobs to fs.
func slurmCmdRegisterRunFlags(fs *flag.FlagSet) *slurmCmdRunFlags {
	f := &slurmCmdRunFlags{}
	fs.StringVar(&f.executor, "executor", "local", "local or slurm")
	fs.StringVar(&f.store, "store", "", "slurm: shared store directory")
	fs.StringVar(&f.partition, "partition", "", "slurm: partition")
	fs.StringVar(&f.account, "account", "", "slurm: account")
	fs.IntVar(&f.maxJobs, "max-jobs", 0, "slurm: jobs queued or running at once")
	return f
}

// check reports inconsistent executor flags.
func (f *slurmCmdRunFlags) check() error {
	switch f.executor {
	case "local":
		if f.store != "" || f.partition != "" || f.account != "" || f.maxJobs != 0 {
			return errors.New("--store, --partition, --account and --max-jobs need --executor slurm")
		}
		return nil
	case "slurm":
	default:
		return fmt.Errorf("--executor %q: want local or slurm", f.executor)
	}
	if f.store == "" {
		return errors.New("--executor slurm needs --store DIR (a directory every compute node sees at the same path)")
	}
	if f.maxJobs < 0 {
		return fmt.Errorf("--max-jobs %d: want at least 0", f.maxJobs)
	}
	return nil
}

// preflight checks, before anything is opened or submitted, the flags and
// what would otherwise fail every stage: with --executor slurm, Slurm's
// commands must be on PATH.
func (f *slurmCmdRunFlags) preflight() error {
	if err := f.check(); err != nil || f.executor != "slurm" {
		return err
	}
	if err := (&slurm.Client{}).Preflight(); err != nil {
		return fmt.Errorf("--executor slurm: %w", err)
	}
	return nil
}

// slurmCmdDefaultJobs is run's -j for the Slurm executor when neither -j
// nor --max-jobs is given: stages wait in Slurm's queue, not in hylaflow's.
const slurmCmdDefaultJobs = 256

// build returns the executor the flags select (nil: the runner's local
// default) and the -j to use: with --executor slurm and no explicit -j, -j
// becomes --max-jobs (or slurmCmdDefaultJobs). Log lines of the Slurm
// executor go to stderr (submissions only with verbose, none with quiet).
func (f *slurmCmdRunFlags) build(fs *flag.FlagSet, store runner.Store, jobs int, verbose, quiet bool, stderr io.Writer) (runner.Executor, int, error) {
	jSet := false
	fs.Visit(func(fl *flag.Flag) { jSet = jSet || fl.Name == "j" })
	if err := f.check(); err != nil {
		return nil, 0, err
	}
	if f.executor == "local" {
		return nil, jobs, nil
	}
	dir, err := filepath.Abs(f.store)
	if err != nil {
		return nil, 0, fmt.Errorf("--store %s: %w", f.store, err)
	}
	if !jSet {
		jobs = slurmCmdDefaultJobs
		if f.maxJobs > 0 {
			jobs = f.maxJobs
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
		fmt.Fprintf(stderr, "%s slurm: %s\n", time.Now().Format("15:04:05"), msg)
	}
	ex, err := runner.NewSlurm(store, runner.SlurmOptions{
		Cluster:   &slurm.Client{},
		Dir:       dir,
		Partition: f.partition,
		Account:   f.account,
		MaxJobs:   f.maxJobs,
		Logf:      logf,
	})
	if err != nil {
		return nil, 0, err
	}
	return ex, jobs, nil
}
