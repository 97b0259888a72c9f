package remote

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
)

// The fetch benchmarks behind docs/remote.md's table: one large payload
// (MB/s) and many small keys (stages per second, eight fetched at once as
// run's prefetch does), against the S3 test server when weed is built
// (BenchmarkFetchS3…) and a directory (BenchmarkFetchDir…).
//
//	go test -run '^$' -bench Fetch -benchtime 3x ./remote

func benchRemote(b *testing.B, kind string) *Remote {
	b.Helper()
	if kind == "dir" {
		r, err := Open(context.Background(), "file://"+b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	s := startS3(b)
	r, err := Open(context.Background(), fmt.Sprintf("s3://%s/bench-%d", s.bucket, time.Now().UnixNano()), Options{})
	if err != nil {
		b.Fatal(err)
	}
	return r
}

func benchFetchLarge(b *testing.B, kind string) {
	r := benchRemote(b, kind)
	defer r.Close()
	src := newBenchCache(b)
	rec := keyRecord("large", 1)
	const n = 8 << 20 // float64s: 64 MiB
	refs, err := src.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(1, n)})
	if err != nil {
		b.Fatal(err)
	}
	s := NewStore(src, r, StoreOptions{Push: true})
	if !s.Push(context.Background(), rec, refs) {
		b.Fatal("push failed")
	}
	b.SetBytes(refs[0].Size)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		dst := NewStore(newBenchCache(b), r, StoreOptions{Fetch: true})
		b.StartTimer()
		if dst.Prefetch(context.Background(), []string{rec.Key}) != 1 {
			b.Fatal("fetch failed")
		}
	}
}

func benchFetchSmall(b *testing.B, kind string) {
	r := benchRemote(b, kind)
	defer r.Close()
	src := newBenchCache(b)
	s := NewStore(src, r, StoreOptions{Push: true})
	const keys = 300
	list := make([]string, keys)
	for i := range keys {
		rec := keyRecord("small", i)
		refs, err := src.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(float64(i), 128)})
		if err != nil {
			b.Fatal(err)
		}
		list[i] = rec.Key
		if !s.Push(context.Background(), rec, refs) {
			b.Fatal("push failed")
		}
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		b.StopTimer()
		dst := NewStore(newBenchCache(b), r, StoreOptions{Fetch: true})
		b.StartTimer()
		if got := dst.Prefetch(context.Background(), list); got != keys {
			b.Fatalf("fetched %d of %d keys", got, keys)
		}
	}
	b.ReportMetric(float64(keys*b.N)/time.Since(start).Seconds(), "stages/s")
}

func newBenchCache(b *testing.B) *cache.Cache {
	c, err := cache.Open(b.TempDir() + "/cache")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	return c
}

func BenchmarkFetchDirLarge(b *testing.B) { benchFetchLarge(b, "dir") }
func BenchmarkFetchDirSmall(b *testing.B) { benchFetchSmall(b, "dir") }
func BenchmarkFetchS3Large(b *testing.B)  { benchFetchLarge(b, "s3") }
func BenchmarkFetchS3Small(b *testing.B)  { benchFetchSmall(b, "s3") }
