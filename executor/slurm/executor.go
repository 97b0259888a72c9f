package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
)

// Options configure the Slurm executor.
type Options struct {
	// Cluster submits and follows the jobs (slurm.Client for a real cluster).
	Cluster slurmcmd.Cluster
	// Dir is the shared store directory (see Store); it must be
	// visible at the same path on the compute nodes.
	Dir string
	// Remote is the URL of a remote store (package remote) that the jobs
	// use instead of a shared directory (exactly one of Dir and Remote):
	// the driver pushes a job's inputs there, the job runs in a scratch
	// cache on its node and pushes its outputs, and the driver fetches
	// them (see RemoteStore). Nodes then share nothing but the remote.
	Remote string
	// RemoteOptions are the remote's retry options (Remote only).
	RemoteOptions remote.Options
	// Producer is recorded in the records of the inputs the driver pushes
	// to the remote (Remote only).
	Producer remote.Producer
	// LogDir is where, with Remote, a job's standard output and error go
	// on its node (sbatch --output; default /tmp): the job uploads the file
	// to the remote before its done-record, and the driver reads it there.
	LogDir string
	// Command is the argv prefix that runs hylaflow on a compute node
	// (default: this executable). The job runs
	// Command + ["exec-stage", "--store", Dir or Remote, KEY].
	Command []string
	// Partition and Account apply to every job.
	Partition, Account string
	// MaxJobs bounds the jobs queued or running at once (0: no bound
	// beyond the runner's -j).
	MaxJobs int
	// Poll is the squeue interval (default 1 s). One squeue call covers
	// every job of the executor.
	Poll time.Duration
	// Grace is how long a job may be finished (or unknown to squeue)
	// without its done-record appearing before it counts as failed or lost
	// (default 15 s: network file systems cache directory entries).
	Grace time.Duration
	// Env are KEY=VALUE pairs exported to every job.
	Env []string
	// SbatchArgs are more sbatch options for every job (e.g. --qos=…).
	SbatchArgs []string
	// Logf receives one line per submission, re-attachment and resubmission
	// (nil: discarded).
	Logf func(format string, args ...any)
}

// Executor is the runner.Executor that runs every stage instance as one Slurm batch
// job. The driver (this process) keeps scheduling: the runner calls Execute
// for each ready instance, and Execute stages the inputs into the shared
// store, submits `hylaflow exec-stage --store DIR KEY`, follows the job with
// squeue/scontrol and ingests the done-record into the local cache.
//
// A rerun after the driver was killed reconciles by itself, key by key: a
// done-record that says ok is ingested without running anything, a job still
// queued or running (per its submission record and squeue) is re-attached,
// and a job that is gone without an ok done-record is submitted again.
// Canceling Execute's context scancels the job.
type Executor struct {
	store runner.Store
	opts  Options
	st    *Store // the shared directory (nil with a remote)
	ex    exchange
	sem   chan struct{}
	// sbatch bounds the sbatch commands in flight (slurmSbatchAtOnce).
	sbatch chan struct{}

	mu      sync.Mutex
	watched map[string]*slurmWatch
	polling bool
}

type slurmWatch struct {
	info   slurmcmd.JobInfo
	known  bool // squeue listed the job in the last poll
	polled bool // at least one poll answered since the watch began
}

// New returns a Slurm executor that stores ingested outputs in store
// (the driver's local cache).
func New(store runner.Store, opts Options) (*Executor, error) {
	if opts.Cluster == nil {
		return nil, errors.New("slurm executor: no cluster")
	}
	if (opts.Dir == "") == (opts.Remote == "") {
		return nil, errors.New("slurm executor: want either a store directory on a file system the compute nodes share or a remote store URL (--store DIR or URL)")
	}
	if len(opts.Command) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("slurm executor: locate the hylaflow executable: %w", err)
		}
		opts.Command = []string{exe}
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Grace <= 0 {
		opts.Grace = 15 * time.Second
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	s := &Executor{store: store, opts: opts, watched: map[string]*slurmWatch{}}
	if opts.Dir != "" {
		s.st = &Store{Dir: opts.Dir}
		if err := s.st.Init(); err != nil {
			return nil, err
		}
		s.ex = &dirExchange{st: s.st, staged: map[string]string{}}
	} else {
		rx, err := newRemoteExchange(opts)
		if err != nil {
			return nil, err
		}
		s.ex = rx
	}
	s.sbatch = make(chan struct{}, slurmSbatchAtOnce)
	if opts.MaxJobs > 0 {
		s.sem = make(chan struct{}, opts.MaxJobs)
	}
	return s, nil
}

// Store returns the executor's shared store directory (nil when it uses a
// remote store).
func (s *Executor) Store() *Store { return s.st }

var _ runner.Executor = (*Executor)(nil)

// Execute implements Executor.
func (s *Executor) Execute(ctx context.Context, task *runner.Task, hooks runner.Hooks) (*runner.Result, error) {
	key := task.Key()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	release, err := s.store.Claim(ctx, key)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("claim %s (%s): %w", key, task.Address(), err)
	}
	defer release()
	if !task.Force {
		refs, ok, err := s.store.Lookup(key)
		if err != nil {
			return nil, fmt.Errorf("look up %s (%s): %w", key, task.Address(), err)
		}
		if ok {
			return &runner.Result{Outputs: runner.OrderRefs(task.Type, refs), Cached: true}, nil
		}
	}
	// Reconcile with what an earlier driver left: a job still queued or
	// running is re-attached; else a finished job's ok done-record is ingested.
	jobID, earlier := "", ""
	if !task.Force {
		sub, ok, err := s.ex.readSubmission(ctx, key)
		if err != nil && s.st == nil && !errors.Is(err, cache.ErrCorrupt) {
			// The remote failed (after its retries): no job can run.
			return nil, &runner.StageError{Address: task.Address(), Err: err}
		}
		if err == nil && ok {
			j, known, err := s.jobState(ctx, sub.JobID)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			switch {
			case err == nil && known && !j.State.Terminal():
				jobID = sub.JobID
				s.opts.Logf("%s: re-attached to slurm job %s (%s)", task.Address(), jobID, j.State)
			case err == nil && known:
				earlier = fmt.Sprintf("slurm job %s of an earlier run ended %s", sub.JobID, j.State)
			case err == nil:
				earlier = fmt.Sprintf("slurm job %s of an earlier run is gone from the queue", sub.JobID)
			}
		}
		if jobID == "" {
			if d, ok, err := s.ex.readDone(ctx, key); err == nil && ok && d.Status == DoneOK {
				res, err := s.ingest(ctx, task, d)
				if err == nil {
					s.opts.Logf("%s: ingested the done-record of slurm job %s from an earlier run", task.Address(), d.JobID)
					return res, nil
				}
				s.opts.Logf("%s: done-record of job %s unusable (%v); running again", task.Address(), d.JobID, err)
			} else if d, ok, err := s.ex.stored(ctx, key); err == nil && ok {
				// Another machine or run pushed the key: nothing to submit.
				res, err := s.ingest(ctx, task, d)
				if err == nil {
					s.opts.Logf("%s: on the remote already (pushed by %s); fetched it, no job", task.Address(), d.Host)
					res.Cached, res.Duration = true, 0
					return res, nil
				}
				s.opts.Logf("%s: its record on the remote is unusable (%v); running it", task.Address(), err)
			} else if err != nil {
				return nil, &runner.StageError{Address: task.Address(), Err: err}
			} else if earlier != "" {
				s.opts.Logf("%s: %s without an ok done-record; submitting again", task.Address(), earlier)
			}
		}
	}
	if s.sem != nil {
		select {
		case s.sem <- struct{}{}:
			defer func() { <-s.sem }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	restaged := false
	for lost := 0; ; {
		if jobID == "" {
			if jobID, err = s.submit(ctx, task, restaged); err != nil {
				return nil, err
			}
		}
		res, out, err := s.wait(ctx, task, jobID, hooks)
		switch out {
		case waitDone:
			return res, err
		case waitRestage:
			if restaged {
				return nil, err
			}
			// The job found an input damaged or missing on the remote
			// (and removed the damaged payload): upload it again from this
			// cache, whose copy is verified, and run the job once more.
			restaged = true
			s.opts.Logf("%s: slurm job %s could not fetch an input soundly from the remote; uploading it again and resubmitting", task.Address(), jobID)
			jobID = ""
			continue
		}
		if lost++; lost >= 2 {
			return nil, &runner.StageError{Address: task.Address(), Err: fmt.Errorf(
				"slurm job %s vanished from the queue without a done-record, as did the job before it%s", jobID,
				s.ex.logTail(ctx, key, slurmcmd.JobInfo{ID: jobID}))}
		}
		s.opts.Logf("%s: slurm job %s vanished without a done-record; submitting again", task.Address(), jobID)
		jobID = ""
	}
}

// submit stages task's inputs (again: checking those staged before anew),
// writes its spec and submits its job.
func (s *Executor) submit(ctx context.Context, task *runner.Task, again bool) (string, error) {
	key := task.Key()
	spec := task.Spec()
	spec.Inputs = map[string][]runner.TaskInput{}
	for slot, ins := range task.Inputs {
		list := make([]runner.TaskInput, len(ins))
		for i, in := range ins {
			ref, err := s.ex.stage(ctx, in, s.store, again)
			if err != nil {
				if ctx.Err() != nil {
					return "", ctx.Err()
				}
				var ie *runner.InputError
				if errors.As(err, &ie) {
					return "", err
				}
				return "", &runner.StageError{Address: task.Address(), Err: err}
			}
			list[i] = in
			list[i].Ref = ref
		}
		spec.Inputs[slot] = list
	}
	if err := s.ex.writeTask(ctx, key, spec); err != nil {
		return "", &runner.StageError{Address: task.Address(), Err: fmt.Errorf("write the task spec: %w", err)}
	}
	if err := s.ex.removeDone(ctx, key); err != nil {
		return "", &runner.StageError{Address: task.Address(), Err: fmt.Errorf("remove the old done-record: %w", err)}
	}
	req := &slurmcmd.SubmitRequest{
		Name:    slurmJobName(task.Address()),
		Command: append(append([]string(nil), s.opts.Command...), "exec-stage", "--store", s.ex.arg(), key),
		Env:     append(append([]string(nil), s.opts.Env...), s.ex.env(key)...),
		Output:  s.ex.output(key),
		Comment: "hylaflow " + key,
		Resources: slurmcmd.Resources{
			CPUs: task.Resources.CPUs, MemMB: task.Resources.MemMB, Time: task.Resources.Time, GPUs: task.Resources.GPUs,
			Partition: s.opts.Partition, Account: s.opts.Account,
		},
		Extra: s.opts.SbatchArgs,
	}
	var id string
	var err error
	for try := 0; try < 3; try++ {
		if try > 0 {
			select {
			case <-time.After(time.Duration(try) * time.Second):
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		if id, err = s.submitOne(ctx, req); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%s: submit: %w", task.Address(), err)
	}
	host, _ := os.Hostname()
	sub := &Submission{Key: key, Address: task.Address(), JobID: id, Submitted: time.Now(), Host: host, PID: os.Getpid()}
	if err := s.ex.writeSubmission(ctx, sub); err != nil {
		_ = s.opts.Cluster.Cancel(context.Background(), id)
		return "", &runner.StageError{Address: task.Address(), Err: fmt.Errorf("write the submission record: %w", err)}
	}
	s.opts.Logf("%s: submitted slurm job %s", task.Address(), id)
	return id, nil
}

// slurmSbatchAtOnce is how many sbatch commands the executor runs at once:
// a 500-instance fan-out becoming ready submits in a steady stream rather
// than as 500 simultaneous RPCs to slurmctld.
const slurmSbatchAtOnce = 4

// submitOne runs one sbatch, waiting for a free sbatch slot.
func (s *Executor) submitOne(ctx context.Context, req *slurmcmd.SubmitRequest) (string, error) {
	select {
	case s.sbatch <- struct{}{}:
		defer func() { <-s.sbatch }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	return s.opts.Cluster.Submit(ctx, req)
}

// slurmJobName is the job name squeue shows: "hf:" + the address, bounded.
func slurmJobName(address string) string {
	name := "hf:" + address
	if len(name) > 120 {
		name = name[:120]
	}
	return name
}

// waitOutcome is how wait ended.
type waitOutcome int

const (
	waitDone    waitOutcome = iota // a result or a final error
	waitLost                       // the job vanished: it may be submitted again
	waitRestage                    // the job could not fetch inputs: stage them again
)

// remoteDoneEvery is how often wait reads the done-record of a job that
// squeue still shows running when the record is a remote request: the
// record is read at once when the job is seen ending.
const remoteDoneEvery = 5 * time.Second

// wait follows jobID until its done-record appears or it ends without one.
func (s *Executor) wait(ctx context.Context, task *runner.Task, jobID string, hooks runner.Hooks) (*runner.Result, waitOutcome, error) {
	key := task.Key()
	s.watch(jobID)
	defer s.unwatch(jobID)
	tick := time.NewTicker(s.checkInterval())
	defer tick.Stop()
	var lastState slurmcmd.State
	var endedAt time.Time // when the job was first seen finished or unknown
	var lastRead time.Time
	for {
		select {
		case <-ctx.Done():
			cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := s.opts.Cluster.Cancel(cctx, jobID); err != nil {
				s.opts.Logf("%s: scancel %s: %v", task.Address(), jobID, err)
			}
			cancel()
			return nil, waitDone, ctx.Err()
		case <-tick.C:
		}
		w := s.watchState(jobID)
		ending := w.polled && (!w.known || w.info.State.Terminal() || w.info.State == slurmcmd.StateCompleting)
		if s.ex.cheapDone() || ending || time.Since(lastRead) >= remoteDoneEvery {
			lastRead = time.Now()
			d, ok, derr := s.ex.readDone(ctx, key)
			if derr != nil {
				// A half-visible record cannot happen (rename, or an
				// object store's whole-object writes), but a foreign or
				// damaged one can, and a remote can fail: report it.
				s.opts.Logf("%s: %v", task.Address(), derr)
			}
			if ok {
				if d.Status == DoneFailed {
					err := &runner.StageError{Address: task.Address(), Err: fmt.Errorf("%s (slurm job %s on %s)%s",
						d.Error, jobID, d.Host, s.failedLog(ctx, key, jobID))}
					if len(d.Restage) > 0 {
						return nil, waitRestage, err
					}
					return nil, waitDone, err
				}
				if d.Warning != "" {
					s.opts.Logf("%s: slurm job %s: %s", task.Address(), jobID, d.Warning)
				}
				res, err := s.ingest(ctx, task, d)
				return res, waitDone, err
			}
		}
		if !w.polled {
			continue
		}
		if w.known && w.info.State != lastState {
			lastState = w.info.State
			msg := fmt.Sprintf("slurm %s %s", jobID, w.info.State)
			if w.info.State == slurmcmd.StatePending && w.info.Reason != "" && w.info.Reason != "None" {
				msg += " (" + w.info.Reason + ")"
			}
			if hooks.Progress != nil {
				hooks.Progress(0, 0, msg)
			}
		}
		if w.known && !w.info.State.Terminal() {
			endedAt = time.Time{}
			continue
		}
		if endedAt.IsZero() {
			endedAt = time.Now()
			continue
		}
		if time.Since(endedAt) < s.opts.Grace {
			continue
		}
		if !w.known {
			return nil, waitLost, nil
		}
		info := w.info
		if full, err := s.opts.Cluster.Job(context.Background(), jobID); err == nil {
			info = full
		}
		return nil, waitDone, &runner.StageError{Address: task.Address(), Err: fmt.Errorf(
			"slurm job %s ended without a done-record%s%s", info, s.exitHint(info), s.ex.logTail(ctx, key, info))}
	}
}

// failedLog is what a failed stage's error adds from its job's log: with a
// remote store the log's end (the node's file is out of the user's
// reach), with a shared directory the log's path.
func (s *Executor) failedLog(ctx context.Context, key, jobID string) string {
	if s.st != nil {
		return "; its log: " + s.st.LogPath(key, jobID)
	}
	return s.ex.logTail(ctx, key, slurmcmd.JobInfo{ID: jobID})
}

// exitHint explains the exit status of a job that ended without a done-record.
func (s *Executor) exitHint(info slurmcmd.JobInfo) string {
	if s.st == nil && info.ExitCode == ExitRemote {
		return fmt.Sprintf("; exit status %d: the job could not use the remote store %s (unreachable from its node, or its credentials refused)",
			ExitRemote, remote.Redact(s.opts.Remote))
	}
	return ""
}

// jobState returns what squeue says about one job, from the poller's next
// answer that covers it: after a driver restart, every stage's
// reconciliation shares one squeue call per poll interval instead of
// sending one each.
func (s *Executor) jobState(ctx context.Context, id string) (slurmcmd.JobInfo, bool, error) {
	s.watch(id)
	defer s.unwatch(id)
	tick := time.NewTicker(s.checkInterval())
	defer tick.Stop()
	for {
		if w := s.watchState(id); w.polled {
			return w.info, w.known, nil
		}
		select {
		case <-ctx.Done():
			return slurmcmd.JobInfo{}, false, ctx.Err()
		case <-tick.C:
		}
	}
}

// checkInterval is how often wait looks for the done-record.
func (s *Executor) checkInterval() time.Duration {
	return max(20*time.Millisecond, min(s.opts.Poll/4, 250*time.Millisecond))
}

// ingest reads a done-record's outputs from the exchange, verifies them and
// stores them in the local cache under the task's key.
func (s *Executor) ingest(ctx context.Context, task *runner.Task, d *Done) (*runner.Result, error) {
	outs := map[string]artifact.Artifact{}
	for _, o := range d.Outputs {
		if o.Key != task.Key() {
			return nil, fmt.Errorf("%s: done-record output %q belongs to key %s", task.Address(), o.Name, o.Key)
		}
		a, err := s.ex.load(ctx, o)
		if err != nil {
			return nil, fmt.Errorf("%s: ingest: %w", task.Address(), err)
		}
		outs[o.Name] = a
	}
	if err := runner.CheckOutputs(task.Type, outs); err != nil {
		return nil, &runner.StageError{Address: task.Address(), Err: fmt.Errorf("done-record of slurm job %s: %w", d.JobID, err)}
	}
	refs, err := s.store.Store(task.Record, outs)
	if err != nil {
		return nil, fmt.Errorf("store the outputs of %s (%s): %w", task.Address(), task.Key(), err)
	}
	s.ex.ingested(task.Key(), d.Outputs)
	metrics := d.Metrics
	if metrics == nil {
		metrics = runner.Metrics(outs)
	}
	return &runner.Result{Outputs: runner.OrderRefs(task.Type, refs), Metrics: metrics, Duration: d.Duration}, nil
}

// watch adds jobID to the jobs the poller follows (starting it if needed).
func (s *Executor) watch(jobID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watched[jobID] = &slurmWatch{}
	if !s.polling {
		s.polling = true
		go s.poll()
	}
}

func (s *Executor) unwatch(jobID string) {
	s.mu.Lock()
	delete(s.watched, jobID)
	s.mu.Unlock()
}

func (s *Executor) watchState(jobID string) slurmWatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.watched[jobID]; ok {
		return *w
	}
	return slurmWatch{}
}

// poll asks squeue about every watched job once per Poll interval, in one
// call, until no job is watched.
func (s *Executor) poll() {
	first := true
	for {
		if !first {
			time.Sleep(s.opts.Poll)
		}
		first = false
		s.mu.Lock()
		ids := make([]string, 0, len(s.watched))
		for id := range s.watched {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			s.polling = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		jobs := map[string]slurmcmd.JobInfo{}
		var err error
		for start := 0; start < len(ids) && err == nil; start += 500 {
			var part map[string]slurmcmd.JobInfo
			part, err = s.opts.Cluster.Jobs(context.Background(), ids[start:min(len(ids), start+500)])
			for id, j := range part {
				jobs[id] = j
			}
		}
		if err != nil {
			s.opts.Logf("squeue: %v", err)
			continue // a controller hiccup: keep the last states
		}
		s.mu.Lock()
		for _, id := range ids {
			w, ok := s.watched[id]
			if !ok {
				continue
			}
			j, known := jobs[id]
			w.info, w.known, w.polled = j, known, true
		}
		s.mu.Unlock()
	}
}

// SlurmJobState returns a human summary of the states of the jobs the
// executor follows, e.g. "3 RUNNING, 5 PENDING".
func (s *Executor) SlurmJobState() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := map[slurmcmd.State]int{}
	for _, w := range s.watched {
		if w.known {
			counts[w.info.State]++
		}
	}
	var parts []string
	for _, st := range []slurmcmd.State{slurmcmd.StateRunning, slurmcmd.StatePending, slurmcmd.StateCompleting} {
		if counts[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
		}
	}
	return strings.Join(parts, ", ")
}
