// Package executortest holds the conformance suite every runner.Executor
// must pass (Run), an in-memory cache (MemStore) for runner tests, a fake
// out-of-process executor (SpecExecutor) that ships tasks as TaskSpec JSON
// the way a cluster executor does, and the small stage types the suite runs
// (Types, over this package's Vector artifacts). Like the runner, it
// depends on no stage implementation and no numerical code.
package executortest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
)

// MemStore is an in-memory runner.RunStore and runner.RecordStore with the
// semantics of cache.Cache (claims exclude each other, Store replaces a
// key's outputs, LastRecord follows stores and uses) plus fault injection.
// It is safe for concurrent use.
type MemStore struct {
	mu       sync.Mutex
	outputs  map[string][]cache.OutputRef
	objects  map[string]artifact.Artifact // digest → artifact
	records  map[string]*cache.KeyRecord  // key → record
	last     map[string]string            // address → key of its latest store/use
	claims   map[string]chan struct{}     // key → closed on release
	corrupt  map[string]bool              // digests that fail to load
	runs     []*cache.RunDetail
	stores   map[string]int // key → times stored
	loads    int
	maxClaim int // most claims held at once
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore {
	return &MemStore{
		outputs: map[string][]cache.OutputRef{}, objects: map[string]artifact.Artifact{},
		records: map[string]*cache.KeyRecord{}, last: map[string]string{},
		claims: map[string]chan struct{}{}, corrupt: map[string]bool{}, stores: map[string]int{},
	}
}

// Digest returns the sha256 (hex) and size of a's encoding, as the cache
// computes them.
func Digest(a artifact.Artifact) (digest string, size int64, err error) {
	h := sha256.New()
	w := &countWriter{w: h}
	if err := artifact.Encode(w, a); err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), w.n, nil
}

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Lookup implements runner.PlanStore.
func (s *MemStore) Lookup(key string) ([]cache.OutputRef, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	refs, ok := s.outputs[key]
	return append([]cache.OutputRef(nil), refs...), ok, nil
}

// LastRecord implements runner.PlanStore.
func (s *MemStore) LastRecord(address string) (*cache.KeyRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key, ok := s.last[address]
	if !ok {
		return nil, false, nil
	}
	rec := *s.records[key]
	return &rec, true, nil
}

// Record implements runner.RecordStore.
func (s *MemStore) Record(key string) (*cache.KeyRecord, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, ok := s.records[key]
	if !ok {
		return nil, false, nil
	}
	c := *rec
	return &c, true, nil
}

// Load implements runner.Store. A digest marked with Corrupt fails with an
// error wrapping cache.ErrCorrupt and drops the key, like the real cache.
func (s *MemStore) Load(ref cache.OutputRef) (artifact.Artifact, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loads++
	if s.corrupt[ref.Digest] {
		for key, refs := range s.outputs {
			for _, r := range refs {
				if r.Digest == ref.Digest {
					delete(s.outputs, key)
				}
			}
		}
		return nil, fmt.Errorf("load %s/%s: %w", ref.Key, ref.Name, cache.ErrCorrupt)
	}
	a, ok := s.objects[ref.Digest]
	if !ok {
		return nil, fmt.Errorf("load %s/%s: no object %s", ref.Key, ref.Name, ref.Digest)
	}
	return a, nil
}

// Store implements runner.Store.
func (s *MemStore) Store(rec *cache.KeyRecord, outs map[string]artifact.Artifact) ([]cache.OutputRef, error) {
	if rec.Key == "" {
		return nil, fmt.Errorf("store: record of %s has no key", rec.Address)
	}
	names := make([]string, 0, len(outs))
	for n := range outs {
		names = append(names, n)
	}
	sort.Strings(names)
	var refs []cache.OutputRef
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		if outs[n] == nil {
			return nil, fmt.Errorf("store %s (%s): output %q is nil", rec.Key, rec.Address, n)
		}
		d, size, err := Digest(outs[n])
		if err != nil {
			return nil, fmt.Errorf("store %s (%s): output %q: %w", rec.Key, rec.Address, n, err)
		}
		s.objects[d] = outs[n]
		delete(s.corrupt, d)
		refs = append(refs, cache.OutputRef{Key: rec.Key, Name: n, Kind: outs[n].Kind(), Digest: d, Size: size})
	}
	c := *rec
	s.records[rec.Key] = &c
	s.outputs[rec.Key] = refs
	s.last[rec.Address] = rec.Key
	s.stores[rec.Key]++
	return append([]cache.OutputRef(nil), refs...), nil
}

// Touch implements runner.Store.
func (s *MemStore) Touch(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec, ok := s.records[key]; ok {
		s.last[rec.Address] = key
	}
	return nil
}

// Claim implements runner.Store: one holder per key, others wait.
func (s *MemStore) Claim(ctx context.Context, key string) (func(), error) {
	for {
		s.mu.Lock()
		ch, held := s.claims[key]
		if !held {
			mine := make(chan struct{})
			s.claims[key] = mine
			s.maxClaim = max(s.maxClaim, len(s.claims))
			s.mu.Unlock()
			var once sync.Once
			return func() {
				once.Do(func() {
					s.mu.Lock()
					delete(s.claims, key)
					s.mu.Unlock()
					close(mine)
				})
			}, nil
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

// Claimed reports whether key is claimed now.
func (s *MemStore) Claimed(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.claims[key]
	return ok
}

// Corrupt makes every later Load of key's outputs fail with cache.ErrCorrupt.
func (s *MemStore) Corrupt(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.outputs[key] {
		s.corrupt[r.Digest] = true
	}
}

// Forget removes key's outputs (its record stays, as in the real cache).
func (s *MemStore) Forget(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.outputs, key)
}

// Stores returns how often key was stored.
func (s *MemStore) Stores(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stores[key]
}

// Loads returns how many artifacts were loaded.
func (s *MemStore) Loads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads
}

// Keys returns the stored keys, sorted.
func (s *MemStore) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.outputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// BeginRun implements runner.RunStore.
func (s *MemStore) BeginRun(pipeline string, args []string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := int64(len(s.runs) + 1)
	s.runs = append(s.runs, &cache.RunDetail{RunSummary: cache.RunSummary{
		ID: id, Pipeline: pipeline, Args: args, Start: time.Now(), Status: "running"}})
	return id, nil
}

// RecordStage implements runner.RunStore.
func (s *MemStore) RecordStage(runID int64, st cache.StageRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if runID < 1 || int(runID) > len(s.runs) {
		return fmt.Errorf("no run %d", runID)
	}
	r := s.runs[runID-1]
	r.Stages = append(r.Stages, st)
	return nil
}

// FinishRun implements runner.RunStore.
func (s *MemStore) FinishRun(runID int64, status string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if runID < 1 || int(runID) > len(s.runs) {
		return fmt.Errorf("no run %d", runID)
	}
	r := s.runs[runID-1]
	r.Status = status
	r.Duration = time.Since(r.Start)
	return nil
}

// Run returns a recorded run.
func (s *MemStore) Run(id int64) (*cache.RunDetail, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id < 1 || int(id) > len(s.runs) {
		return nil, false
	}
	c := *s.runs[id-1]
	c.Stages = append([]cache.StageRecord(nil), c.Stages...)
	return &c, true
}
