package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"gocloud.dev/gcerrors"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
)

// OriginPrefix starts the reason recorded for a stage served from a
// payload fetched from a remote: "fetched from REMOTE".
const OriginPrefix = "fetched from "

// Store is a local cache with a remote under it. It is what the runner
// gets instead of the bare cache (it has every method of *cache.Cache):
//
//   - Lookup: a key missing locally is looked up on the remote; if its
//     record is there, its payloads are fetched into the local cache,
//     each verified on arrival, and the key is indexed locally.
//   - Store: after the local cache stored a computed key, the key is
//     pushed (unless pushing is off).
//   - RecordStage: a cached stage whose key was fetched is recorded with
//     the reason "fetched from REMOTE", so the run record says which
//     stages came from the remote.
//   - FinishRun: the keys the run used are pushed as a run manifest, so
//     the remote's gc keeps them.
//
// Remote failures never fail the caller: a transient error is retried
// (Options.Attempts), then the remote is switched off for the rest of the
// process with one warning; a corrupt payload is reported and the key is
// computed instead. A Store is safe for concurrent use.
type Store struct {
	*cache.Cache
	remote *Remote
	cfg    StoreOptions

	mu       sync.Mutex
	down     error // the failure that switched the remote off
	noPush   error // the failure that switched pushing off
	fetched  map[string]bool
	absent   map[string]bool // keys the remote did not have when asked
	runKeys  map[int64]map[string]bool
	warned   map[string]bool
	counters Counters
}

// StoreOptions configure NewStore.
type StoreOptions struct {
	// Push uploads what the local cache stores (and run manifests).
	Push bool
	// Fetch looks keys missing locally up on the remote.
	Fetch bool
	// Producer is recorded in the records pushed.
	Producer Producer
	// Warn receives one line per problem worked around (nil: standard error).
	Warn func(msg string)
	// Parallel is the number of keys fetched at once by Prefetch (≤ 0: 8).
	Parallel int
}

// Counters say what a Store moved.
type Counters struct {
	Fetched      int           // keys fetched
	FetchedBytes int64         // bytes of the payloads fetched (payloads present locally are not counted)
	FetchTime    time.Duration // wall time spent fetching (parallel fetches counted once)
	Pushed       int           // keys whose record this process wrote
	PushedBytes  int64
	Existed      int // keys pushed that the remote had already
	Corrupt      int // remote payloads or records found damaged and ignored
	Divergent    int // keys the remote has with other digests
}

// NewStore layers r under c.
func NewStore(c *cache.Cache, r *Remote, opts StoreOptions) *Store {
	if opts.Warn == nil {
		opts.Warn = func(msg string) { fmt.Fprintln(os.Stderr, "warning: "+msg) }
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 8
	}
	if opts.Producer.Host == "" {
		opts.Producer.Host, _ = os.Hostname()
	}
	return &Store{Cache: c, remote: r, cfg: opts, fetched: map[string]bool{}, absent: map[string]bool{},
		runKeys: map[int64]map[string]bool{}, warned: map[string]bool{}}
}

// Remote returns the store's remote.
func (s *Store) Remote() *Remote { return s.remote }

// Counters returns what the store moved so far.
func (s *Store) Counters() Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counters
}

// Down returns the failure that switched the remote off, or nil.
func (s *Store) Down() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down
}

func (s *Store) warnOnce(id, msg string) {
	s.mu.Lock()
	seen := s.warned[id]
	s.warned[id] = true
	s.mu.Unlock()
	if !seen {
		s.cfg.Warn(msg)
	}
}

// fail switches the remote off after an error that retries did not cure.
func (s *Store) fail(err error) {
	s.mu.Lock()
	first := s.down == nil
	if first {
		s.down = err
	}
	s.mu.Unlock()
	if first {
		s.cfg.Warn(fmt.Sprintf("remote %s is not usable (%v); continuing without it: stages are computed here and not pushed", s.remote.URL(), err))
	}
}

func (s *Store) usable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.down == nil
}

// access reports whether err says the credentials do not allow the operation.
func access(err error) bool {
	c := gcerrors.Code(err)
	return c == gcerrors.PermissionDenied
}

// Lookup implements runner.PlanStore: the local cache, then the remote.
func (s *Store) Lookup(key string) ([]cache.OutputRef, bool, error) {
	refs, ok, err := s.Cache.Lookup(key)
	if err != nil || ok || !s.cfg.Fetch || !s.usable() || s.wasAbsent(key) {
		return refs, ok, err
	}
	start := time.Now()
	if s.fetch(context.Background(), key) {
		s.count(func(c *Counters) { c.FetchTime += time.Since(start) })
		return s.Cache.Lookup(key)
	}
	return nil, false, nil
}

// Prefetch fetches the keys missing locally that the remote has, several
// at once, and returns how many it fetched. Errors are worked around as
// in Lookup.
func (s *Store) Prefetch(ctx context.Context, keys []string) int {
	if !s.cfg.Fetch {
		return 0
	}
	var missing []string
	for _, k := range keys {
		if _, ok, err := s.Cache.Lookup(k); err == nil && !ok {
			missing = append(missing, k)
		}
	}
	start := time.Now()
	defer func() { s.count(func(c *Counters) { c.FetchTime += time.Since(start) }) }()
	var mu sync.Mutex
	n := 0
	s.eachKey(ctx, missing, func(k string) {
		if s.usable() && ctx.Err() == nil && s.fetch(ctx, k) {
			mu.Lock()
			n++
			mu.Unlock()
		}
	})
	return n
}

// fetch copies key from the remote into the local cache; false when the
// remote has no sound copy of it (or is not usable).
func (s *Store) fetch(ctx context.Context, key string) bool {
	rec, ok, err := s.remote.Get(ctx, key)
	switch {
	case errors.Is(err, cache.ErrCorrupt):
		s.count(func(c *Counters) { c.Corrupt++ })
		s.cfg.Warn(fmt.Sprintf("%v; ignored, the stage is computed", err))
		return false
	case err != nil:
		s.fail(err)
		return false
	case !ok:
		// Not asked again by this process (run's plan and executor look
		// every key up after the prefetch did): computing it is right, and
		// its push finds any record another machine wrote meanwhile.
		s.mu.Lock()
		s.absent[key] = true
		s.mu.Unlock()
		return false
	}
	var bytes int64
	err = s.remote.WithRetry(ctx, "fetch "+key, rec.Bytes(), func(ctx context.Context) error {
		outs := make([]cache.IngestOutput, len(rec.Outputs))
		for i, o := range rec.Outputs {
			outs[i] = cache.IngestOutput{
				Ref: cache.OutputRef{Name: o.Name, Kind: artifact.Kind(o.Kind), Digest: o.Digest, Size: o.Size},
				Open: func() (io.ReadCloser, error) {
					bytes += o.Size
					// Ingest hashes what it writes and refuses a key whose
					// bytes do not match, so the payload is hashed once.
					rd, err := s.remote.rawReader(ctx, o)
					if err != nil {
						return nil, &remoteError{err}
					}
					return remoteReader{rd}, nil
				},
			}
		}
		_, err := s.Cache.Ingest(rec.KeyRecord(), outs)
		return err
	})
	var de *cache.DigestError
	if errors.As(err, &de) || gcerrors.Code(err) == gcerrors.NotFound {
		// Reported once: the plan and the executor do not fetch it again.
		s.mu.Lock()
		s.absent[key] = true
		s.mu.Unlock()
	}
	switch {
	case errors.As(err, &de):
		s.count(func(c *Counters) { c.Corrupt++ })
		s.cfg.Warn(fmt.Sprintf("remote %s: payload %s of %s (%s) is damaged: %v; ignored, the stage is computed",
			s.remote.URL(), ObjectKey(de.Want), rec.Address, key, de))
		if s.cfg.Push {
			// Its name proves it wrong: remove it so the push after the
			// recompute uploads sound bytes.
			if derr := s.remote.Delete(ctx, ObjectKey(de.Want)); derr != nil {
				s.cfg.Warn(fmt.Sprintf("remove the damaged %s: %v", ObjectKey(de.Want), derr))
			}
		}
		return false
	case gcerrors.Code(err) == gcerrors.NotFound:
		s.count(func(c *Counters) { c.Corrupt++ })
		s.cfg.Warn(fmt.Sprintf("remote %s: the record of %s (%s) names a payload the remote lacks (%v); ignored, the stage is computed",
			s.remote.URL(), rec.Address, key, err))
		return false
	case errors.Is(err, cache.ErrReadOnly):
		return false
	case err != nil && !errors.As(err, new(*remoteError)):
		// A local problem (disk full, …): the remote is fine.
		s.cfg.Warn(fmt.Sprintf("fetch %s (%s) into the local cache: %v; the stage is computed", rec.Address, key, err))
		return false
	case err != nil:
		s.fail(err)
		return false
	}
	s.mu.Lock()
	s.fetched[key] = true
	s.counters.Fetched++
	s.counters.FetchedBytes += bytes
	s.mu.Unlock()
	return true
}

func (s *Store) wasAbsent(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.absent[key]
}

func (s *Store) count(f func(*Counters)) {
	s.mu.Lock()
	f(&s.counters)
	s.mu.Unlock()
}

// Fetched reports whether key was fetched from the remote by this store.
func (s *Store) Fetched(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetched[key]
}

// Store implements runner.Store: the local cache stores the outputs, then
// the key is pushed (a failed push only warns).
func (s *Store) Store(rec *cache.KeyRecord, outputs map[string]artifact.Artifact) ([]cache.OutputRef, error) {
	refs, err := s.Cache.Store(rec, outputs)
	if err != nil || !s.cfg.Push {
		return refs, err
	}
	s.Push(context.Background(), rec, refs)
	return refs, nil
}

// Push uploads key rec with its local outputs refs; it reports problems
// as warnings and returns whether the remote has the key afterwards.
func (s *Store) Push(ctx context.Context, rec *cache.KeyRecord, refs []cache.OutputRef) bool {
	_, ok := s.push(ctx, rec, refs)
	return ok
}

func (s *Store) push(ctx context.Context, rec *cache.KeyRecord, refs []cache.OutputRef) (PutResult, bool) {
	s.mu.Lock()
	off := s.down != nil || s.noPush != nil
	s.mu.Unlock()
	if off {
		return PutResult{}, false
	}
	r := NewRecord(rec, refs, s.producer())
	res, err := s.remote.Put(ctx, r, func(o Output) (io.ReadCloser, error) {
		return s.Cache.OpenPayload(cache.OutputRef{Key: rec.Key, Name: o.Name, Digest: o.Digest, Size: o.Size})
	})
	switch {
	case errors.Is(err, ErrDivergent):
		s.count(func(c *Counters) { c.Divergent++ })
		s.cfg.Warn(err.Error())
		return res, true
	case errors.Is(err, cache.ErrCorrupt):
		s.cfg.Warn(fmt.Sprintf("push %s (%s): %v; not pushed", rec.Address, rec.Key, err))
		return res, false
	case access(err):
		s.mu.Lock()
		first := s.noPush == nil
		s.noPush = err
		s.mu.Unlock()
		if first {
			s.cfg.Warn(fmt.Sprintf("remote %s refuses writes (%v); not pushing (the credentials may be read-only: use --remote-push=false)", s.remote.URL(), err))
		}
		return res, false
	case err != nil:
		s.fail(err)
		return res, false
	}
	s.mu.Lock()
	if res.Existed {
		s.counters.Existed++
	} else {
		s.counters.Pushed++
	}
	s.counters.PushedBytes += res.Bytes
	s.mu.Unlock()
	return res, true
}

func (s *Store) producer() Producer {
	p := s.cfg.Producer
	p.Time = time.Now().UTC()
	return p
}

// PushKey pushes a key of the local cache: its record and stored outputs.
func (s *Store) PushKey(ctx context.Context, key string) (PutResult, bool, error) {
	rec, ok, err := s.Cache.Record(key)
	if err != nil {
		return PutResult{}, false, err
	}
	if !ok {
		return PutResult{}, false, fmt.Errorf("key %s: no key record in the local cache: %w", key, cache.ErrNotFound)
	}
	refs, ok, err := s.Cache.Lookup(key)
	if err != nil {
		return PutResult{}, false, err
	}
	if !ok {
		return PutResult{}, false, fmt.Errorf("key %s (%s): no stored outputs in the local cache: %w", key, rec.Address, cache.ErrNotFound)
	}
	res, ok := s.push(ctx, rec, refs)
	return res, ok, nil
}

// RecordStage implements runner.RunStore: a cached stage whose key this
// store fetched is recorded with the reason "fetched from REMOTE".
func (s *Store) RecordStage(runID int64, st cache.StageRecord) error {
	s.mu.Lock()
	if st.Status == "cached" && (st.Reason == "" || st.Reason == cache.ReasonCachedElsewhere) && s.fetched[st.Key] {
		st.Reason = OriginPrefix + s.remote.URL()
	}
	if st.Status == "cached" || st.Status == "ran" {
		if s.runKeys[runID] == nil {
			s.runKeys[runID] = map[string]bool{}
		}
		s.runKeys[runID][st.Key] = true
	}
	s.mu.Unlock()
	return s.Cache.RecordStage(runID, st)
}

// FinishRun implements runner.RunStore; when pushing, it uploads the run's
// manifest (the keys it used) so the remote's gc keeps them.
func (s *Store) FinishRun(runID int64, status string) error {
	err := s.Cache.FinishRun(runID, status)
	s.mu.Lock()
	keys := s.runKeys[runID]
	delete(s.runKeys, runID)
	off := s.down != nil || s.noPush != nil
	s.mu.Unlock()
	if s.cfg.Push && !off && len(keys) > 0 {
		list := make([]string, 0, len(keys))
		for k := range keys {
			list = append(list, k)
		}
		sort.Strings(list)
		p := s.producer()
		m := &RunManifest{Host: p.Host, Time: p.Time, LocalRun: runID, Status: status, Keys: list}
		if perr := s.remote.PutManifest(context.Background(), m); perr != nil {
			if access(perr) {
				s.warnOnce("manifest", fmt.Sprintf("remote %s: run manifest not pushed: %v", s.remote.URL(), perr))
			} else {
				s.fail(perr)
			}
		}
	}
	return err
}

// Probe returns how many of keys are missing locally but on the remote,
// and their bytes, for plan's "remote: N stages, X to fetch". Keys the
// local cache has are not asked. The store's Cache may be nil (no local
// cache yet: every key is missing).
func (s *Store) Probe(ctx context.Context, keys []string) (n int, bytes int64, err error) {
	var missing []string
	for _, k := range keys {
		if s.Cache == nil {
			missing = append(missing, k)
		} else if _, ok, err := s.Cache.Lookup(k); err == nil && !ok {
			missing = append(missing, k)
		}
	}
	var mu sync.Mutex
	s.eachKey(ctx, missing, func(k string) {
		rec, ok, gerr := s.remote.Get(ctx, k)
		mu.Lock()
		switch {
		case gerr != nil && err == nil && !errors.Is(gerr, cache.ErrCorrupt):
			err = gerr
		case ok:
			n++
			for _, o := range rec.Outputs {
				if s.Cache == nil || !s.Cache.HasPayload(o.Digest, o.Size) {
					bytes += o.Size
				}
			}
		}
		mu.Unlock()
	})
	return n, bytes, err
}

// eachKey calls fn for every key on up to Parallel goroutines and returns
// when all calls have returned; keys not yet handed out when ctx is done
// are skipped.
func (s *Store) eachKey(ctx context.Context, keys []string, fn func(key string)) {
	var wg sync.WaitGroup
	next := make(chan string)
	for range min(s.cfg.Parallel, len(keys)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				fn(k)
			}
		}()
	}
	for _, k := range keys {
		if ctx.Err() != nil {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
}

// remoteError marks an error of the remote (not of the local cache) in a
// fetch.
type remoteError struct{ err error }

func (e *remoteError) Error() string { return e.err.Error() }
func (e *remoteError) Unwrap() error { return e.err }

// remoteReader tags the read errors of a remote payload as remoteErrors;
// a digest mismatch stays a *cache.DigestError.
type remoteReader struct{ r io.ReadCloser }

func (t remoteReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF && !errors.Is(err, cache.ErrCorrupt) {
		err = &remoteError{err}
	}
	return n, err
}

func (t remoteReader) Close() error { return t.r.Close() }

// PushReport says what PushKeys did.
type PushReport struct {
	Pushed, Existed, Failed int
	Bytes                   int64 // uploaded
	Errors                  []string
}

// PushKeys pushes keys of the local cache, several at once. A key that
// cannot be pushed is counted in Failed with its error; a remote that
// fails is switched off (Down) and the remaining keys fail.
func (s *Store) PushKeys(ctx context.Context, keys []string) PushReport {
	var rep PushReport
	var mu sync.Mutex
	s.eachKey(ctx, keys, func(k string) {
		res, ok, err := s.PushKey(ctx, k)
		mu.Lock()
		switch {
		case err != nil:
			rep.Failed++
			rep.Errors = append(rep.Errors, err.Error())
		case !ok:
			rep.Failed++
		case res.Existed:
			rep.Existed++
			rep.Bytes += res.Bytes
		default:
			rep.Pushed++
			rep.Bytes += res.Bytes
		}
		mu.Unlock()
	})
	sort.Strings(rep.Errors)
	return rep
}
