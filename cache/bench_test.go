package cache

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
)

// benchCache returns a cache directory holding n stored keys of one small
// output each, as a fully cached run of an n-stage pipeline finds it.
func benchCache(b *testing.B, n int) (string, []*KeyRecord) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "cache")
	c, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	recs := make([]*KeyRecord, n)
	for i := range recs {
		recs[i] = testRecord("bench", i)
		if _, err := c.Store(recs[i], map[string]artifact.Artifact{"out": valueArtifact(float64(i), 4)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		b.Fatal(err)
	}
	return dir, recs
}

// BenchmarkCachedRun502 is the cache's share of a fully cached run of a
// 502-stage pipeline: open, 502 lookups, a run record with 502 cached
// stages and touches, close.
func BenchmarkCachedRun502(b *testing.B) {
	dir, recs := benchCache(b, 502)
	b.ResetTimer()
	for range b.N {
		c, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if _, ok, err := c.Lookup(r.Key); !ok || err != nil {
				b.Fatal("miss", err)
			}
		}
		id, err := c.BeginRun("bench", nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range recs {
			if err := c.Touch(r.Key); err != nil {
				b.Fatal(err)
			}
			if err := c.RecordStage(id, StageRecord{Address: r.Address, Key: r.Key, Status: "cached", Start: time.Now()}); err != nil {
				b.Fatal(err)
			}
		}
		if err := c.FinishRun(id, "ok"); err != nil {
			b.Fatal(err)
		}
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup is one lookup of a stored key with one output.
func BenchmarkLookup(b *testing.B) {
	dir, recs := benchCache(b, 502)
	c, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	for i := range b.N {
		if _, ok, err := c.Lookup(recs[i%len(recs)].Key); !ok || err != nil {
			b.Fatal("miss", err)
		}
	}
}

// BenchmarkOpen is opening and closing an existing cache.
func BenchmarkOpen(b *testing.B) {
	dir, _ := benchCache(b, 10)
	b.ResetTimer()
	for range b.N {
		c, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkStoreSmall is storing one small output (two fsyncs and one
// index transaction), the cache's share of running a cheap stage.
func BenchmarkStoreSmall(b *testing.B) {
	c, err := Open(filepath.Join(b.TempDir(), "cache"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ResetTimer()
	for i := range b.N {
		if _, err := c.Store(testRecord("store", i), map[string]artifact.Artifact{"out": valueArtifact(float64(i), 4)}); err != nil {
			b.Fatal(err)
		}
	}
}
