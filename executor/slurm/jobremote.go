package slurm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
)

// ExitRemote is the exit status of `hylaflow exec-stage --store URL` when
// the job could not use the remote store at all (unreachable, credentials
// refused): it could write no done-record, so the driver learns why from
// the job's exit status (EX_UNAVAILABLE of sysexits.h).
const ExitRemote = 69

// ErrRemoteUnusable marks RunRemoteJob's errors that left no done-record
// because the remote store could not be used (ExitRemote).
var ErrRemoteUnusable = errors.New("the remote store could not be used")

// JobLogEnv names the environment variable that tells a job on a remote
// store where its standard output goes on its node (sbatch --output, "%j"
// standing for the job id): the job uploads that file to the remote.
const JobLogEnv = "HYLAFLOW_JOB_LOG"

// RemoteJobOptions configure RunRemoteJob.
type RemoteJobOptions struct {
	// ScratchDir is where the job's scratch cache is made (and removed
	// after): a node-local directory ("" = os.TempDir(), i.e. $TMPDIR,
	// which Slurm may point at a per-job directory).
	ScratchDir string
	// LogFile is the job's standard output file on its node ("%j" = the
	// job id; "" = none): uploaded to the remote before the done-record.
	LogFile string
	// Remote are the remote's retry options.
	Remote remote.Options
	// Producer is recorded in the records the job pushes.
	Producer remote.Producer
	// Warn receives the problems the job worked around (nil: discarded).
	Warn func(msg string)
	// Hooks receive the stage's progress and log lines.
	Hooks runner.Hooks
}

// RunRemoteJob is the compute-node side of the Slurm executor on a remote
// store (`hylaflow exec-stage --store URL KEY`): it reads the task spec of
// key from the remote, makes a scratch cache in a fresh node-local
// directory, fetches the task's inputs into it (each payload verified
// against its digest), runs the stage with the local executor, pushes the
// outputs and the key's record (write-once: a partial upload is never
// visible), uploads its log and writes the done-record; the scratch
// directory is removed before it returns. The job never reads the
// driver's cache: the remote is all the two share.
//
// An input that cannot be fetched soundly (damaged or missing on the
// remote) gives a failed done-record listing it in Restage — the damaged
// payload is removed, and the driver uploads it again — never a run on
// wrong bytes. A remote that cannot be used at all returns an error
// wrapping ErrRemoteUnusable, with no done-record. A failing stage gives a
// done-record with status "failed" and a non-nil error; a canceled job
// writes none and returns ctx's error.
func RunRemoteJob(ctx context.Context, rawURL string, reg *registry.Registry, key, jobID string, opts RemoteJobOptions) (*Done, error) {
	if err := slurmCheckHex("key", key); err != nil {
		return nil, err
	}
	r, err := remote.Open(ctx, rawURL, opts.Remote)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rs := &RemoteStore{Remote: r}
	spec, err := rs.ReadTask(ctx, key)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if remoteFailed(err) {
			return nil, fmt.Errorf("%w: %w", ErrRemoteUnusable, err)
		}
		return nil, err
	}
	spec.Workers = max(1, spec.Resources.CPUs)
	if n, err := strconv.Atoi(os.Getenv("SLURM_CPUS_PER_TASK")); err == nil && n > 0 {
		spec.Workers = n
	}
	host, _ := os.Hostname()
	if opts.Producer.Host == "" {
		opts.Producer.Host = host
	}
	done := &Done{Key: key, Address: spec.Record.Address, Host: host, JobID: jobID, PID: os.Getpid(), Start: time.Now()}

	scratch, err := os.MkdirTemp(opts.ScratchDir, "hylaflow-job-"+key[:12]+"-")
	if err != nil {
		return nil, fmt.Errorf("make the job's scratch directory: %w", err)
	}
	c, err := cache.Open(filepath.Join(scratch, "cache"))
	if err != nil {
		os.RemoveAll(scratch)
		return nil, fmt.Errorf("open the job's scratch cache: %w", err)
	}
	// The scratch cache goes before the done-record is written: once the
	// driver sees the record, the job has left nothing on its node.
	cleaned := false
	cleanup := func() {
		if !cleaned {
			cleaned = true
			c.Close()
			os.RemoveAll(scratch)
		}
	}
	defer cleanup()
	var warnMu sync.Mutex
	var warnings []string
	warn := func(msg string) {
		warnMu.Lock()
		warnings = append(warnings, msg)
		warnMu.Unlock()
		if opts.Warn != nil {
			opts.Warn(msg)
		}
	}
	// Fetch only: the job pushes its outputs itself, to see the errors.
	// Push on makes a fetch remove a payload whose bytes are proved wrong.
	store := remote.NewStore(c, r, remote.StoreOptions{Fetch: true, Push: true, Producer: opts.Producer, Warn: warn, Parallel: 4})

	runErr := fetchInputs(ctx, store, spec, done, &warnMu, &warnings)
	var res *runner.Result
	if runErr == nil {
		res, runErr = runner.ExecSpec(ctx, jobStore{store}, reg, spec, opts.Hooks)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if runErr == nil {
		runErr = pushOutputs(ctx, r, store, spec, res, done, opts.Producer)
	}
	done.End = time.Now()
	if runErr != nil {
		done.Status, done.Error, done.Outputs = DoneFailed, runErr.Error(), nil
	}
	if store.Down() != nil && done.Status != DoneOK {
		// The remote went away: no done-record can reach the driver.
		return nil, fmt.Errorf("%w: %v", ErrRemoteUnusable, runErr)
	}
	cleanup()
	if opts.LogFile != "" {
		logFile := strings.ReplaceAll(opts.LogFile, "%j", jobID)
		if uploadLog(ctx, r, key, jobID, logFile, warn) {
			// The remote has the log now; the node's copy would only pile up.
			os.Remove(logFile)
		}
	}
	if err := rs.WriteDone(ctx, done); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return done, fmt.Errorf("%w: write the done-record of %s: %w", ErrRemoteUnusable, key, err)
	}
	return done, runErr
}

// fetchInputs fetches the keys of the task's inputs into the scratch
// cache and checks that every input's payload arrived. An input missing
// afterwards fails the job: done.Restage lists the keys, the error says
// what the fetch found (warnings).
func fetchInputs(ctx context.Context, store *remote.Store, spec *runner.TaskSpec, done *Done, mu *sync.Mutex, warnings *[]string) error {
	var keys []string
	seen := map[string]bool{}
	for _, ins := range spec.Inputs {
		for _, in := range ins {
			if !seen[in.Ref.Key] {
				seen[in.Ref.Key] = true
				keys = append(keys, in.Ref.Key)
			}
		}
	}
	sort.Strings(keys)
	store.Prefetch(ctx, keys)
	if err := ctx.Err(); err != nil {
		return err
	}
	var missing []string
	restage := map[string]bool{}
	slots := make([]string, 0, len(spec.Inputs))
	for slot := range spec.Inputs {
		slots = append(slots, slot)
	}
	sort.Strings(slots)
	for _, slot := range slots {
		for _, in := range spec.Inputs[slot] {
			if store.HasPayload(in.Ref.Digest, in.Ref.Size) {
				continue
			}
			missing = append(missing, fmt.Sprintf("%s (%s/%s, sha256 %.12s…)", in.Label, in.Ref.Key, in.Ref.Name, in.Ref.Digest))
			restage[in.Ref.Key] = true
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := store.Down(); err != nil {
		return fmt.Errorf("fetch the inputs from remote %s: %w", store.Remote().URL(), err)
	}
	for k := range restage {
		done.Restage = append(done.Restage, k)
	}
	sort.Strings(done.Restage)
	mu.Lock()
	why := strings.Join(*warnings, "; ")
	mu.Unlock()
	if why == "" {
		why = "the remote has no record of them with these digests"
	}
	return fmt.Errorf("inputs not fetched soundly from remote %s: %s: %s", store.Remote().URL(), strings.Join(missing, ", "), why)
}

// pushOutputs pushes a computed key's outputs and record, and names the
// outputs the remote has for the key in done.
func pushOutputs(ctx context.Context, r *remote.Remote, store *remote.Store, spec *runner.TaskSpec, res *runner.Result, done *Done, producer remote.Producer) error {
	done.Status, done.Outputs, done.Metrics, done.Duration = DoneOK, res.Outputs, res.Metrics, res.Duration
	if res.Cached {
		done.Duration = 0 // fetched from the remote: another machine computed it
		return nil
	}
	producer.Time = time.Now().UTC()
	rec := remote.NewRecord(&spec.Record, res.Outputs, producer)
	_, err := r.Put(ctx, rec, func(o remote.Output) (io.ReadCloser, error) {
		return store.OpenPayload(cache.OutputRef{Key: spec.Record.Key, Name: o.Name, Digest: o.Digest, Size: o.Size})
	})
	if errors.Is(err, remote.ErrDivergent) {
		old, ok, gerr := r.Get(ctx, spec.Record.Key)
		if gerr != nil || !ok {
			return fmt.Errorf("push the outputs: %w", err)
		}
		done.Outputs, done.Warning = old.Refs(), err.Error()
		return nil
	}
	if err != nil {
		return fmt.Errorf("push the outputs: %w", err)
	}
	return nil
}

// uploadLog copies the end of the job's log file to the remote and reports
// whether it got there (a failure is passed to warn).
func uploadLog(ctx context.Context, r *remote.Remote, key, jobID, path string, warn func(string)) bool {
	f, err := os.Open(path)
	if err != nil {
		warn(fmt.Sprintf("upload the job's log: %v", err))
		return false
	}
	defer f.Close()
	const maxLog = 8 << 20
	if st, err := f.Stat(); err == nil && st.Size() > maxLog {
		f.Seek(st.Size()-maxLog, io.SeekStart)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxLog))
	if err == nil {
		err = r.WriteFile(ctx, remoteLogName(key, jobID), "text/plain; charset=utf-8", b)
	}
	if err != nil {
		warn(fmt.Sprintf("upload the job's log %s: %v", path, err))
		return false
	}
	return true
}

// remoteFailed reports whether err is the remote failing (as opposed to a
// missing or malformed record).
func remoteFailed(err error) bool {
	return !errors.Is(err, errNoTask) && !errors.Is(err, cache.ErrCorrupt)
}

// jobStore is the runner.Store a job on a remote store runs the stage on:
// its scratch cache, with the remote behind Lookup (a key another machine
// pushed meanwhile is fetched, not computed). Store stores in the scratch
// cache only: the job pushes afterwards, to see the errors. The driver
// holds the key's claim, so Claim does not lock.
type jobStore struct {
	s *remote.Store
}

var _ runner.Store = jobStore{}

func (j jobStore) Lookup(key string) ([]cache.OutputRef, bool, error) { return j.s.Lookup(key) }

func (j jobStore) LastRecord(string) (*cache.KeyRecord, bool, error) { return nil, false, nil }

func (j jobStore) Load(ref cache.OutputRef) (artifact.Artifact, error) { return j.s.Cache.Load(ref) }

func (j jobStore) Store(rec *cache.KeyRecord, outs map[string]artifact.Artifact) ([]cache.OutputRef, error) {
	return j.s.Cache.Store(rec, outs)
}

func (j jobStore) Touch(string) error { return nil }

func (j jobStore) Claim(ctx context.Context, key string) (func(), error) {
	return func() {}, ctx.Err()
}
