// Package cache is hylaflow's artifact cache: an SQLite index (WAL mode) of
// cache keys, artifacts and run history, plus content-addressed payload files
// under objects/ab/abcdef… that are written atomically and verified on read.
//
// Layout of a cache directory:
//
//	index.db        SQLite index: keys (with their components), artifacts,
//	                runs, run_stages, leases; schema version in user_version
//	objects/ab/…    payloads, named by the hex sha256 of their bytes
//	tmp/            payloads being written (PID-START-RANDOM.tmp)
//
// Store encodes each output into a temp file, fsyncs it, renames it to its
// content address and fsyncs the directory, and only then indexes the key in
// one transaction, so a crash leaves a key complete or absent (at worst an
// orphan payload, which gc removes). Load re-hashes the payload: a mismatch
// drops the key's outputs from the index and fails with ErrCorrupt, so the
// stage is recomputed rather than a wrong result used.
//
// Several processes may share one cache directory at once. Write
// transactions are immediate and wait (busy timeout) for each other. A key
// being computed is claimed with a lease (holder host, pid and process start
// time, renewed in the background), so a second process waits for it, or
// takes over the claim of a dead process or an expired lease, instead of
// computing it twice. Claims are also exclusive between the goroutines and
// Caches of one process.
//
// Last-used times (Touch) and stage records (RecordStage) are buffered and
// written in one transaction at FinishRun, Close, or when a second old or
// 512 entries long, so a fully cached run costs a few statements.
package cache

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
)

// ErrCorrupt marks a payload whose digest does not match the index. The
// entry is dropped from the index, so the stage is recomputed.
var ErrCorrupt = errors.New("cache: corrupt payload")

// ErrNotFound marks a key, key prefix, output or payload that is not in the cache.
var ErrNotFound = errors.New("cache: not found")

// ErrBadKey marks a key prefix that names no single key by its form: empty,
// not hexadecimal, or shared by several keys.
var ErrBadKey = errors.New("cache: malformed or ambiguous key")

// ErrReadOnly is returned by the writing methods of a cache opened with OpenReadOnly.
var ErrReadOnly = errors.New("cache: opened read-only")

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

// ReasonCachedElsewhere is the reason a plan gives a cached stage whose
// key no run of the same pipeline planned: another pipeline stored it
// (a remote store that fetched the key names the remote instead).
const ReasonCachedElsewhere = "cached from another pipeline"

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
	// Provenance is the document SetRunProvenance stored with the run;
	// nil when none was (runs recorded before hylaflow kept provenance).
	Provenance json.RawMessage
}

// Statuses returns the status of each of the run's stage instances (ran,
// cached, failed, skipped, canceled) by address.
func (d *RunDetail) Statuses() map[string]string {
	status := make(map[string]string, len(d.Stages))
	for _, s := range d.Stages {
		status[s.Address] = s.Status
	}
	return status
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
	// Orphans counts payload files no key refers to (left by a process
	// killed between writing a payload and indexing it). They are harmless
	// and not problems; gc removes them.
	Orphans int
	// Repaired says what Repair did, one line each (empty for Verify).
	Repaired []string
	// Unrepaired counts the problems Repair cannot fix: a damaged index
	// (recovered by Clear) and payload files that cannot be read.
	Unrepaired int
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
	Bytes         int64 // of the payload files and temp files removed
	// Removed are the keys removed, by address and key, with the outputs
	// they had (payloads other keys share stay, so their sizes may add up
	// to more than Bytes).
	Removed []GCKey
}

// GCKey is one key gc removed, or would remove.
type GCKey struct {
	Key, Address string
	Outputs      []OutputRef
}
