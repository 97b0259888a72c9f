package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
)

// exchange is where the driver and its jobs meet: a shared directory
// (Store, through dirExchange) or a remote object store (remoteExchange).
// The driver stages a task's inputs and spec into it, the job reads them
// there and writes its outputs and done-record back, and the driver
// ingests what the done-record names into its local cache.
type exchange interface {
	// arg is the value of the job's `exec-stage --store`.
	arg() string
	// stage makes sure the payload of in is in the exchange, taking it
	// from the driver's store, and returns the ref the job loads it by
	// (again forces a fresh check of what an earlier call staged).
	stage(ctx context.Context, in runner.TaskInput, from runner.Store, again bool) (cache.OutputRef, error)
	// stored returns an ok done-record for a key whose outputs the
	// exchange has already from any producer (ok false when it has none,
	// or keeps no such index).
	stored(ctx context.Context, key string) (*Done, bool, error)
	writeTask(ctx context.Context, key string, spec *runner.TaskSpec) error
	removeDone(ctx context.Context, key string) error
	readDone(ctx context.Context, key string) (*Done, bool, error)
	writeSubmission(ctx context.Context, sub *Submission) error
	readSubmission(ctx context.Context, key string) (*Submission, bool, error)
	// load reads and verifies one output a done-record names.
	load(ctx context.Context, ref cache.OutputRef) (artifact.Artifact, error)
	// ingested notes that the outputs of key are in the exchange (the
	// driver has just read them there), so staging them needs no check.
	ingested(key string, outs []cache.OutputRef)
	// output and env are the sbatch --output pattern of key's jobs and
	// the environment entries they need beyond Options.Env.
	output(key string) string
	env(key string) []string
	// logTail describes the end of a job's log for an error message;
	// job is what Slurm says about the job (its node).
	logTail(ctx context.Context, key string, job slurmcmd.JobInfo) string
	// cheapDone reports whether readDone may be called at every check
	// (a stat), or only when the job may have ended (a request).
	cheapDone() bool
}

// dirExchange is the shared directory of Options.Dir.
type dirExchange struct {
	st *Store

	mu     sync.Mutex
	staged map[string]string // local digest → store digest
}

func (d *dirExchange) arg() string { return d.st.Dir }

func (d *dirExchange) stage(_ context.Context, in runner.TaskInput, from runner.Store, _ bool) (cache.OutputRef, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	ref := in.Ref
	if dg, ok := d.staged[in.Ref.Digest]; ok && d.st.HasObject(dg) {
		ref.Digest = dg
		return ref, nil
	}
	a, err := from.Load(in.Ref)
	if err != nil {
		return ref, &runner.InputError{Producer: in.Label, Ref: in.Ref, Err: err}
	}
	dg, _, err := d.st.PutArtifact(a)
	if err != nil {
		return ref, fmt.Errorf("stage input %s/%s into the slurm store: %w", in.Ref.Key, in.Ref.Name, err)
	}
	d.staged[in.Ref.Digest] = dg
	ref.Digest = dg
	return ref, nil
}

func (d *dirExchange) stored(context.Context, string) (*Done, bool, error) { return nil, false, nil }

func (d *dirExchange) writeTask(_ context.Context, key string, spec *runner.TaskSpec) error {
	return slurmWriteJSON(d.st.TaskPath(key), spec)
}

func (d *dirExchange) removeDone(_ context.Context, key string) error {
	if err := os.Remove(d.st.DonePath(key)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func (d *dirExchange) readDone(_ context.Context, key string) (*Done, bool, error) {
	return d.st.ReadDone(key)
}

func (d *dirExchange) writeSubmission(_ context.Context, sub *Submission) error {
	return slurmWriteJSON(d.st.JobPath(sub.Key), sub)
}

func (d *dirExchange) readSubmission(_ context.Context, key string) (*Submission, bool, error) {
	return d.st.ReadSubmission(key)
}

func (d *dirExchange) load(_ context.Context, ref cache.OutputRef) (artifact.Artifact, error) {
	return d.st.LoadObject(ref.Digest, ref.ID().String())
}

func (d *dirExchange) ingested(string, []cache.OutputRef) {}

func (d *dirExchange) output(key string) string { return d.st.LogPattern(key) }

func (d *dirExchange) env(string) []string { return nil }

func (d *dirExchange) logTail(_ context.Context, key string, job slurmcmd.JobInfo) string {
	path := d.st.LogPath(key, job.ID)
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > logTailBytes {
		f.Seek(st.Size()-logTailBytes, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, logTailBytes))
	return describeTail(path, b)
}

func (d *dirExchange) cheapDone() bool { return true }

// logTailBytes is how much of a job's log an error message quotes.
const logTailBytes = 2048

// describeTail is logTail's text for the last bytes b of the log at where.
func describeTail(where string, b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "; its log " + where + " is empty"
	}
	return "; end of its log " + where + ":\n" + string(b)
}
