package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/runner"
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
	ctx, stop := cli.Interruptible(true)
	defer stop()
	hooks := runner.Hooks{}
	if *verbose {
		hooks.Logf = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
	}
	done, err := slurm.RunJob(ctx, *store, cliRegistry(), key, os.Getenv("SLURM_JOB_ID"), hooks)
	switch {
	case ctx.Err() != nil:
		return cli.InCommand("slurm-job "+key, cli.Canceled(errors.New("canceled")))
	case err != nil:
		return cli.InCommand("slurm-job "+key, cli.Failed(err))
	}
	fmt.Fprintf(stdout, "hylaflow slurm-job %s (%s): ok in %v on %s\n", key, done.Address, done.Duration, done.Host)
	return nil
}
