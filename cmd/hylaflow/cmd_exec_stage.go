package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/executor"
	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/progress"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
)

// exec-stage is the one hidden command that runs a single stage instance
// outside any pipeline: from a cache (KEY or --task FILE) or, in a Slurm
// executor's batch job, from its shared store (--store DIR KEY).
func init() {
	app.Register(&cli.Command{
		Name:    "exec-stage",
		Summary: "run one stage instance of the cache by its key (internal)",
		Hidden:  true,
		Run:     execStageCmdRun,
	})
}

var execStageCmdUsage = helpText("exec-stage")

func execStageCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("exec-stage")
	cacheDir := fs.String("cache", "", "cache directory")
	taskFile := fs.String("task", "", "task spec file")
	force := fs.Bool("force", false, "recompute even if stored")
	workers := fs.Int("workers", runtime.NumCPU(), "threads for the stage")
	verbose := fs.Bool("v", false, "verbose")
	allowCommands := fs.Bool("allow-commands", false, "run a command stage's program")
	store := fs.String("store", "", "shared store `DIR` or remote store URL of a Slurm executor (the batch job's mode)")
	pos, err := cli.Parse(fs, args, stdout, execStageCmdUsage)
	switch {
	case err != nil:
		return err
	case *store != "":
		if *cacheDir != "" || *taskFile != "" || *force || *allowCommands || len(pos) != 1 {
			return cli.UsageText(execStageCmdUsage, "--store DIR|URL takes one KEY and none of --cache, --task, --force, --allow-commands")
		}
		if executor.IsURL(*store) {
			return execStageFromRemote(*store, pos[0], *verbose, stdout, stderr)
		}
		return execStageFromStore(*store, pos[0], *verbose, stdout, stderr)
	case (*taskFile == "") == (len(pos) != 1) || (*taskFile != "" && len(pos) != 0):
		return cli.UsageText(execStageCmdUsage, "give exactly one KEY or --task FILE")
	case *workers < 1:
		return cli.Usagef("--workers %d: want at least 1", *workers)
	}
	c, err := cliOpenCache(*cacheDir, ".", true)
	if err != nil {
		return err
	}
	defer c.Close()

	allow := *allowCommands || runner.AllowCommandsFromEnv(os.Getenv(runner.AllowCommandsEnv))
	var rec *cache.KeyRecord
	if *taskFile != "" {
		rec, err = runner.TaskFileRecord(*taskFile)
	} else {
		var ok bool
		if rec, ok, err = c.Record(pos[0]); err == nil && !ok {
			rec = nil // ExecKey says that the key has no record
		}
	}
	if err != nil {
		return cli.Failed(err)
	}
	if rec != nil {
		if err := runner.CheckRecordCommand(cliRegistry(), rec, allow); err != nil {
			return err
		}
	}
	var hooks runner.Hooks
	if *verbose {
		hooks = runner.StampedHooks(stderr)
	}
	ctx, stop := cli.Interruptible(true)
	defer stop()
	var res *runner.Result
	if *taskFile != "" {
		res, err = runner.ExecSpecFile(ctx, c, cliRegistry(), *taskFile, *workers, *force, hooks)
	} else {
		res, err = runner.ExecKey(ctx, c, cliRegistry(), pos[0], *workers, *force, hooks)
	}
	if err != nil {
		return cli.Outcome(ctx, err)
	}
	status := "ran"
	if res.Cached {
		status = "cached"
	}
	fmt.Fprintf(stdout, "%s in %s\n", status, progress.FormatDuration(res.Duration))
	for _, o := range res.Outputs {
		fmt.Fprintf(stdout, "%s/%s\t%s\t%s\t%d\n", o.Key, o.Name, o.Kind, o.Digest, o.Size)
	}
	return nil
}

// execStageFromStore is what a Slurm executor's batch job runs on a compute
// node: the task spec of key from the shared store, its inputs from the
// store's objects, the outputs and then the done-record written back. The
// driver checked consent for command stages before it submitted the job.
func execStageFromStore(store, key string, verbose bool, stdout, stderr io.Writer) error {
	ctx, stop := cli.Interruptible(true)
	defer stop()
	hooks := runner.Hooks{}
	if verbose {
		hooks.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	done, err := slurm.RunJob(ctx, store, cliRegistry(), key, os.Getenv("SLURM_JOB_ID"), hooks)
	switch {
	case ctx.Err() != nil:
		return cli.InCommand("exec-stage "+key, cli.Canceled(errors.New("canceled")))
	case err != nil:
		return cli.InCommand("exec-stage "+key, cli.Failed(err))
	}
	fmt.Fprintf(stdout, "hylaflow exec-stage %s (%s): ok in %v on %s\n", key, done.Address, done.Duration, done.Host)
	return nil
}

// execStageFromRemote is what a Slurm executor's batch job on a remote
// store runs (slurm.RunRemoteJob): the task spec and inputs come from the
// remote into a scratch cache in $TMPDIR, removed afterwards; the outputs,
// the job's log ($HYLAFLOW_JOB_LOG) and the done-record go back to the
// remote. A remote it cannot use exits with slurm.ExitRemote, which the
// driver explains.
func execStageFromRemote(url, key string, verbose bool, stdout, stderr io.Writer) error {
	ctx, stop := cli.Interruptible(true)
	defer stop()
	opts := slurm.RemoteJobOptions{
		LogFile:  os.Getenv(slurm.JobLogEnv),
		Producer: cliProducer(),
		Warn:     func(msg string) { fmt.Fprintf(stderr, "hylaflow exec-stage %s: warning: %s\n", key, msg) },
	}
	if verbose {
		opts.Hooks.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	fmt.Fprintf(stdout, "hylaflow exec-stage %s: remote store %s, scratch cache in %s\n", key, remote.Redact(url), os.TempDir())
	done, err := slurm.RunRemoteJob(ctx, url, cliRegistry(), key, os.Getenv("SLURM_JOB_ID"), opts)
	switch {
	case ctx.Err() != nil:
		return cli.InCommand("exec-stage "+key, cli.Canceled(errors.New("canceled")))
	case errors.Is(err, slurm.ErrRemoteUnusable):
		fmt.Fprintf(stderr, "hylaflow exec-stage %s: %v\n", key, err)
		return cli.ExitStatus(slurm.ExitRemote)
	case err != nil:
		return cli.InCommand("exec-stage "+key, cli.Failed(err))
	}
	fmt.Fprintf(stdout, "hylaflow exec-stage %s (%s): ok in %v on %s\n", key, done.Address, done.Duration, done.Host)
	return nil
}
