package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
)

// fastOpts retry quickly, so fault tests stay short.
var fastOpts = Options{Attempts: 3, Backoff: 5 * time.Millisecond, Timeout: 5 * time.Second}

func valueArtifact(v float64, n int) artifact.Artifact {
	a := bundle.New("value")
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = v + float64(i)*1e-3
	}
	a.SetFloats("values", vals)
	return a
}

func values(t *testing.T, a artifact.Artifact) []float64 {
	t.Helper()
	b, err := bundle.From(a)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := b.Floats("values")
	return v
}

func keyRecord(addr string, seed int, inputs ...string) *cache.KeyRecord {
	rec := &cache.KeyRecord{Address: addr, StageType: "test.stage", Version: "1",
		Params: map[string]string{"seed": fmt.Sprint(seed)}, Inputs: map[string][]string{}}
	if len(inputs) > 0 {
		rec.Inputs["in"] = inputs
	}
	cache.ComputeKey(rec)
	return rec
}

func openCache(t *testing.T) *cache.Cache {
	t.Helper()
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// warnings collects a Store's warnings.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(m string) { w.mu.Lock(); w.msgs = append(w.msgs, m); w.mu.Unlock() }

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.msgs, "\n")
}

func (w *warnings) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.msgs)
}

// remotes are the kinds of remote the unit tests run against: a directory
// (the file:// driver) and gocloud's in-process fake (memblob).
func remotes(t *testing.T) map[string]func() *Remote {
	return map[string]func() *Remote{
		"file": func() *Remote {
			dir := t.TempDir()
			r, err := Open(context.Background(), "file://"+dir, fastOpts)
			if err != nil {
				t.Fatal(err)
			}
			return r
		},
		"mem": func() *Remote { return OpenBucket("mem://test", memblob.OpenBucket(nil), fastOpts) },
	}
}

func newStore(c *cache.Cache, r *Remote, push bool, w *warnings) *Store {
	return NewStore(c, r, StoreOptions{Push: push, Fetch: true, Producer: Producer{Hylaflow: "test"}, Warn: w.add})
}

func TestPushFetchRoundTrip(t *testing.T) {
	for name, mk := range remotes(t) {
		t.Run(name, func(t *testing.T) {
			r := mk()
			var wa, wb warnings
			a := newStore(openCache(t), r, true, &wa)
			up := keyRecord("up", 1)
			if _, err := a.Store(up, map[string]artifact.Artifact{"x": valueArtifact(1, 1000), "y": valueArtifact(2, 10)}); err != nil {
				t.Fatal(err)
			}
			down := keyRecord("down", 1, up.Key+"/x")
			if _, err := a.Store(down, map[string]artifact.Artifact{"out": valueArtifact(3, 5)}); err != nil {
				t.Fatal(err)
			}
			if c := a.Counters(); c.Pushed != 2 || c.PushedBytes == 0 {
				t.Fatalf("pushed %+v, want 2 keys", c)
			}
			// A second cache fetches both keys; the record says what was stored.
			b := newStore(openCache(t), r, false, &wb)
			refs, ok, err := b.Lookup(down.Key)
			if err != nil || !ok {
				t.Fatalf("lookup on the second cache: ok=%v err=%v", ok, err)
			}
			art, err := b.Load(refs[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := values(t, art); len(got) != 5 || got[0] != 3 {
				t.Errorf("fetched values %v, want 5 values from 3", got)
			}
			wantRefs, _, _ := a.Cache.Lookup(down.Key)
			if refs[0].Digest != wantRefs[0].Digest || refs[0].Size != wantRefs[0].Size {
				t.Errorf("fetched ref %+v, pushed %+v", refs[0], wantRefs[0])
			}
			rec, ok, err := b.Cache.Record(down.Key)
			if err != nil || !ok || rec.Inputs["in"][0] != up.Key+"/x" || rec.StageType != "test.stage" {
				t.Errorf("fetched key record %+v (ok %v, err %v)", rec, ok, err)
			}
			if !b.Fetched(down.Key) || b.Fetched(up.Key) {
				t.Errorf("Fetched: down %v up %v, want true false", b.Fetched(down.Key), b.Fetched(up.Key))
			}
			// The run record marks the fetched stage.
			run, err := b.BeginRun("p.hcl", nil)
			if err != nil {
				t.Fatal(err)
			}
			b.RecordStage(run, cache.StageRecord{Address: "down", Key: down.Key, Status: "cached"})
			b.RecordStage(run, cache.StageRecord{Address: "up", Key: up.Key, Status: "ran"})
			b.FinishRun(run, "ok")
			d, err := b.Run(run)
			if err != nil {
				t.Fatal(err)
			}
			if d.Stages[0].Reason != OriginPrefix+r.URL() || d.Stages[1].Reason != "" {
				t.Errorf("run record reasons %q, %q; want %q and none", d.Stages[0].Reason, d.Stages[1].Reason, OriginPrefix+r.URL())
			}
			if wa.count()+wb.count() > 0 {
				t.Errorf("warnings: %s", wa.all()+wb.all())
			}
			// A key the remote lacks is a plain miss.
			if _, ok, err := b.Lookup(keyRecord("none", 9).Key); ok || err != nil {
				t.Errorf("lookup of an unknown key: ok=%v err=%v", ok, err)
			}
		})
	}
}

// damage replaces the remote payload of digest by data.
func damage(t *testing.T, r *Remote, digest string, data func([]byte) []byte) {
	t.Helper()
	ctx := context.Background()
	b, err := r.Bucket().ReadAll(ctx, ObjectKey(digest))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Bucket().Delete(ctx, ObjectKey(digest)); err != nil {
		t.Fatal(err)
	}
	if err := r.Bucket().WriteAll(ctx, ObjectKey(digest), data(b), nil); err != nil {
		t.Fatal(err)
	}
}

func TestDamagedRemotePayloadIsIgnoredAndHealed(t *testing.T) {
	damages := map[string]func([]byte) []byte{
		"flipped byte": func(b []byte) []byte { c := bytes.Clone(b); c[len(c)/2] ^= 1; return c },
		"truncated":    func(b []byte) []byte { return b[:len(b)/2] },
		"extended":     func(b []byte) []byte { return append(bytes.Clone(b), 0) },
	}
	for name, mk := range remotes(t) {
		for dname, dmg := range damages {
			t.Run(name+"/"+dname, func(t *testing.T) {
				r := mk()
				var w warnings
				a := newStore(openCache(t), r, true, &w)
				rec := keyRecord("s", 1)
				refs, err := a.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(1, 500)})
				if err != nil {
					t.Fatal(err)
				}
				damage(t, r, refs[0].Digest, dmg)
				b := newStore(openCache(t), r, true, &w)
				if _, ok, err := b.Lookup(rec.Key); ok || err != nil {
					t.Fatalf("lookup of a damaged key: ok=%v err=%v, want a miss", ok, err)
				}
				if c := b.Counters(); c.Corrupt != 1 || c.Fetched != 0 {
					t.Errorf("counters %+v, want 1 corrupt, 0 fetched", c)
				}
				if !strings.Contains(w.all(), "is damaged") || !strings.Contains(w.all(), "the stage is computed") {
					t.Errorf("warnings %q do not report the damage", w.all())
				}
				// Nothing damaged entered the local cache.
				if rep, err := b.Cache.Verify(); err != nil || len(rep.Problems) > 0 {
					t.Errorf("local verify after the refused fetch: %v %v", rep.Problems, err)
				}
				if _, ok, _ := b.Cache.Lookup(rec.Key); ok {
					t.Error("the damaged key was indexed locally")
				}
				// The damaged object was removed; the recompute's push heals the remote.
				if _, err := b.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(1, 500)}); err != nil {
					t.Fatal(err)
				}
				c := newStore(openCache(t), r, false, &w)
				if _, ok, err := c.Lookup(rec.Key); !ok || err != nil {
					t.Fatalf("lookup after the heal: ok=%v err=%v (warnings %s)", ok, err, w.all())
				}
			})
		}
	}
}

func TestTamperedRecordIsRefused(t *testing.T) {
	r := remotes(t)["mem"]()
	var w warnings
	a := newStore(openCache(t), r, true, &w)
	rec := keyRecord("s", 1)
	if _, err := a.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(1, 50)}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, _ := r.Bucket().ReadAll(ctx, RecordKey(rec.Key))
	tampered := bytes.Replace(b, []byte(`"seed": "1"`), []byte(`"seed": "2"`), 1)
	if bytes.Equal(b, tampered) {
		t.Fatalf("record %s has no seed to tamper with", b)
	}
	r.Bucket().WriteAll(ctx, RecordKey(rec.Key), tampered, nil)
	_, _, err := r.Get(ctx, rec.Key)
	if !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), "hash to") {
		t.Fatalf("Get of a tampered record: %v, want a corrupt record whose components do not hash to its key", err)
	}
	s := newStore(openCache(t), r, false, &w)
	if _, ok, err := s.Lookup(rec.Key); ok || err != nil || s.Counters().Corrupt != 1 {
		t.Errorf("lookup: ok=%v err=%v counters %+v", ok, err, s.Counters())
	}
}

// failingReader returns n bytes of r, then an error.
type failingReader struct {
	r io.ReadCloser
	n int
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("connection reset (injected)")
	}
	if len(p) > f.n {
		p = p[:f.n]
	}
	n, err := f.r.Read(p)
	f.n -= n
	return n, err
}

func (f *failingReader) Close() error { return f.r.Close() }

func TestTruncatedUploadIsNeverVisible(t *testing.T) {
	for name, mk := range remotes(t) {
		t.Run(name, func(t *testing.T) {
			r := mk()
			c := openCache(t)
			rec := keyRecord("s", 1)
			refs, err := c.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(1, 5000)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			tries := 0
			_, err = r.Put(ctx, NewRecord(rec, refs, Producer{}), func(o Output) (io.ReadCloser, error) {
				tries++
				rd, err := c.OpenPayload(refs[0])
				return &failingReader{r: rd, n: int(o.Size / 2)}, err
			})
			if err == nil {
				t.Fatal("Put with uploads that break half-way succeeded")
			}
			if tries != fastOpts.Attempts {
				t.Errorf("%d upload attempts, want %d (bounded retries)", tries, fastOpts.Attempts)
			}
			for _, name := range []string{ObjectKey(refs[0].Digest), RecordKey(rec.Key)} {
				if ok, err := r.Has(ctx, name); ok || err != nil {
					t.Errorf("%s visible after the broken upload (err %v)", name, err)
				}
			}
			// A damaged local payload is never uploaded.
			_, err = r.Put(ctx, NewRecord(rec, refs, Producer{}), func(o Output) (io.ReadCloser, error) {
				return cache.NewVerifyingReader(io.NopCloser(bytes.NewReader(make([]byte, o.Size))), o.Digest, o.Size), nil
			})
			if !errors.Is(err, cache.ErrCorrupt) {
				t.Errorf("Put of a damaged payload: %v, want ErrCorrupt", err)
			}
			if ok, _ := r.Has(ctx, ObjectKey(refs[0].Digest)); ok {
				t.Error("a damaged payload was uploaded")
			}
		})
	}
}

func TestConcurrentPushesOfOneKey(t *testing.T) {
	for name, mk := range remotes(t) {
		t.Run(name, func(t *testing.T) {
			r := mk()
			rec := keyRecord("s", 1)
			const n = 6
			stores := make([]*Store, n)
			var w warnings
			for i := range stores {
				stores[i] = newStore(openCache(t), r, true, &w)
			}
			var wg sync.WaitGroup
			for i := range stores {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := stores[i].Store(rec, map[string]artifact.Artifact{"out": valueArtifact(7, 20000)}); err != nil {
						t.Error(err)
					}
				}()
			}
			wg.Wait()
			pushed, existed := 0, 0
			for _, s := range stores {
				c := s.Counters()
				pushed += c.Pushed
				existed += c.Existed
			}
			if pushed+existed != n || pushed < 1 {
				t.Errorf("pushed %d, existed %d; want %d in all, at least one pushed", pushed, existed, n)
			}
			if w.count() > 0 {
				t.Errorf("warnings: %s", w.all())
			}
			st, err := r.Stats(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if st.Records != 1 || st.Objects != 1 {
				t.Errorf("remote holds %d records and %d objects, want 1 and 1", st.Records, st.Objects)
			}
			// Another machine with other bytes under the same key: the
			// record stays, the divergence is reported.
			other := newStore(openCache(t), r, true, &w)
			if _, err := other.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(8, 20000)}); err != nil {
				t.Fatal(err)
			}
			if other.Counters().Divergent != 1 || !strings.Contains(w.all(), "with other outputs") {
				t.Errorf("divergent push: counters %+v, warnings %q", other.Counters(), w.all())
			}
			got, _, _ := r.Get(context.Background(), rec.Key)
			first, _, _ := stores[0].Cache.Lookup(rec.Key)
			if got.Outputs[0].Digest != first[0].Digest {
				t.Error("the divergent push replaced the remote record")
			}
		})
	}
}

// closedPort returns an address on which nothing listens.
func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestUnreachableRemoteDoesNotFailTheCache(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	r, err := Open(context.Background(), "s3://bucket/prefix?endpoint=http://"+closedPort(t), fastOpts)
	if err != nil {
		t.Fatal(err)
	}
	var w warnings
	s := newStore(openCache(t), r, true, &w)
	rec := keyRecord("s", 1)
	start := time.Now()
	if _, ok, err := s.Lookup(rec.Key); ok || err != nil {
		t.Fatalf("lookup with the remote down: ok=%v err=%v", ok, err)
	}
	if s.Down() == nil {
		t.Fatal("the store did not switch the remote off")
	}
	refs, err := s.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(1, 10)})
	if err != nil || len(refs) != 1 {
		t.Fatalf("store with the remote down: %v", err)
	}
	for i := range 20 {
		s.Lookup(keyRecord("s", 100+i).Key)
	}
	if w.count() != 1 || !strings.Contains(w.all(), "continuing without it") {
		t.Errorf("warnings %q, want exactly one saying the run continues", w.all())
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v with the remote down: the lookups after the failure should not retry", d)
	}
	if _, ok, _ := s.Cache.Lookup(rec.Key); !ok {
		t.Error("the key was not stored locally")
	}
}

func TestVerifyAndGC(t *testing.T) {
	r := remotes(t)["file"]()
	var w warnings
	s := newStore(openCache(t), r, true, &w)
	ctx := context.Background()
	// Run 1 uses k1 (input k0); run 2 uses k2.
	k0, k1, k2 := keyRecord("k0", 0), keyRecord("k1", 1), keyRecord("k2", 2)
	k1 = keyRecord("k1", 1, k0.Key+"/out")
	for i, rec := range []*cache.KeyRecord{k0, k1, k2} {
		if _, err := s.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(float64(i), 100*(i+1))}); err != nil {
			t.Fatal(err)
		}
	}
	for _, keys := range [][]string{{k1.Key}, {k2.Key}} {
		run, _ := s.BeginRun("p.hcl", nil)
		for _, k := range keys {
			s.RecordStage(run, cache.StageRecord{Key: k, Status: "ran"})
		}
		s.FinishRun(run, "ok")
		time.Sleep(2 * time.Millisecond) // manifest names sort by time
	}
	rep, err := r.Verify(ctx, true, false)
	if err != nil || len(rep.Problems) > 0 || rep.Records != 3 || rep.Objects != 3 {
		t.Fatalf("verify of a sound remote: %+v %v", rep, err)
	}
	// gc keeping the newest run removes k0 and k1 (k1 is no input of k2).
	g, err := r.GC(ctx, GCOptions{KeepRuns: 1, DryRun: true, Grace: time.Nanosecond})
	if err != nil || g.Records != 2 || g.Objects != 2 || g.Runs != 1 || g.Kept != 1 {
		t.Fatalf("gc dry run: %+v %v, want 2 records, 2 objects, 1 run removed, 1 kept", g, err)
	}
	if st, _ := r.Stats(ctx); st.Records != 3 {
		t.Fatalf("the dry run removed records: %+v", st)
	}
	// Keeping two runs keeps k0 too, as k1's input.
	if g, err := r.GC(ctx, GCOptions{KeepRuns: 2, DryRun: true, Grace: time.Nanosecond}); err != nil || g.Records != 0 {
		t.Fatalf("gc keeping both runs: %+v %v", g, err)
	}
	if _, err := r.GC(ctx, GCOptions{KeepRuns: 1, Grace: time.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	st, _ := r.Stats(ctx)
	if st.Records != 1 || st.Objects != 1 || st.Runs != 1 || st.SlurmFiles != 0 {
		t.Errorf("after gc: %+v, want 1 record, 1 object, 1 run", st)
	}
	// The Slurm executor's files are counted apart from the store's.
	log := []byte("job output\n")
	if err := r.WriteFile(ctx, "slurm/logs/k.1.out", "text/plain", log); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.Stats(ctx); st.SlurmFiles != 1 || st.SlurmBytes != int64(len(log)) || st.Records != 1 || st.Runs != 1 {
		t.Errorf("stats with a Slurm log: %+v, want 1 Slurm file of %d bytes beside 1 record and 1 run", st, len(log))
	}
	if _, ok, _ := r.Get(ctx, k2.Key); !ok {
		t.Error("gc removed the kept key")
	}
	// Damage the kept payload: verify finds it, repair removes it and its record.
	refs, _, _ := s.Cache.Lookup(k2.Key)
	damage(t, r, refs[0].Digest, func(b []byte) []byte { c := bytes.Clone(b); c[10] ^= 0xff; return c })
	rep, err = r.Verify(ctx, true, true)
	if err != nil || len(rep.Problems) != 1 || len(rep.Repaired) != 2 {
		t.Fatalf("verify --repair of a damaged payload: %+v %v", rep, err)
	}
	if st, _ := r.Stats(ctx); st.Records != 0 || st.Objects != 0 {
		t.Errorf("after repair: %+v, want nothing left", st)
	}
}

func TestDriverURL(t *testing.T) {
	tests := []struct {
		raw, env, want, prefix, err string
	}{
		{raw: "s3://bucket/team/cache", want: "s3://bucket?region=us-east-1", prefix: "team/cache/"},
		{raw: "s3://bucket", env: "http://127.0.0.1:8333", want: "s3://bucket?region=us-east-1&use_path_style=true"},
		{raw: "s3://bucket/p?use_path_style=false", env: "http://x", want: "s3://bucket?region=us-east-1&use_path_style=false", prefix: "p/"},
		{raw: "s3://bucket/p?profile=lab", want: "s3://bucket?profile=lab", prefix: "p/"},
		{raw: "gs://b/x/", want: "gs://b", prefix: "x/"},
		{raw: "azblob://container", want: "azblob://container"},
		{raw: "file:///srv/cache", want: "file:///srv/cache?create_dir=true&metadata=skip&no_tmp_dir=true"},
		{raw: "file://", err: "without a directory"},
		{raw: "s3:///p", err: "without a bucket"},
		{raw: "ftp://x/y", err: `scheme "ftp"`},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			t.Setenv("AWS_ENDPOINT_URL", tt.env)
			t.Setenv("AWS_ENDPOINT_URL_S3", "")
			t.Setenv("AWS_REGION", "")
			t.Setenv("AWS_DEFAULT_REGION", "")
			t.Setenv("AWS_PROFILE", "")
			got, prefix, err := driverURL(tt.raw)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want || prefix != tt.prefix {
				t.Errorf("driverURL = %q, %q, %v; want %q, %q", got, prefix, err, tt.want, tt.prefix)
			}
		})
	}
}

func TestRedact(t *testing.T) {
	got := Redact("s3://user:pw@bucket/p?secret_key=abc&region=x")
	if strings.Contains(got, "pw") || strings.Contains(got, "abc") || !strings.Contains(got, "region=x") {
		t.Errorf("Redact = %q", got)
	}
}
