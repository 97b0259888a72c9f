package cacheops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
)

// RecomputeResult is the outcome of recomputing one stored key.
type RecomputeResult struct {
	Key, Address string
	// Match is true when every output recomputed has the stored digest.
	Match bool
	// Diffs name the outputs whose digests differ: "NAME: stored X, recomputed Y".
	Diffs []string
	Err   error
	Took  time.Duration
}

// Recompute runs the stage of each key again from its key record and its
// stored inputs, in this process, and compares the digests of what it
// computes with the stored ones, writing nothing: `hylaflow cache verify
// --recompute N` uses it on a sample of the stages fetched from a remote,
// whose digests prove only that the bytes are the producer's.
func Recompute(ctx context.Context, c *cache.Cache, reg *registry.Registry, keys []string, workers int) []RecomputeResult {
	out := make([]RecomputeResult, 0, len(keys))
	for _, key := range keys {
		r := RecomputeResult{Key: key}
		if rec, ok, err := c.Record(key); err == nil && ok {
			r.Address = rec.Address
		}
		stored, ok, err := c.Lookup(key)
		switch {
		case err != nil:
			r.Err = err
		case !ok:
			r.Err = fmt.Errorf("key %s: no stored outputs to compare with", key)
		}
		if r.Err != nil {
			out = append(out, r)
			continue
		}
		start := time.Now()
		res, err := runner.ExecKey(ctx, digestStore{c}, reg, key, workers, true, runner.Hooks{})
		r.Took = time.Since(start)
		if err != nil {
			r.Err = err
			out = append(out, r)
			continue
		}
		got := map[string]string{}
		for _, o := range res.Outputs {
			got[o.Name] = o.Digest
		}
		for _, s := range stored {
			if got[s.Name] != s.Digest {
				r.Diffs = append(r.Diffs, fmt.Sprintf("%s: stored %.12s…, recomputed %.12s…", s.Name, s.Digest, got[s.Name]))
			}
		}
		if len(got) != len(stored) {
			r.Diffs = append(r.Diffs, fmt.Sprintf("%d outputs stored, %d recomputed", len(stored), len(got)))
		}
		sort.Strings(r.Diffs)
		r.Match = len(r.Diffs) == 0
		out = append(out, r)
	}
	return out
}

// digestStore is the cache as a recompute sees it: inputs and records come
// from the cache, outputs are only hashed, keys are not claimed.
type digestStore struct{ *cache.Cache }

func (d digestStore) Store(rec *cache.KeyRecord, outs map[string]artifact.Artifact) ([]cache.OutputRef, error) {
	names := make([]string, 0, len(outs))
	for n := range outs {
		names = append(names, n)
	}
	sort.Strings(names)
	refs := make([]cache.OutputRef, 0, len(names))
	for _, n := range names {
		h := sha256.New()
		cw := &countingWriter{w: h}
		if err := artifact.Encode(cw, outs[n]); err != nil {
			return nil, fmt.Errorf("output %q: %w", n, err)
		}
		refs = append(refs, cache.OutputRef{Key: rec.Key, Name: n, Kind: outs[n].Kind(), Digest: hex.EncodeToString(h.Sum(nil)), Size: cw.n})
	}
	return refs, nil
}

func (d digestStore) Touch(string) error { return nil }

func (d digestStore) Claim(ctx context.Context, _ string) (func(), error) {
	return func() {}, ctx.Err()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
