package slurm

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
)

// RunJob is the compute-node side of the Slurm executor (`hylaflow
// exec-stage --store DIR KEY`): it reads the task spec of key from the
// store, runs the stage with the local executor on the store's objects,
// writes the outputs to objects/ and then the done-record (exit status,
// output digests, timings, host, Slurm job id). A failing stage gives a
// done-record with status "failed" and a non-nil error. A canceled run
// (scancel, time limit) writes no done-record and returns ctx's error.
//
// jobID is the Slurm job id recorded in the done-record (the command
// passes $SLURM_JOB_ID). Workers come from SLURM_CPUS_PER_TASK, else the
// task's resources, else 1.
func RunJob(ctx context.Context, dir string, reg *registry.Registry, key, jobID string, hooks runner.Hooks) (*Done, error) {
	if err := slurmCheckHex("key", key); err != nil {
		return nil, err
	}
	st := &Store{Dir: dir}
	spec, err := st.ReadTask(key)
	if err != nil {
		return nil, err
	}
	spec.Workers = max(1, spec.Resources.CPUs)
	if n, err := strconv.Atoi(os.Getenv("SLURM_CPUS_PER_TASK")); err == nil && n > 0 {
		spec.Workers = n
	}
	host, _ := os.Hostname()
	done := &Done{Key: key, Address: spec.Record.Address, Host: host, JobID: jobID,
		PID: os.Getpid(), Start: time.Now()}
	res, runErr := runner.ExecSpec(ctx, slurmFileStore{st}, reg, spec, hooks)
	done.End = time.Now()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if runErr != nil {
		done.Status, done.Error = DoneFailed, runErr.Error()
	} else {
		done.Status, done.Outputs, done.Metrics, done.Duration = DoneOK, res.Outputs, res.Metrics, res.Duration
		if res.Cached {
			done.Duration = 0
		}
	}
	if err := slurmWriteJSON(st.DonePath(key), done); err != nil {
		return done, fmt.Errorf("write the done-record of %s: %w", key, err)
	}
	return done, runErr
}
