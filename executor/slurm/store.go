package slurm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
)

// Store is the shared store directory of the Slurm executor: a plain
// directory on a file system that the driver and every compute node see
// (NFS, Lustre, …). It holds no database (SQLite's WAL is not safe over
// network file systems); every file in it is written to a temporary name
// in the same directory, fsynced and renamed, so a reader sees a file
// whole or not at all:
//
//	objects/ab/abcdef…       artifact payloads (artifact.Encode), named by sha256
//	tasks/KEY.json           the TaskSpec a job runs (input digests refer to objects/)
//	done/KEY.json            the job's done-record (Done): status, outputs, timings, host, job id
//	jobs/KEY.json            the driver's submission record (Submission)
//	logs/KEY.JOBID.out       the job's standard output and error
//
// The driver's cache (with its SQLite index) stays on the driver's local
// disk: the driver stages inputs into objects/, and ingests done-records.
type Store struct {
	Dir string
}

// Done is a job's done-record.
type Done struct {
	Key      string             `json:"key"`
	Address  string             `json:"address"`
	Status   string             `json:"status"` // "ok" or "failed"
	Error    string             `json:"error,omitempty"`
	Outputs  []cache.OutputRef  `json:"outputs,omitempty"` // digests of objects/ in the store
	Metrics  map[string]float64 `json:"metrics,omitempty"`
	Start    time.Time          `json:"start"`
	End      time.Time          `json:"end"`
	Duration time.Duration      `json:"duration_ns"` // the stage's own run time
	Host     string             `json:"host"`
	JobID    string             `json:"job_id,omitempty"`
	PID      int                `json:"pid"`
	// Restage lists, for a job on a remote store that failed because it
	// could not fetch inputs soundly (a payload damaged or missing there),
	// the input keys concerned: the driver uploads them again and
	// resubmits the job once.
	Restage []string `json:"restage,omitempty"`
	// Warning is a problem the job worked around (its push found the key
	// on the remote with other digests: the remote's record stays, and
	// Outputs name its outputs).
	Warning string `json:"warning,omitempty"`
}

// Submission is the driver's record of the job it submitted for a key.
type Submission struct {
	Key       string    `json:"key"`
	Address   string    `json:"address"`
	JobID     string    `json:"job_id"`
	Submitted time.Time `json:"submitted"`
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
}

// Done-record statuses.
const (
	DoneOK     = "ok"
	DoneFailed = "failed"
)

// slurmMaxRecord bounds the size of the JSON records read from the store.
const slurmMaxRecord = 64 << 20

var slurmHexRe = regexp.MustCompile(`^[0-9a-f]{64}$`)

func slurmCheckHex(what, s string) error {
	if !slurmHexRe.MatchString(s) {
		return fmt.Errorf("%s %q: expected 64 lowercase hex digits", what, s)
	}
	return nil
}

// Init creates the store's directories.
func (s *Store) Init() error {
	for _, d := range []string{"objects", "tasks", "done", "jobs", "logs"} {
		if err := os.MkdirAll(filepath.Join(s.Dir, d), 0o755); err != nil {
			return fmt.Errorf("slurm store: %w", err)
		}
	}
	return nil
}

// ObjectPath returns the path of the payload with digest.
func (s *Store) ObjectPath(digest string) string {
	return filepath.Join(s.Dir, "objects", digest[:2], digest)
}

// TaskPath, DonePath and JobPath return the paths of a key's records.
func (s *Store) TaskPath(key string) string { return filepath.Join(s.Dir, "tasks", key+".json") }

// DonePath returns the path of key's done-record.
func (s *Store) DonePath(key string) string { return filepath.Join(s.Dir, "done", key+".json") }

// JobPath returns the path of key's submission record.
func (s *Store) JobPath(key string) string { return filepath.Join(s.Dir, "jobs", key+".json") }

// LogPattern returns the sbatch --output pattern of key's jobs.
func (s *Store) LogPattern(key string) string {
	return filepath.Join(s.Dir, "logs", key+".%j.out")
}

// LogPath returns the log file of one job of key.
func (s *Store) LogPath(key, jobID string) string {
	return filepath.Join(s.Dir, "logs", key+"."+jobID+".out")
}

// slurmWriteAtomic writes data to path through a temporary file in the same
// directory: write, fsync, rename, fsync the directory.
func slurmWriteAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func slurmWriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	return slurmWriteAtomic(path, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// slurmReadJSON reads a bounded JSON file into v; ok is false if the file
// does not exist.
func slurmReadJSON(path string, v any) (ok bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, slurmMaxRecord+1))
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > slurmMaxRecord {
		return false, fmt.Errorf("%s: larger than %d bytes", path, slurmMaxRecord)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}

// PutArtifact encodes a into objects/ (unless an object with its digest is
// there already) and returns its digest and size.
func (s *Store) PutArtifact(a artifact.Artifact) (digest string, size int64, err error) {
	tmpDir := filepath.Join(s.Dir, "objects")
	if err := os.MkdirAll(tmpDir, 0o755); err != nil {
		return "", 0, err
	}
	f, err := os.CreateTemp(tmpDir, ".tmp-object-*")
	if err != nil {
		return "", 0, err
	}
	tmp := f.Name()
	defer func() {
		f.Close()
		os.Remove(tmp) // a no-op after the rename
	}()
	h := sha256.New()
	cw := &slurmCountWriter{w: io.MultiWriter(f, h)}
	if err := artifact.Encode(cw, a); err != nil {
		return "", 0, fmt.Errorf("encode: %w", err)
	}
	if err := f.Sync(); err != nil {
		return "", 0, err
	}
	if err := f.Close(); err != nil {
		return "", 0, err
	}
	digest = hex.EncodeToString(h.Sum(nil))
	path := s.ObjectPath(digest)
	if st, err := os.Stat(path); err == nil && st.Size() == cw.n {
		return digest, cw.n, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", 0, err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return digest, cw.n, nil
}

type slurmCountWriter struct {
	w io.Writer
	n int64
}

func (c *slurmCountWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// HasObject reports whether the payload with digest is in the store.
func (s *Store) HasObject(digest string) bool {
	if slurmCheckHex("digest", digest) != nil {
		return false
	}
	_, err := os.Stat(s.ObjectPath(digest))
	return err == nil
}

// LoadObject reads, verifies and decodes the payload with digest. A payload
// whose sha256 differs from its name returns an error wrapping
// cache.ErrCorrupt.
func (s *Store) LoadObject(digest, name string) (artifact.Artifact, error) {
	if err := slurmCheckHex("digest", digest); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	path := s.ObjectPath(digest)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return nil, fmt.Errorf("load %s: %s: %w", name, path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != digest {
		return nil, fmt.Errorf("load %s: %s has sha256 %s: %w", name, path, got, cache.ErrCorrupt)
	}
	a, err := artifact.Decode(f, n, name)
	if err != nil {
		return nil, fmt.Errorf("load %s: %s: %w", name, path, err)
	}
	return a, nil
}

// ReadDone returns key's done-record; ok is false if there is none.
func (s *Store) ReadDone(key string) (*Done, bool, error) {
	var d Done
	ok, err := slurmReadJSON(s.DonePath(key), &d)
	if err != nil || !ok {
		return nil, false, err
	}
	if err := d.check(key); err != nil {
		return nil, false, fmt.Errorf("%s: %w", s.DonePath(key), err)
	}
	return &d, true, nil
}

// check validates a done-record read for key.
func (d *Done) check(key string) error {
	if d.Key != key {
		return fmt.Errorf("record of key %q", d.Key)
	}
	if d.Status != DoneOK && d.Status != DoneFailed {
		return fmt.Errorf("status %q, expected %q or %q", d.Status, DoneOK, DoneFailed)
	}
	for i, o := range d.Outputs {
		if err := slurmCheckHex(fmt.Sprintf("output %d digest", i), o.Digest); err != nil {
			return err
		}
	}
	return nil
}

// ReadSubmission returns key's submission record; ok is false if there is none.
func (s *Store) ReadSubmission(key string) (*Submission, bool, error) {
	var sub Submission
	ok, err := slurmReadJSON(s.JobPath(key), &sub)
	if err != nil || !ok {
		return nil, false, err
	}
	if sub.Key != key || sub.JobID == "" {
		return nil, false, fmt.Errorf("%s: not a submission record of key %s", s.JobPath(key), key)
	}
	return &sub, true, nil
}

// ReadTask returns the task spec stored for key.
func (s *Store) ReadTask(key string) (*runner.TaskSpec, error) {
	var spec runner.TaskSpec
	ok, err := slurmReadJSON(s.TaskPath(key), &spec)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no task spec for key %s in the store", s.TaskPath(key), key)
	}
	if spec.Record.Key != key {
		return nil, fmt.Errorf("%s: spec of key %q, expected %s", s.TaskPath(key), spec.Record.Key, key)
	}
	return &spec, nil
}

// slurmFileStore is the Store a job uses on a compute node: inputs come
// from the store's objects/, outputs go there; a key counts as stored when
// its done-record says ok and its objects exist. Claim does not lock: the
// driver holds the key's claim in its own cache and submits one job per key.
type slurmFileStore struct {
	s *Store
}

var _ runner.Store = slurmFileStore{}

func (f slurmFileStore) Lookup(key string) ([]cache.OutputRef, bool, error) {
	d, ok, err := f.s.ReadDone(key)
	if err != nil || !ok || d.Status != DoneOK {
		return nil, false, err
	}
	for _, o := range d.Outputs {
		if !f.s.HasObject(o.Digest) {
			return nil, false, nil
		}
	}
	return d.Outputs, true, nil
}

func (f slurmFileStore) LastRecord(string) (*cache.KeyRecord, bool, error) { return nil, false, nil }

func (f slurmFileStore) Load(ref cache.OutputRef) (artifact.Artifact, error) {
	return f.s.LoadObject(ref.Digest, ref.ID().String())
}

func (f slurmFileStore) Store(rec *cache.KeyRecord, outs map[string]artifact.Artifact) ([]cache.OutputRef, error) {
	names := make([]string, 0, len(outs))
	for n := range outs {
		names = append(names, n)
	}
	sort.Strings(names)
	refs := make([]cache.OutputRef, 0, len(names))
	for _, n := range names {
		d, size, err := f.s.PutArtifact(outs[n])
		if err != nil {
			return nil, fmt.Errorf("output %q: %w", n, err)
		}
		refs = append(refs, cache.OutputRef{Key: rec.Key, Name: n, Kind: outs[n].Kind(), Digest: d, Size: size})
	}
	return refs, nil
}

func (f slurmFileStore) Touch(string) error { return nil }

func (f slurmFileStore) Claim(ctx context.Context, key string) (func(), error) {
	return func() {}, ctx.Err()
}
