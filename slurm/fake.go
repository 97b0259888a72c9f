package slurm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fake is an in-process Cluster for tests: jobs run on this machine as
// subprocesses (or through Exec), with Slurm's states, a queue limit, held
// jobs and purged jobs, so a driver's reconciliation paths can be tested
// without a cluster. The zero value is not usable; call NewFake.
type Fake struct {
	// Exec runs one job and returns its exit status; nil runs
	// req.Command as a subprocess with req.Env added to this process's
	// environment, in req.WorkDir, appending stdout and stderr to
	// req.Output (%j replaced by the job id). ctx is canceled by Cancel.
	Exec func(ctx context.Context, id string, req *SubmitRequest) int
	// PendingDelay is how long a job stays PENDING before it may start.
	PendingDelay time.Duration
	// MaxRunning limits how many jobs run at once (0 = no limit); the
	// others wait PENDING with reason Resources.
	MaxRunning int
	// Hold submits jobs held (PENDING, reason JobHeldUser) until Release.
	Hold bool
	// SubmitErr, when set, makes Submit fail with it.
	SubmitErr error

	mu      sync.Mutex
	next    int
	jobs    map[string]*fakeJob
	running int
	reqs    []SubmitRequest
	wg      sync.WaitGroup
	closed  bool
}

type fakeJob struct {
	info     JobInfo
	req      SubmitRequest
	eligible bool // pending delay elapsed
	held     bool
	cancel   context.CancelFunc
	canceled bool
	done     chan struct{}
}

var _ Cluster = (*Fake)(nil)

// NewFake returns an empty fake cluster whose job ids start at 1000.
func NewFake() *Fake { return &Fake{next: 1000, jobs: map[string]*fakeJob{}} }

// Submit queues req.
func (f *Fake) Submit(ctx context.Context, req *SubmitRequest) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if _, err := BatchScript(req); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.SubmitErr != nil {
		return "", f.SubmitErr
	}
	if f.closed {
		return "", errors.New("slurm fake: closed")
	}
	f.next++
	id := strconv.Itoa(f.next)
	cp := *req
	cp.Command = append([]string(nil), req.Command...)
	cp.Env = append([]string(nil), req.Env...)
	f.reqs = append(f.reqs, cp)
	j := &fakeJob{
		info: JobInfo{ID: id, Name: req.Name, State: StatePending, Reason: "None", ExitCode: 0,
			Comment: req.Comment, Submit: time.Now()},
		req: cp, held: f.Hold, done: make(chan struct{}), eligible: f.PendingDelay <= 0,
	}
	if j.held {
		j.info.Reason = "JobHeldUser"
	}
	f.jobs[id] = j
	if !j.eligible {
		time.AfterFunc(f.PendingDelay, func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			j.eligible = true
			f.scheduleLocked()
		})
	}
	f.scheduleLocked()
	return id, nil
}

// scheduleLocked starts every pending job that may start, in id order.
func (f *Fake) scheduleLocked() {
	ids := make([]string, 0, len(f.jobs))
	for id, j := range f.jobs {
		if j.info.State == StatePending {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(a, b int) bool { return jobLess(ids[a], ids[b]) })
	for _, id := range ids {
		j := f.jobs[id]
		switch {
		case j.held:
			j.info.Reason = "JobHeldUser"
		case !j.eligible:
			j.info.Reason = "Priority"
		case f.closed:
		case f.MaxRunning > 0 && f.running >= f.MaxRunning:
			j.info.Reason = "Resources"
		default:
			f.startLocked(j)
		}
	}
}

func jobLess(a, b string) bool {
	x, _ := strconv.Atoi(a)
	y, _ := strconv.Atoi(b)
	return x < y
}

func (f *Fake) startLocked(j *fakeJob) {
	ctx, cancel := context.WithCancel(context.Background())
	j.cancel = cancel
	j.info.State, j.info.Reason, j.info.Start, j.info.Nodes = StateRunning, "None", time.Now(), "fake"
	f.running++
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer cancel()
		code := f.exec(ctx, j.info.ID, &j.req)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.running--
		j.info.End = time.Now()
		switch {
		case j.canceled:
			j.info.State, j.info.ExitCode, j.info.Signal = StateCancelled, 0, 15
		case code == 0:
			j.info.State, j.info.ExitCode = StateCompleted, 0
		default:
			j.info.State, j.info.Reason, j.info.ExitCode = StateFailed, "NonZeroExitCode", code
		}
		close(j.done)
		f.scheduleLocked()
	}()
}

func (f *Fake) exec(ctx context.Context, id string, req *SubmitRequest) int {
	if f.Exec != nil {
		return f.Exec(ctx, id, req)
	}
	cmd := exec.CommandContext(ctx, req.Command[0], req.Command[1:]...)
	cmd.Env = append(os.Environ(), req.Env...)
	cmd.Dir = req.WorkDir
	if req.Output != "" {
		out, err := os.OpenFile(strings.ReplaceAll(req.Output, "%j", id), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return 1
		}
		defer out.Close()
		cmd.Stdout, cmd.Stderr = out, out
	}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return ee.ExitCode()
	default:
		return 1
	}
}

// Jobs returns the known jobs among ids.
func (f *Fake) Jobs(ctx context.Context, ids []string) (map[string]JobInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]JobInfo{}
	for _, id := range ids {
		if j, ok := f.jobs[id]; ok {
			info := j.info
			info.ExitCode = -1 // squeue does not show exit codes
			info.Signal = 0
			out[id] = info
		}
	}
	return out, nil
}

// Job returns one job with its exit code.
func (f *Fake) Job(ctx context.Context, id string) (JobInfo, error) {
	if err := ctx.Err(); err != nil {
		return JobInfo{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	j, ok := f.jobs[id]
	if !ok {
		return JobInfo{}, fmt.Errorf("job %s: %w", id, ErrUnknownJob)
	}
	return j.info, nil
}

// Cancel cancels pending and running jobs; others are ignored.
func (f *Fake) Cancel(ctx context.Context, ids ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		j, ok := f.jobs[id]
		if !ok {
			continue
		}
		switch j.info.State {
		case StatePending:
			j.canceled = true
			j.info.State, j.info.End, j.info.Signal = StateCancelled, time.Now(), 15
			close(j.done)
		case StateRunning:
			j.canceled = true
			j.cancel()
		}
	}
	return nil
}

// Release releases held jobs (scontrol release).
func (f *Fake) Release(ids ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range ids {
		if j, ok := f.jobs[id]; ok {
			j.held = false
		}
	}
	f.scheduleLocked()
}

// Forget makes the controller forget a job, as when a finished job is
// purged after MinJobAge or a controller loses its state. A job still
// running is killed first; a pending one never starts.
func (f *Fake) Forget(id string) {
	f.mu.Lock()
	j, ok := f.jobs[id]
	if ok {
		switch j.info.State {
		case StateRunning:
			j.canceled = true
			j.cancel()
		case StatePending:
			j.canceled = true
			j.info.State, j.info.End = StateCancelled, time.Now()
			close(j.done)
		}
	}
	f.mu.Unlock()
	if !ok {
		return
	}
	<-j.done
	f.mu.Lock()
	delete(f.jobs, id)
	f.mu.Unlock()
}

// Wait blocks until job id has ended (or is unknown) or ctx is done.
func (f *Fake) Wait(ctx context.Context, id string) error {
	f.mu.Lock()
	j, ok := f.jobs[id]
	f.mu.Unlock()
	if !ok {
		return nil
	}
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Submitted returns copies of every request submitted so far, in order.
func (f *Fake) Submitted() []SubmitRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]SubmitRequest(nil), f.reqs...)
}

// IDs returns the ids of every job the fake knows, in submission order.
func (f *Fake) IDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]string, 0, len(f.jobs))
	for id := range f.jobs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(a, b int) bool { return jobLess(ids[a], ids[b]) })
	return ids
}

// Close cancels every job and waits for the running ones to end.
func (f *Fake) Close() {
	f.mu.Lock()
	f.closed = true
	for _, j := range f.jobs {
		if j.info.State == StateRunning {
			j.canceled = true
			j.cancel()
		}
	}
	f.mu.Unlock()
	f.wg.Wait()
}
