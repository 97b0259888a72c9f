package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
)

// slurm-job is what a Slurm executor's batch job runs on a compute node.
func init() {
	registerCommand(&command{
		Name:    "slurm-job",
		Summary: "run one stage instance from a Slurm executor's shared store (internal)",
		Hidden:  true,
		Run:     slurmCmdJob,
	})
}

const slurmCmdJobUsage = `Usage: hylaflow slurm-job --store DIR KEY

Runs the stage instance of cache key KEY from the shared store DIR of the
Slurm executor (hylaflow run --executor slurm --store DIR): reads
DIR/tasks/KEY.json, loads the inputs from DIR/objects, writes the outputs
there and then the done-record DIR/done/KEY.json. The driver submits this
command with sbatch; it is not meant to be run by hand.

Exit status: 0 ok, 1 the stage failed (see the done-record), 2 usage,
130 canceled (SIGTERM/SIGINT: scancel or the time limit).
`

func slurmCmdJob(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("slurm-job", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, slurmCmdJobUsage) }
	store := fs.String("store", "", "shared store `DIR` of the Slurm executor")
	verbose := fs.Bool("v", false, "print the stage's log lines")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if *store == "" || fs.NArg() != 1 {
		fmt.Fprint(stderr, slurmCmdJobUsage)
		return exitUsage
	}
	key := fs.Arg(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	hooks := runner.Hooks{}
	if *verbose {
		hooks.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	done, err := runner.SlurmRunJob(ctx, *store, stages.Default(), key, os.Getenv("SLURM_JOB_ID"), hooks)
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "hylaflow slurm-job %s: canceled\n", key)
		return exitCanceled
	case err != nil:
		fmt.Fprintf(stderr, "hylaflow slurm-job %s: %v\n", key, err)
		return exitStageFailed
	}
	fmt.Fprintf(stdout, "hylaflow slurm-job %s (%s): ok in %v on %s\n", key, done.Address, done.Duration, done.Host)
	return exitOK
}
