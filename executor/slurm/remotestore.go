package slurm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
	slurmcmd "github.com/hylaflow/hylaflow/slurm"
)

// RemoteStore is the Slurm executor's exchange on a remote store, for
// clusters whose nodes share no file system (Options.Remote, `hylaflow run
// --executor slurm --store s3://…`). Artifacts travel as the remote's own
// keys — content-addressed payloads under objects/, written once, and
// per-key records under keys/ that commit them (package remote) — so every
// input a job fetches is verified against its digest, and every output a
// job pushes is a cache entry that any machine sharing the remote reuses.
// Beside them, under slurm/, small records that are replaced as a whole:
//
//	slurm/tasks/KEY.json        the TaskSpec a job runs
//	slurm/done/KEY.json         the job's done-record (Done)
//	slurm/jobs/KEY.json         the driver's submission record (Submission)
//	slurm/logs/KEY.JOBID.out    the job's standard output and error
//
// A job (RunRemoteJob) works in a scratch cache of its own on its node.
type RemoteStore struct {
	Remote *remote.Remote
}

// errNoTask is ReadTask's error for a key with no task spec.
var errNoTask = errors.New("no task spec (was the job submitted by hylaflow run --executor slurm with this store?)")

// Names of a key's records on the remote.
func remoteTaskName(key string) string       { return "slurm/tasks/" + key + ".json" }
func remoteDoneName(key string) string       { return "slurm/done/" + key + ".json" }
func remoteJobName(key string) string        { return "slurm/jobs/" + key + ".json" }
func remoteLogName(key, jobID string) string { return "slurm/logs/" + key + "." + jobID + ".out" }

// LogName returns the name, under the remote's URL, of the log of one job of key.
func LogName(key, jobID string) string { return remoteLogName(key, jobID) }

// readJSON reads a record into v; ok is false when there is none.
func (s *RemoteStore) readJSON(ctx context.Context, name string, v any) (bool, error) {
	b, ok, err := s.Remote.ReadFile(ctx, name, slurmMaxRecord)
	if err != nil || !ok {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("remote %s: %s: %v: %w", s.Remote.URL(), name, err, cache.ErrCorrupt)
	}
	return true, nil
}

func (s *RemoteStore) writeJSON(ctx context.Context, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return s.Remote.WriteFile(ctx, name, "application/json", append(b, '\n'))
}

// ReadDone returns key's done-record; ok is false if there is none.
func (s *RemoteStore) ReadDone(ctx context.Context, key string) (*Done, bool, error) {
	var d Done
	ok, err := s.readJSON(ctx, remoteDoneName(key), &d)
	if err != nil || !ok {
		return nil, false, err
	}
	if err := d.check(key); err != nil {
		return nil, false, fmt.Errorf("remote %s: %s: %w", s.Remote.URL(), remoteDoneName(key), err)
	}
	return &d, true, nil
}

// WriteDone writes d as its key's done-record.
func (s *RemoteStore) WriteDone(ctx context.Context, d *Done) error {
	return s.writeJSON(ctx, remoteDoneName(d.Key), d)
}

// ReadSubmission returns key's submission record; ok is false if there is none.
func (s *RemoteStore) ReadSubmission(ctx context.Context, key string) (*Submission, bool, error) {
	var sub Submission
	ok, err := s.readJSON(ctx, remoteJobName(key), &sub)
	if err != nil || !ok {
		return nil, false, err
	}
	if sub.Key != key || sub.JobID == "" {
		return nil, false, fmt.Errorf("remote %s: %s: not a submission record of key %s", s.Remote.URL(), remoteJobName(key), key)
	}
	return &sub, true, nil
}

// ReadTask returns the task spec stored for key.
func (s *RemoteStore) ReadTask(ctx context.Context, key string) (*runner.TaskSpec, error) {
	var spec runner.TaskSpec
	ok, err := s.readJSON(ctx, remoteTaskName(key), &spec)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("remote %s: %s: %w", s.Remote.URL(), remoteTaskName(key), errNoTask)
	}
	if spec.Record.Key != key {
		return nil, fmt.Errorf("remote %s: %s: spec of key %q: %w", s.Remote.URL(), remoteTaskName(key), spec.Record.Key, cache.ErrCorrupt)
	}
	return &spec, nil
}

// remoteExchange is the driver's side of a RemoteStore.
type remoteExchange struct {
	RemoteStore
	url      string // as given: the jobs open it
	logDir   string
	producer remote.Producer

	mu     sync.Mutex
	staged map[string]*remoteStaged // input key → what its push found
}

type remoteStaged struct {
	mu   sync.Mutex
	ok   bool
	outs []remote.Output
}

func newRemoteExchange(opts Options) (*remoteExchange, error) {
	r, err := remote.Open(context.Background(), opts.Remote, opts.RemoteOptions)
	if err != nil {
		return nil, fmt.Errorf("slurm executor: %w", err)
	}
	logDir := opts.LogDir
	if logDir == "" {
		logDir = "/tmp"
	}
	if opts.Producer.Host == "" {
		opts.Producer.Host, _ = os.Hostname()
	}
	x := &remoteExchange{RemoteStore: RemoteStore{Remote: r}, url: opts.Remote, logDir: logDir,
		producer: opts.Producer, staged: map[string]*remoteStaged{}}
	// One request before any stage: a remote that does not answer fails
	// the run at once, with one message, instead of every stage after
	// its own retries (the remote is the only way to the jobs).
	if _, _, err := x.Remote.ReadFile(context.Background(), "slurm/probe", 1<<10); err != nil && !errors.Is(err, cache.ErrCorrupt) {
		r.Close()
		return nil, fmt.Errorf("slurm executor: %w: %w", ErrRemoteUnusable, err)
	}
	return x, nil
}

func (x *remoteExchange) arg() string { return x.url }

func (x *remoteExchange) entry(key string) *remoteStaged {
	x.mu.Lock()
	defer x.mu.Unlock()
	e := x.staged[key]
	if e == nil {
		e = &remoteStaged{}
		x.staged[key] = e
	}
	return e
}

// stage pushes the input's key (its record and the payloads the remote
// lacks) from the driver's store, once per key and executor: the job
// fetches it as any machine fetches a key. A key the remote has with other
// digests (a non-deterministic producer) keeps the remote's record, and
// the job reads the remote's bytes.
func (x *remoteExchange) stage(ctx context.Context, in runner.TaskInput, from runner.Store, again bool) (cache.OutputRef, error) {
	e := x.entry(in.Ref.Key)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ok || again {
		outs, err := x.push(ctx, in, from)
		if err != nil {
			return in.Ref, err
		}
		e.ok, e.outs = true, outs
	}
	for _, o := range e.outs {
		if o.Name == in.Ref.Name {
			ref := in.Ref
			ref.Kind, ref.Digest, ref.Size = artifact.Kind(o.Kind), o.Digest, o.Size
			return ref, nil
		}
	}
	return in.Ref, fmt.Errorf("input %s/%s of %s: the remote's record of the key has no output %q", in.Ref.Key, in.Ref.Name, in.Label, in.Ref.Name)
}

// payloadOpener is a store that reads stored payloads raw (*cache.Cache).
type payloadOpener interface {
	OpenPayload(ref cache.OutputRef) (io.ReadCloser, error)
}

func (x *remoteExchange) push(ctx context.Context, in runner.TaskInput, from runner.Store) ([]remote.Output, error) {
	key := in.Ref.Key
	rs, ok := from.(runner.RecordStore)
	if !ok {
		return nil, fmt.Errorf("stage input %s/%s: the driver's store keeps no key records, which a remote store needs", key, in.Ref.Name)
	}
	rec, ok, err := rs.Record(key)
	if err == nil && !ok {
		err = errors.New("no key record in the driver's cache")
	}
	if err != nil {
		return nil, &runner.InputError{Producer: in.Label, Ref: in.Ref, Err: err}
	}
	refs, ok, err := from.Lookup(key)
	if err == nil && !ok {
		err = errors.New("not stored in the driver's cache")
	}
	if err != nil {
		return nil, &runner.InputError{Producer: in.Label, Ref: in.Ref, Err: err}
	}
	p := x.producer
	r := remote.NewRecord(rec, refs, p)
	open := func(o remote.Output) (io.ReadCloser, error) {
		ref := cache.OutputRef{Key: key, Name: o.Name, Kind: artifact.Kind(o.Kind), Digest: o.Digest, Size: o.Size}
		if po, ok := from.(payloadOpener); ok {
			return po.OpenPayload(ref)
		}
		a, err := from.Load(ref)
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(artifact.Encode(pw, a)) }()
		return cache.NewVerifyingReader(pr, o.Digest, o.Size), nil
	}
	_, err = x.Remote.Put(ctx, r, open)
	switch {
	case errors.Is(err, remote.ErrDivergent):
		old, ok, gerr := x.Remote.Get(ctx, key)
		if gerr != nil || !ok {
			return nil, fmt.Errorf("stage input %s (%s): %w", in.Label, key, err)
		}
		return old.Outputs, nil
	case errors.Is(err, cache.ErrCorrupt):
		return nil, &runner.InputError{Producer: in.Label, Ref: in.Ref, Err: err}
	case err != nil:
		return nil, fmt.Errorf("stage input %s (%s): %w", in.Label, key, err)
	}
	return r.Outputs, nil
}

func (x *remoteExchange) stored(ctx context.Context, key string) (*Done, bool, error) {
	rec, ok, err := x.Remote.Get(ctx, key)
	if errors.Is(err, cache.ErrCorrupt) {
		return nil, false, nil // a job computes it, and its push says more
	}
	if err != nil || !ok {
		return nil, false, err
	}
	return &Done{Key: key, Address: rec.Address, Status: DoneOK, Outputs: rec.Refs(), Host: rec.Producer.Host}, true, nil
}

func (x *remoteExchange) writeTask(ctx context.Context, key string, spec *runner.TaskSpec) error {
	return x.writeJSON(ctx, remoteTaskName(key), spec)
}

func (x *remoteExchange) removeDone(ctx context.Context, key string) error {
	return x.Remote.Delete(ctx, remoteDoneName(key))
}

func (x *remoteExchange) readDone(ctx context.Context, key string) (*Done, bool, error) {
	return x.ReadDone(ctx, key)
}

func (x *remoteExchange) writeSubmission(ctx context.Context, sub *Submission) error {
	return x.writeJSON(ctx, remoteJobName(sub.Key), sub)
}

func (x *remoteExchange) readSubmission(ctx context.Context, key string) (*Submission, bool, error) {
	return x.ReadSubmission(ctx, key)
}

// load fetches one output into a temporary file, verifying its digest on
// the way, and decodes it.
func (x *remoteExchange) load(ctx context.Context, ref cache.OutputRef) (artifact.Artifact, error) {
	o := remote.Output{Name: ref.Name, Kind: string(ref.Kind), Digest: ref.Digest, Size: ref.Size}
	f, err := os.CreateTemp("", "hylaflow-fetch-*")
	if err != nil {
		return nil, err
	}
	defer func() {
		f.Close()
		os.Remove(f.Name())
	}()
	err = x.Remote.WithRetry(ctx, "fetch "+remote.ObjectKey(ref.Digest), ref.Size, func(ctx context.Context) error {
		if err := f.Truncate(0); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		rd, err := x.Remote.Reader(ctx, o)
		if err != nil {
			return err
		}
		defer rd.Close()
		_, err = io.Copy(f, rd)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref.ID(), err)
	}
	return artifact.Decode(f, ref.Size, ref.ID().String())
}

func (x *remoteExchange) ingested(key string, outs []cache.OutputRef) {
	// The driver read the key's outputs from the remote: staging it as
	// an input later needs no push.
	e := x.entry(key)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.ok {
		e.ok, e.outs = true, nil
		for _, o := range outs {
			e.outs = append(e.outs, remote.Output{Name: o.Name, Kind: string(o.Kind), Digest: o.Digest, Size: o.Size})
		}
	}
}

// output is a node-local path: the job uploads it to the remote.
func (x *remoteExchange) output(key string) string {
	return filepath.Join(x.logDir, "hylaflow-"+key+".%j.out")
}

func (x *remoteExchange) env(key string) []string {
	return []string{JobLogEnv + "=" + x.output(key)}
}

func (x *remoteExchange) logTail(ctx context.Context, key string, job slurmcmd.JobInfo) string {
	name := remoteLogName(key, job.ID)
	b, ok, err := x.Remote.ReadTail(ctx, name, logTailBytes)
	if err == nil && ok {
		return describeTail(strings.TrimSuffix(x.Remote.URL(), "/")+"/"+name, b)
	}
	where := strings.ReplaceAll(x.output(key), "%j", job.ID)
	if job.Nodes != "" {
		where = job.Nodes + ":" + where
	}
	return "; the job uploaded no log to the remote: it stays on its node, " + where
}

func (x *remoteExchange) cheapDone() bool { return false }
