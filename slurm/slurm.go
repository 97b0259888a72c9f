// Package slurm talks to a Slurm cluster through its command-line tools:
// sbatch to submit, squeue and `scontrol show job` to follow jobs (never
// sacct, which many clusters run without), scancel to cancel.
//
// Cluster is the interface the rest of hylaflow uses; Client implements it
// with the real commands and Fake implements it in-process (jobs run as
// local subprocesses or Go functions) so that drivers can be tested without
// a cluster. The parsers work on the outputs of Slurm 22.05 and later.
package slurm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrUnknownJob is returned for a job id the controller does not know: it
// never existed, or it finished more than MinJobAge seconds ago and was purged.
var ErrUnknownJob = errors.New("slurm: unknown job id")

// Resources are what one job asks for. Zero fields are left to the
// cluster's defaults.
type Resources struct {
	CPUs      int           // --cpus-per-task
	MemMB     int64         // --mem, in MiB
	Time      time.Duration // --time, rounded up to whole minutes
	GPUs      int           // --gpus
	Partition string        // --partition
	Account   string        // --account
}

// SubmitRequest describes one batch job: the command it runs and how.
type SubmitRequest struct {
	Name      string   // --job-name
	Command   []string // argv of the job's one command (quoted into a /bin/sh batch script)
	Env       []string // KEY=VALUE pairs exported in the batch script (the job inherits the submitter's environment too)
	WorkDir   string   // --chdir; "" = the submitter's working directory
	Output    string   // --output (stdout and stderr); may use %j; "" = Slurm's default slurm-%j.out
	Comment   string   // --comment, e.g. to tag the jobs of one run
	NoRequeue bool     // --no-requeue: never restart the job after a node failure
	Resources Resources
	// Extra are more sbatch options, passed verbatim before the script.
	Extra []string
}

// State is a job state as squeue -o %T and scontrol print it.
type State string

// The job states of Slurm (squeue(1), "JOB STATE CODES").
const (
	StatePending      State = "PENDING"
	StateConfiguring  State = "CONFIGURING"
	StateRunning      State = "RUNNING"
	StateCompleting   State = "COMPLETING"
	StateSuspended    State = "SUSPENDED"
	StateRequeued     State = "REQUEUED"
	StateRequeueHold  State = "REQUEUE_HOLD"
	StateRequeueFed   State = "REQUEUE_FED"
	StateResizing     State = "RESIZING"
	StateSignaling    State = "SIGNALING"
	StateStageOut     State = "STAGE_OUT"
	StateStopped      State = "STOPPED"
	StateResvDelHold  State = "RESV_DEL_HOLD"
	StateCompleted    State = "COMPLETED"
	StateFailed       State = "FAILED"
	StateCancelled    State = "CANCELLED"
	StateTimeout      State = "TIMEOUT"
	StateNodeFail     State = "NODE_FAIL"
	StateOutOfMemory  State = "OUT_OF_MEMORY"
	StatePreempted    State = "PREEMPTED"
	StateBootFail     State = "BOOT_FAIL"
	StateDeadline     State = "DEADLINE"
	StateSpecialExit  State = "SPECIAL_EXIT"
	StateRevoked      State = "REVOKED"
	StateUnknownState State = "UNKNOWN"
)

var terminalStates = map[State]bool{
	StateCompleted: true, StateFailed: true, StateCancelled: true, StateTimeout: true,
	StateNodeFail: true, StateOutOfMemory: true, StatePreempted: true, StateBootFail: true,
	StateDeadline: true, StateSpecialExit: true, StateRevoked: true,
}

// Terminal reports whether the job has ended (it will not run again
// unless requeued by hand). COMPLETING is not terminal: the job's
// processes may still be writing.
func (s State) Terminal() bool { return terminalStates[s] }

// Succeeded reports whether the job ended with exit code 0.
func (s State) Succeeded() bool { return s == StateCompleted }

// JobInfo is what the controller says about one job.
type JobInfo struct {
	ID       string
	Name     string
	State    State
	Reason   string // why it is pending or why it failed ("Priority", "NonZeroExitCode", …)
	ExitCode int    // the batch script's exit status (scontrol only; -1 if unknown)
	Signal   int    // the signal that ended it, 0 if none (scontrol only)
	Nodes    string // node list
	Comment  string
	Submit   time.Time // zero if unknown
	Start    time.Time
	End      time.Time
	StdOut   string // scontrol only
}

// String renders the job for messages: `1234 FAILED (NonZeroExitCode, exit 3)`.
func (j JobInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", j.ID, j.State)
	var extra []string
	if j.Reason != "" && j.Reason != "None" {
		extra = append(extra, j.Reason)
	}
	if j.ExitCode > 0 {
		extra = append(extra, fmt.Sprintf("exit %d", j.ExitCode))
	}
	if j.Signal > 0 {
		extra = append(extra, fmt.Sprintf("signal %d", j.Signal))
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(extra, ", "))
	}
	return b.String()
}

// Cluster submits, follows and cancels batch jobs.
type Cluster interface {
	// Submit queues a job and returns its id.
	Submit(ctx context.Context, req *SubmitRequest) (id string, err error)
	// Jobs returns what the controller knows about ids (squeue). Ids it
	// does not know (purged or never submitted) are absent from the map;
	// that is not an error.
	Jobs(ctx context.Context, ids []string) (map[string]JobInfo, error)
	// Job returns the details of one job (scontrol show job), with its
	// exit code; an error wrapping ErrUnknownJob if the controller does
	// not know it.
	Job(ctx context.Context, id string) (JobInfo, error)
	// Cancel cancels the jobs (scancel). Ids of finished or unknown jobs
	// are not an error.
	Cancel(ctx context.Context, ids ...string) error
}
