// Package cache is hylaflow's artifact cache: an SQLite index (WAL mode) of
// cache keys, artifacts and run history, plus content-addressed payload files
// under objects/ab/abcdef… that are written atomically and verified on read.
//
// Several processes may share one cache directory at once. A key being
// computed is claimed with a lease so a second process waits for it (or takes
// over a dead claim) instead of computing it twice.
package cache

import (
	"context"
	"errors"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
)

// ErrCorrupt marks a payload whose digest does not match the index. The
// entry is dropped from the index, so the stage is recomputed.
var ErrCorrupt = errors.New("cache: corrupt payload")

// errTODO is returned by the parts of the API that are not written yet.
var errTODO = errors.New("cache: not implemented yet")

// KeyRecord holds the components of a cache key, stored beside it so that
// `hylaflow plan` can say exactly what changed since the last run of a stage.
type KeyRecord struct {
	Key         string              // hex sha256, filled by ComputeKey
	Address     string              // instance address, e.g. `train.cora["seed-3"]`
	StageType   string              // registered type name
	Version     string              // stage type version
	Params      map[string]string   // parameter name → canonical JSON of its value
	Inputs      map[string][]string // input slot → input refs "KEY/OUTPUT", in order
	Fingerprint string              // the stage type's Fingerprint of outside data, or ""
}

// OutputRef names one stored artifact of a key.
type OutputRef struct {
	Key    string
	Name   string // output name
	Kind   artifact.Kind
	Digest string // hex sha256 of the payload
	Size   int64
}

// StageRecord is one stage instance's entry in a run's history.
type StageRecord struct {
	Address  string
	Key      string
	Status   string // "cached", "ran", "failed", "skipped", "canceled"
	Reason   string // why it ran ("never run", "param lr changed 0.01 → 0.05", …)
	Start    time.Time
	Duration time.Duration
	Error    string
	Metrics  map[string]float64 // scalar metrics the stage reported, if any
}

// RunSummary is a row of `hylaflow runs list`.
type RunSummary struct {
	ID                        int64
	Pipeline                  string
	Args                      []string
	Start                     time.Time
	Duration                  time.Duration
	Status                    string // "running", "ok", "failed", "canceled"
	Stages, Cached, Ran, Fail int
}

// RunDetail is `hylaflow runs show ID`.
type RunDetail struct {
	RunSummary
	Stages []StageRecord
}

// ArtifactInfo is a row of `hylaflow cache ls`.
type ArtifactInfo struct {
	OutputRef
	Address  string
	Created  time.Time
	LastUsed time.Time
}

// Stats summarises the cache for `hylaflow cache stats`.
type Stats struct {
	Keys, Artifacts, Objects, Runs int
	Bytes                          int64
}

// VerifyReport lists the problems `hylaflow cache verify` found.
type VerifyReport struct {
	Checked  int
	Problems []string // one line each: what is wrong with which object/key
}

// GCOptions selects what `hylaflow cache gc` keeps: everything referenced by
// the KeepRuns most recent runs, and everything used more recently than
// OlderThan (0 = no age rule).
type GCOptions struct {
	KeepRuns  int
	OlderThan time.Duration
	DryRun    bool
}

// GCReport says what gc removed (or would remove, for a dry run).
type GCReport struct {
	Keys, Objects int
	Bytes         int64
}

// Cache is an open cache directory.
type Cache struct {
	dir string
}

// Open opens (creating if needed) the cache in dir.
func Open(dir string) (*Cache, error) { return nil, errTODO }

// Close closes the index.
func (c *Cache) Close() error { return errTODO }

// Dir returns the cache directory.
func (c *Cache) Dir() string { return c.dir }

// Lookup returns the outputs stored for key. ok is false when the key is
// unknown or one of its payload files is missing. It never writes.
func (c *Cache) Lookup(key string) (refs []OutputRef, ok bool, err error) { return nil, false, errTODO }

// Load reads and decodes one artifact, verifying its digest. On a mismatch
// it drops the key from the index and returns an error wrapping ErrCorrupt.
func (c *Cache) Load(ref OutputRef) (*artifact.Artifact, error) { return nil, errTODO }

// Store writes the outputs of rec.Key (payload files first: temp file,
// fsync, rename; then one index transaction) and returns their refs.
func (c *Cache) Store(rec *KeyRecord, outputs map[string]*artifact.Artifact) ([]OutputRef, error) {
	return nil, errTODO
}

// Touch marks the key as used now (for gc's age rule).
func (c *Cache) Touch(key string) error { return errTODO }

// LastRecord returns the key record of the most recent run of address
// (stored or used), for plan reasons. ok is false if it never ran.
func (c *Cache) LastRecord(address string) (rec *KeyRecord, ok bool, err error) {
	return nil, false, errTODO
}

// Claim takes the lease on key for this process, waiting while another live
// holder has it. Expired leases and leases of dead processes are taken over.
// The lease is renewed in the background until release is called.
func (c *Cache) Claim(ctx context.Context, key string) (release func(), err error) {
	return nil, errTODO
}

// BeginRun records the start of a run and returns its id.
func (c *Cache) BeginRun(pipeline string, args []string) (int64, error) { return 0, errTODO }

// RecordStage appends a stage's outcome to a run.
func (c *Cache) RecordStage(runID int64, s StageRecord) error { return errTODO }

// FinishRun sets a run's final status and duration.
func (c *Cache) FinishRun(runID int64, status string) error { return errTODO }

// Runs lists the most recent runs, newest first (limit ≤ 0: all).
func (c *Cache) Runs(limit int) ([]RunSummary, error) { return nil, errTODO }

// Run returns one run with its stages.
func (c *Cache) Run(id int64) (*RunDetail, error) { return nil, errTODO }

// List returns every stored artifact.
func (c *Cache) List() ([]ArtifactInfo, error) { return nil, errTODO }

// Stats summarises the cache.
func (c *Cache) Stats() (Stats, error) { return Stats{}, errTODO }

// Verify re-hashes every payload and checks the index against the objects.
func (c *Cache) Verify() (VerifyReport, error) { return VerifyReport{}, errTODO }

// GC removes keys and objects not kept by opts; never what the kept runs reference.
func (c *Cache) GC(opts GCOptions) (GCReport, error) { return GCReport{}, errTODO }

// Clear removes every key, object and run.
func (c *Cache) Clear() error { return errTODO }

// Export writes the payload of KEY's output (name "" = the only/first output) to file.
func (c *Cache) Export(key, output, file string) error { return errTODO }
