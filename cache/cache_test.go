package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

// helperEnv selects a helper mode of the test binary (see TestMain).
const helperEnv = "HYLAFLOW_CACHE_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode, os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

// runHelper runs a child process's part of a multi-process test on the
// cache in dir and returns its exit code.
func runHelper(mode, dir string) int {
	c, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer c.Close()
	switch mode {
	case "claimstore":
		// For each of 12 keys: claim, look up, compute (print the key and
		// sleep) if missing, store, release.
		for i := range 12 {
			rec := testRecord("claim", i)
			release, err := c.Claim(context.Background(), rec.Key)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			if _, ok, err := c.Lookup(rec.Key); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			} else if !ok {
				fmt.Printf("computed %d\n", i)
				time.Sleep(15 * time.Millisecond)
				if _, err := c.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(float64(i), 1000)}); err != nil {
					fmt.Fprintln(os.Stderr, err)
					return 2
				}
			}
			release()
		}
		return 0
	case "storeloop":
		// Store big artifacts under keys 0, 1, … until killed.
		for i := 0; ; i++ {
			rec := testRecord("kill", i)
			outs := map[string]artifact.Artifact{"a": valueArtifact(float64(i), 1<<19), "b": valueArtifact(float64(-i), 1<<19)}
			fmt.Printf("storing %d\n", i)
			if _, err := c.Store(rec, outs); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
		}
	case "killat-temp-written", "killat-renamed", "killat-indexing":
		// Store keys 0 and 1; in key 1's Store, stop at the hook point,
		// say so and wait to be killed.
		point := strings.TrimPrefix(mode, "killat-")
		key := 0
		var once sync.Once
		testHook = func(p string) {
			if key == 1 && p == point {
				once.Do(func() { fmt.Printf("at %s\n", p) })
				time.Sleep(time.Minute)
			}
		}
		for ; key < 2; key++ {
			if _, err := c.Store(testRecord("kill", key), map[string]artifact.Artifact{
				"a": valueArtifact(float64(key), 1000), "b": valueArtifact(float64(-key), 1000)}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
		}
		return 0
	case "hold":
		// Claim key "held" and keep it until killed.
		if _, err := c.Claim(context.Background(), testRecord("held", 0).Key); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Println("holding")
		time.Sleep(time.Minute)
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

// helperCmd returns a command that runs the test binary in a helper mode.
func helperCmd(t *testing.T, mode, dir string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$", dir)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	return cmd
}

// testRecord returns the key record of instance i of a test stage.
func testRecord(stage string, i int) *KeyRecord {
	rec := &KeyRecord{
		Address:   fmt.Sprintf("%s[%d]", stage, i),
		StageType: stage, Version: "1",
		Params: map[string]string{"i": strconv.Itoa(i)},
		Inputs: map[string][]string{},
	}
	ComputeKey(rec)
	return rec
}

// valueArtifact returns a KindValue artifact holding n copies of v.
func valueArtifact(v float64, n int) artifact.Artifact {
	a := bundle.New(schema.KindValue)
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = v + float64(i)*1e-3
	}
	a.SetFloats("values", vals)
	return a
}

// values returns the "values" member of a valueArtifact (nil for anything else).
func values(a artifact.Artifact) []float64 {
	b, err := bundle.From(a)
	if err != nil {
		return nil
	}
	v, _ := b.Floats("values")
	return v
}

func openTest(t *testing.T) *Cache {
	t.Helper()
	c, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func mustStore(t *testing.T, c *Cache, rec *KeyRecord, outs map[string]artifact.Artifact) []OutputRef {
	t.Helper()
	refs, err := c.Store(rec, outs)
	if err != nil {
		t.Fatal(err)
	}
	return refs
}

func mustLookup(t *testing.T, c *Cache, key string) []OutputRef {
	t.Helper()
	refs, ok, err := c.Lookup(key)
	if err != nil || !ok {
		t.Fatalf("lookup %s: ok=%v err=%v", key, ok, err)
	}
	return refs
}

func TestStoreLookupLoad(t *testing.T) {
	dense := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, -6.5})
	csr := &sparse.CSR{Rows: 2, Cols: 3, Indptr: []int{0, 1, 3}, Indices: []int32{2, 0, 1}, Data: []float64{1.5, -2, 3}}
	mk := func(kind artifact.Kind, set func(a *bundle.Bundle)) artifact.Artifact {
		a := bundle.New(kind)
		set(a)
		return a
	}
	tests := []struct {
		name string
		outs map[string]artifact.Artifact
	}{
		{"floats", map[string]artifact.Artifact{"out": valueArtifact(3, 5)}},
		{"dense and ints", map[string]artifact.Artifact{"m": mk(schema.KindEmbedding, func(a *bundle.Bundle) {
			a.SetDense("z", dense)
			a.SetInts("idx", []int{3, 1, 4})
		})}},
		{"sparse", map[string]artifact.Artifact{"s": mk(schema.KindFeatures, func(a *bundle.Bundle) { a.SetSparse("", csr) })}},
		{"json and file, two outputs", map[string]artifact.Artifact{
			"metrics": mk(schema.KindMetrics, func(a *bundle.Bundle) { a.SetJSON("metrics", map[string]float64{"acc": 0.8}) }),
			"table":   mk(schema.KindTable, func(a *bundle.Bundle) { a.SetFile("t.md", []byte("| a |\n")) }),
		}},
	}
	c := openTest(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := testRecord("store", i)
			refs := mustStore(t, c, rec, tt.outs)
			if len(refs) != len(tt.outs) {
				t.Fatalf("%d refs for %d outputs", len(refs), len(tt.outs))
			}
			got := mustLookup(t, c, rec.Key)
			if !reflect.DeepEqual(got, refs) {
				t.Fatalf("lookup %+v, store returned %+v", got, refs)
			}
			for _, r := range refs {
				want := tt.outs[r.Name].(*bundle.Bundle)
				if r.Kind != want.Kind() || r.Key != rec.Key || !validDigest(r.Digest) {
					t.Errorf("ref %+v", r)
				}
				info, err := os.Stat(c.objectPath(r.Digest))
				if err != nil || info.Size() != r.Size {
					t.Errorf("payload of %s: %v, size %d, ref says %d", r.Name, err, info.Size(), r.Size)
				}
				art, err := c.Load(r)
				if err != nil {
					t.Fatal(err)
				}
				a, err := bundle.From(art)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(a.Names(), want.Names()) || a.Kind() != want.Kind() {
					t.Fatalf("loaded %s %v, stored %s %v", a.Kind(), a.Names(), want.Kind(), want.Names())
				}
				for _, n := range want.Names() {
					wv, _ := want.Member(n)
					gv, _ := a.Member(n)
					if !reflect.DeepEqual(fmt.Sprint(gv), fmt.Sprint(wv)) {
						t.Errorf("member %s: loaded %v, stored %v", n, gv, wv)
					}
				}
			}
		})
	}
	t.Run("unknown key", func(t *testing.T) {
		if refs, ok, err := c.Lookup(strings.Repeat("0", 64)); ok || err != nil || refs != nil {
			t.Fatalf("lookup of an unknown key: %v %v %v", refs, ok, err)
		}
	})
	t.Run("identical payloads share one object", func(t *testing.T) {
		a := mustStore(t, c, testRecord("dedup", 1), map[string]artifact.Artifact{"out": valueArtifact(7, 100)})
		b := mustStore(t, c, testRecord("dedup", 2), map[string]artifact.Artifact{"out": valueArtifact(7, 100)})
		if a[0].Digest != b[0].Digest {
			t.Fatalf("same artifact, digests %s and %s", a[0].Digest, b[0].Digest)
		}
		st, err := c.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if st.Artifacts != st.Objects+1 {
			t.Errorf("stats %+v: want one object fewer than artifacts", st)
		}
	})
	t.Run("store replaces the outputs", func(t *testing.T) {
		rec := testRecord("replace", 0)
		mustStore(t, c, rec, map[string]artifact.Artifact{"x": valueArtifact(1, 3), "y": valueArtifact(2, 3)})
		refs := mustStore(t, c, rec, map[string]artifact.Artifact{"x": valueArtifact(5, 3)})
		if got := mustLookup(t, c, rec.Key); !reflect.DeepEqual(got, refs) || len(got) != 1 {
			t.Fatalf("after the second store: %+v", got)
		}
	})
	// The two payloads the replaced outputs had are orphans now (gc's job).
	rep, err := c.Verify()
	if err != nil || len(rep.Problems) > 0 || rep.Orphans != 2 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

func TestLookupMissingPayload(t *testing.T) {
	c := openTest(t)
	rec := testRecord("missing", 0)
	refs := mustStore(t, c, rec, map[string]artifact.Artifact{"a": valueArtifact(1, 4), "b": valueArtifact(2, 4)})
	if err := os.Remove(c.objectPath(refs[1].Digest)); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := c.Lookup(rec.Key); ok || err != nil {
		t.Fatalf("lookup with a missing payload: ok=%v err=%v", ok, err)
	}
	if _, err := c.Load(refs[1]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("load of a missing payload: %v", err)
	}
	rep, err := c.Verify()
	if err != nil {
		t.Fatal(err)
	}
	// Load dropped the key, so the index no longer names the missing payload.
	if len(rep.Problems) != 0 || rep.Orphans != 1 {
		t.Fatalf("verify after the drop: %+v", rep)
	}
}

func TestCorruptPayload(t *testing.T) {
	c := openTest(t)
	rec := testRecord("corrupt", 0)
	other := testRecord("corrupt", 1) // shares the payload
	outs := map[string]artifact.Artifact{"out": valueArtifact(1, 50)}
	refs := mustStore(t, c, rec, outs)
	mustStore(t, c, other, outs)
	path := c.objectPath(refs[0].Digest)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := c.Verify()
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "content has sha256") {
		t.Fatalf("verify of a corrupt payload: %+v %v", rep, err)
	}
	if _, err := c.Load(refs[0]); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("load of a corrupt payload: %v, want ErrCorrupt", err)
	}
	for _, k := range []string{rec.Key, other.Key} {
		if _, ok, err := c.Lookup(k); ok || err != nil {
			t.Fatalf("lookup %s after the corrupt load: ok=%v err=%v", k, ok, err)
		}
		if _, ok, err := c.Record(k); !ok || err != nil {
			t.Fatalf("the record of %s should stay: ok=%v err=%v", k, ok, err)
		}
	}
	// Recomputing stores a sound payload at the same address.
	refs = mustStore(t, c, rec, outs)
	a, err := c.Load(refs[0])
	if err != nil {
		t.Fatal(err)
	}
	if v := values(a); len(v) != 50 || v[0] != 1 {
		t.Fatalf("reloaded %v", v)
	}
	if rep, err := c.Verify(); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("verify after the recompute: %+v %v", rep, err)
	}
}

func TestLastRecordAndRecord(t *testing.T) {
	c := openTest(t)
	mk := func(lr string) *KeyRecord {
		rec := &KeyRecord{Address: `train.cora["seed-3"]`, StageType: "train", Version: "2",
			Params: map[string]string{"lr": lr, "model": `"hyla"`}, Inputs: map[string][]string{"features": {"abc/out", "def/x"}},
			Fingerprint: "fp"}
		ComputeKey(rec)
		return rec
	}
	if _, ok, err := c.LastRecord(`train.cora["seed-3"]`); ok || err != nil {
		t.Fatalf("last record before any run: ok=%v err=%v", ok, err)
	}
	a, b := mk("0.01"), mk("0.05")
	mustStore(t, c, a, map[string]artifact.Artifact{"out": valueArtifact(1, 2)})
	time.Sleep(time.Millisecond)
	mustStore(t, c, b, map[string]artifact.Artifact{"out": valueArtifact(2, 2)})
	steps := []struct {
		touch string
		want  *KeyRecord
	}{
		{"", b},
		{a.Key, a},
		{b.Key, b},
	}
	for i, s := range steps {
		if s.touch != "" {
			time.Sleep(time.Millisecond)
			if err := c.Touch(s.touch); err != nil {
				t.Fatal(err)
			}
		}
		got, ok, err := c.LastRecord(a.Address)
		if err != nil || !ok || !reflect.DeepEqual(got, s.want) {
			t.Fatalf("step %d: last record %+v (ok=%v err=%v), want %+v", i, got, ok, err, s.want)
		}
	}
	got, ok, err := c.Record(a.Key)
	if err != nil || !ok || !reflect.DeepEqual(got, a) {
		t.Fatalf("record %+v (ok=%v err=%v), want %+v", got, ok, err, a)
	}
	if _, ok, err := c.Record(strings.Repeat("f", 64)); ok || err != nil {
		t.Fatalf("record of an unknown key: ok=%v err=%v", ok, err)
	}
}

func TestResolveKey(t *testing.T) {
	c := openTest(t)
	var keys []string
	for i := range 40 {
		rec := testRecord("resolve", i)
		mustStore(t, c, rec, map[string]artifact.Artifact{"out": valueArtifact(float64(i), 1)})
		keys = append(keys, rec.Key)
	}
	// Find two keys sharing a first hex digit for the ambiguous case.
	byFirst := map[byte]string{}
	ambiguous := ""
	for _, k := range keys {
		if _, ok := byFirst[k[0]]; ok {
			ambiguous = k[:1]
			break
		}
		byFirst[k[0]] = k
	}
	tests := []struct {
		prefix, want, errText string
		notFound              bool
	}{
		{prefix: keys[3], want: keys[3]},
		{prefix: keys[5][:12], want: keys[5]},
		{prefix: strings.ToUpper(keys[7][:12]), want: keys[7]},
		{prefix: ambiguous, errText: "ambiguous"},
		{prefix: "xyz", errText: "want hex digits"},
		{prefix: "", errText: "empty key prefix"},
		{prefix: strings.Repeat("0", 64), notFound: true},
	}
	for _, tt := range tests {
		got, err := c.ResolveKey(tt.prefix)
		switch {
		case tt.want != "":
			if err != nil || got != tt.want {
				t.Errorf("resolve %q: %q, %v; want %q", tt.prefix, got, err, tt.want)
			}
		case tt.notFound:
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("resolve %q: %q, %v; want ErrNotFound", tt.prefix, got, err)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), tt.errText) || !errors.Is(err, ErrBadKey) {
				t.Errorf("resolve %q: %q, %v; want an ErrBadKey error with %q", tt.prefix, got, err, tt.errText)
			}
		}
	}
}

func TestRunHistory(t *testing.T) {
	c := openTest(t)
	id, err := c.BeginRun("table1", []string{"run", "p.hcl", "-j", "2"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1700000000, 123456789)
	stages := []StageRecord{
		{Address: "a", Key: "ka", Status: "cached", Start: t0},
		{Address: "b", Key: "kb", Status: "ran", Reason: "param lr changed 0.01 → 0.05", Start: t0.Add(time.Second), Duration: 1500 * time.Millisecond,
			Metrics: map[string]float64{"test_acc": 0.802, "nan": 0}},
		{Address: "c", Key: "kc", Status: "failed", Reason: "never run", Start: t0.Add(2 * time.Second), Duration: time.Millisecond, Error: "stage c: boom"},
		{Address: "d", Key: "kd", Status: "skipped"},
	}
	for _, s := range stages {
		if err := c.RecordStage(id, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.FinishRun(id, "failed"); err != nil {
		t.Fatal(err)
	}
	id2, err := c.BeginRun("quick", nil)
	if err != nil || id2 <= id {
		t.Fatalf("second run id %d after %d (%v)", id2, id, err)
	}
	runs, err := c.Runs(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != id2 || runs[0].Status != "running" || runs[0].Args == nil {
		t.Fatalf("runs: %+v", runs)
	}
	r := runs[1]
	if r.ID != id || r.Pipeline != "table1" || !reflect.DeepEqual(r.Args, []string{"run", "p.hcl", "-j", "2"}) ||
		r.Status != "failed" || r.Stages != 4 || r.Cached != 1 || r.Ran != 1 || r.Fail != 1 || r.Duration <= 0 || r.Start.IsZero() {
		t.Fatalf("run summary %+v", r)
	}
	if one, err := c.Runs(1); err != nil || len(one) != 1 || one[0].ID != id2 {
		t.Fatalf("runs(1): %+v %v", one, err)
	}
	d, err := c.Run(id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.RunSummary, r) {
		t.Fatalf("detail summary %+v, list %+v", d.RunSummary, r)
	}
	if len(d.Stages) != len(stages) {
		t.Fatalf("%d stages back, recorded %d", len(d.Stages), len(stages))
	}
	for i, s := range d.Stages {
		w := stages[i]
		if !s.Start.Equal(w.Start) {
			t.Errorf("stage %d: start %v, want %v", i, s.Start, w.Start)
		}
		s.Start, w.Start = time.Time{}, time.Time{}
		if !reflect.DeepEqual(s, w) {
			t.Errorf("stage %d: %+v, want %+v", i, s, w)
		}
	}
	if _, err := c.Run(999); !errors.Is(err, ErrNotFound) {
		t.Fatalf("run 999: %v", err)
	}
	if err := c.RecordStage(999, StageRecord{Address: "x"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("record stage of run 999: %v", err)
	}
	// Another Cache on the same directory continues a run's stage records.
	c2, err := Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := c2.RecordStage(id, StageRecord{Address: "e", Key: "ke", Status: "ran"}); err != nil {
		t.Fatal(err)
	}
	if err := c2.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = c.Run(id)
	if err != nil || len(d.Stages) != 5 || d.Stages[4].Address != "e" || d.Ran != 2 {
		t.Fatalf("after a record by another Cache: %+v %v", d, err)
	}
	if st := d.Statuses(); len(st) != 5 || st["e"] != "ran" {
		t.Errorf("Statuses() = %v", st)
	}
	if err := c.FinishRun(999, "ok"); err == nil {
		t.Fatal("finishing an unknown run succeeded")
	}
}

func TestReadOnly(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ro.Lookup(strings.Repeat("a", 64)); ok || err != nil {
		t.Fatalf("lookup in a missing cache: ok=%v err=%v", ok, err)
	}
	if _, ok, err := ro.LastRecord("x"); ok || err != nil {
		t.Fatalf("last record in a missing cache: ok=%v err=%v", ok, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("OpenReadOnly created the directory (%v)", err)
	}

	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	rec := testRecord("ro", 0)
	mustStore(t, c, rec, map[string]artifact.Artifact{"out": valueArtifact(1, 3)})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, indexFile))
	if err != nil {
		t.Fatal(err)
	}
	ro, err = OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	mustLookup(t, ro, rec.Key)
	if got, ok, err := ro.LastRecord(rec.Address); !ok || err != nil || got.Key != rec.Key {
		t.Fatalf("last record: %+v %v %v", got, ok, err)
	}
	if _, err := ro.Store(rec, map[string]artifact.Artifact{"out": valueArtifact(2, 3)}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("store on a read-only cache: %v", err)
	}
	if err := ro.Touch(rec.Key); !errors.Is(err, ErrReadOnly) {
		t.Errorf("touch on a read-only cache: %v", err)
	}
	if _, err := ro.Claim(context.Background(), rec.Key); !errors.Is(err, ErrReadOnly) {
		t.Errorf("claim on a read-only cache: %v", err)
	}
	if _, err := ro.BeginRun("p", nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("begin run on a read-only cache: %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, indexFile))
	if err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the read-only cache changed the index (%v)", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

func TestGarbageIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, indexFile), bytes.Repeat([]byte("not sqlite "), 500), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(string) (*Cache, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		_, err := open(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, indexFile)) || !strings.Contains(err.Error(), "not a database") {
			t.Errorf("%s of a garbage index: %v, want an error naming the file", name, err)
		}
	}
}

func TestClaimInProcess(t *testing.T) {
	c := openTest(t)
	key := testRecord("claim", 0).Key
	release, err := c.Claim(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	// A second claim waits; its context ends the wait.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Claim(ctx, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second claim while held: %v", err)
	}
	// Another key is free.
	rel2, err := c.Claim(context.Background(), testRecord("claim", 1).Key)
	if err != nil {
		t.Fatal(err)
	}
	rel2()
	got := make(chan error, 1)
	go func() {
		r, err := c.Claim(context.Background(), key)
		if err == nil {
			r()
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("claim returned while the key was held: %v", err)
	case <-time.After(30 * time.Millisecond):
	}
	release()
	release() // idempotent
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting claim did not get the key after release")
	}
	var n int
	if err := c.db.QueryRow(`SELECT count(*) FROM leases`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d leases left after every release (%v)", n, err)
	}
}

func TestLeaseRenewed(t *testing.T) {
	saved := leaseTTL
	leaseTTL = 300 * time.Millisecond
	defer func() { leaseTTL = saved }()
	c := openTest(t)
	key := testRecord("renew", 0).Key
	release, err := c.Claim(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	// Well past the first expiry the lease is still valid: the renewer
	// extended it.
	time.Sleep(3 * leaseTTL)
	var expires int64
	if err := c.db.QueryRow(`SELECT expires FROM leases WHERE key = ?`, key).Scan(&expires); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(time.Unix(0, expires)); left <= 0 {
		t.Fatalf("the lease expired %v ago while held", -left)
	}
	release()
	if err := c.db.QueryRow(`SELECT expires FROM leases WHERE key = ?`, key).Scan(&expires); err == nil {
		t.Fatal("the lease row stayed after release")
	}
}

func TestClaimTwoCachesOneProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c1, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Open(dir + "/") // the same directory, spelled differently
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	key := testRecord("two", 0).Key
	if _, err := c1.Claim(context.Background(), key); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c2.Claim(ctx, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second Cache of this process claimed a held key: %v", err)
	}
	// Closing c1 releases its lease: c2 gets the key at once.
	got := make(chan error, 1)
	go func() {
		r, err := c2.Claim(context.Background(), key)
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	if err := c1.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("closing the holder did not release its claim")
	}
	if _, err := c1.Claim(context.Background(), key); err == nil {
		t.Fatal("claim on a closed cache succeeded")
	}
}

func TestClaimTakeover(t *testing.T) {
	// A process that has exited: its pid and start time are dead.
	dead := exec.Command("true")
	if err := dead.Start(); err != nil {
		t.Fatal(err)
	}
	deadStart, err := procStart(dead.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	dead.Wait()
	parent := os.Getppid()
	parentStart, err := procStart(parent)
	if err != nil {
		t.Fatal(err)
	}
	c := openTest(t)
	future := time.Now().Add(time.Hour).UnixNano()
	past := time.Now().Add(-time.Second).UnixNano()
	tests := []struct {
		name              string
		host              string
		pid               int
		start             string
		expires           int64
		takesOver         bool
		wantHolderStarted bool
	}{
		{"dead process", c.self.host, dead.Process.Pid, deadStart, future, true, false},
		{"reused pid", c.self.host, parent, parentStart + "1", future, true, false},
		{"expired lease of a live process", c.self.host, parent, parentStart, past, true, false},
		{"leftover of this process", c.self.host, c.self.pid, c.self.start, future, true, false},
		{"live process", c.self.host, parent, parentStart, future, false, false},
		{"other host, not expired", "elsewhere.example", 1, "1", future, false, false},
		{"other host, expired", "elsewhere.example", 1, "1", past, true, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := testRecord("takeover", i).Key
			if _, err := c.db.Exec(`INSERT INTO leases (key, host, pid, pstart, claim, expires) VALUES (?, ?, ?, ?, 0, ?)`,
				key, tt.host, tt.pid, tt.start, tt.expires); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			release, err := c.Claim(ctx, key)
			if tt.takesOver {
				if err != nil {
					t.Fatalf("claim: %v, want a takeover", err)
				}
				var pid int
				if err := c.db.QueryRow(`SELECT pid FROM leases WHERE key = ?`, key).Scan(&pid); err != nil || pid != c.self.pid {
					t.Fatalf("lease holder %d (%v), want this process %d", pid, err, c.self.pid)
				}
				release()
			} else if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("claim of a live lease: %v, want to wait until the deadline", err)
			}
			// TryClaim decides the same without waiting.
			if _, err := c.db.Exec(`INSERT OR REPLACE INTO leases (key, host, pid, pstart, claim, expires) VALUES (?, ?, ?, ?, 0, ?)`,
				key, tt.host, tt.pid, tt.start, tt.expires); err != nil {
				t.Fatal(err)
			}
			t0 := time.Now()
			release, ok, err := c.TryClaim(key)
			if err != nil || ok != tt.takesOver || time.Since(t0) > 5*time.Second {
				t.Fatalf("TryClaim: ok=%v err=%v after %v, want ok=%v at once", ok, err, time.Since(t0), tt.takesOver)
			}
			if ok {
				release()
			}
		})
	}
}

// TryClaim never waits: a claim held in this process (by any Cache on the
// directory) makes it fail until released.
func TestTryClaimInProcess(t *testing.T) {
	c1 := openTest(t)
	c2, err := Open(c1.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	key := testRecord("try", 0).Key
	release, ok, err := c1.TryClaim(key)
	if err != nil || !ok {
		t.Fatalf("first TryClaim: ok=%v err=%v", ok, err)
	}
	for name, c := range map[string]*Cache{"same cache": c1, "other cache": c2} {
		if _, ok, err := c.TryClaim(key); ok || err != nil {
			t.Errorf("%s: TryClaim of a held key: ok=%v err=%v, want false", name, ok, err)
		}
	}
	release()
	release2, ok, err := c2.TryClaim(key)
	if err != nil || !ok {
		t.Fatalf("TryClaim after release: ok=%v err=%v", ok, err)
	}
	var n int
	c1.db.QueryRow(`SELECT count(*) FROM leases WHERE key = ?`, key).Scan(&n)
	release2()
	var after int
	c1.db.QueryRow(`SELECT count(*) FROM leases WHERE key = ?`, key).Scan(&after)
	if n != 1 || after != 0 {
		t.Errorf("lease rows while held %d, after release %d; want 1 and 0", n, after)
	}
}

func TestClaimWaitsForKilledProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cmd := helperCmd(t, "hold", dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	buf := make([]byte, 8)
	if _, err := out.Read(buf); err != nil || !strings.HasPrefix(string(buf), "holding") {
		t.Fatalf("helper: %q %v", buf, err)
	}
	key := testRecord("held", 0).Key
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	if _, err := c.Claim(ctx, key); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("claim of a key a live process holds: %v", err)
	}
	cancel()
	got := make(chan error, 1)
	go func() {
		r, err := c.Claim(context.Background(), key)
		if err == nil {
			r()
		}
		got <- err
	}()
	time.Sleep(30 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the claim was not taken over after the holder was killed")
	}
}

func TestTwoProcessesClaimAndStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	c, err := Open(dir) // create the index before the race
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	outs := make([]bytes.Buffer, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range 2 {
		cmd := helperCmd(t, "claimstore", dir)
		cmd.Stdout = &outs[i]
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Run(); err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, stderr.String())
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("process %d: %v", i, err)
		}
	}
	computed := map[string]int{}
	for _, o := range outs {
		for _, line := range strings.Fields(strings.ReplaceAll(o.String(), "computed ", "c")) {
			computed[line]++
		}
	}
	for i := range 12 {
		if n := computed["c"+strconv.Itoa(i)]; n != 1 {
			t.Errorf("key %d computed %d times, want once (outputs %q, %q)", i, n, outs[0].String(), outs[1].String())
		}
	}
	c, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range 12 {
		refs := mustLookup(t, c, testRecord("claim", i).Key)
		a, err := c.Load(refs[0])
		if err != nil {
			t.Fatal(err)
		}
		if v := values(a); len(v) != 1000 || v[0] != float64(i) {
			t.Fatalf("key %d holds %v…", i, v[:min(3, len(v))])
		}
	}
	rep, err := c.Verify()
	if err != nil || len(rep.Problems) > 0 || rep.Orphans > 0 || rep.Checked != 12 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	var n int
	if err := c.db.QueryRow(`SELECT count(*) FROM leases`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d leases left (%v)", n, err)
	}
}

func TestKillDuringStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	delays := []time.Duration{0, 10 * time.Millisecond, 30 * time.Millisecond, 60 * time.Millisecond}
	if testing.Short() {
		delays = delays[:1]
	}
	for round, delay := range delays {
		cmd := helperCmd(t, "storeloop", dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait until the child is storing its second key, then kill it.
		buf := make([]byte, 0, 64)
		tmp := make([]byte, 64)
		for !bytes.Contains(buf, []byte("storing 1\n")) {
			n, err := out.Read(tmp)
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("round %d: helper output %q: %v", round, buf, err)
			}
			buf = append(buf, tmp[:n]...)
		}
		time.Sleep(delay)
		cmd.Process.Kill() // SIGKILL
		cmd.Wait()

		c, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := c.Verify()
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("round %d: verify after kill -9: %+v %v", round, rep, err)
		}
		complete := 0
		for i := 0; i < 100; i++ {
			rec := testRecord("kill", i)
			refs, ok, err := c.Lookup(rec.Key)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				continue
			}
			complete++
			if len(refs) != 2 {
				t.Fatalf("round %d: key %d has %d outputs", round, i, len(refs))
			}
			for _, r := range refs {
				a, err := c.Load(r)
				if err != nil {
					t.Fatalf("round %d: key %d: %v", round, i, err)
				}
				want := float64(i)
				if r.Name == "b" {
					want = -want
				}
				if v := values(a); len(v) != 1<<19 || v[0] != want {
					t.Fatalf("round %d: key %d/%s holds %d values starting %v", round, i, r.Name, len(v), v[:1])
				}
			}
		}
		tmps, _ := os.ReadDir(filepath.Join(dir, tmpDir))
		t.Logf("round %d (kill %v after key 1 began): %d keys complete, %d orphan payloads, %d temp files", round, delay, complete, rep.Orphans, len(tmps))
		if complete < 1 {
			t.Fatalf("round %d: no key complete, the child stored key 0 before key 1", round)
		}
		// gc removes the dead writer's temp files (orphan objects are young,
		// so they stay until the grace period passed).
		if _, err := c.GC(GCOptions{KeepRuns: 1, OlderThan: time.Hour}); err != nil {
			t.Fatal(err)
		}
		if tmps, _ := os.ReadDir(filepath.Join(dir, tmpDir)); len(tmps) != 0 {
			t.Fatalf("round %d: gc left %d temp files of a dead writer", round, len(tmps))
		}
		c.Close()
	}
}

// TestKillAtEachStorePoint kills a process with SIGKILL at each point of
// Store where it can die (temp file written, payload renamed but not
// indexed, all payloads in place before the index transaction): the cache
// must verify clean, the key must be absent, gc must remove the leftovers,
// and storing the key again must work.
func TestKillAtEachStorePoint(t *testing.T) {
	for _, point := range []string{"temp-written", "renamed", "indexing"} {
		t.Run(point, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			cmd := helperCmd(t, "killat-"+point, dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 64)
			n, _ := out.Read(buf)
			if got := string(buf[:n]); got != "at "+point+"\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("helper said %q (stderr %q)", got, stderr.String())
			}
			cmd.Process.Kill()
			cmd.Wait()

			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			rep, err := c.Verify()
			if err != nil || len(rep.Problems) > 0 {
				t.Fatalf("verify after kill -9: %+v %v", rep, err)
			}
			mustLookup(t, c, testRecord("kill", 0).Key)
			k1 := testRecord("kill", 1)
			if _, ok, err := c.Lookup(k1.Key); ok || err != nil {
				t.Fatalf("key 1 after a kill inside its Store: ok=%v err=%v", ok, err)
			}
			// The two outputs are written concurrently: when the first
			// reaches the point, the other is at most there.
			tmps, _ := os.ReadDir(filepath.Join(dir, tmpDir))
			orphans := rep.Orphans
			ok := map[string]bool{
				"temp-written": orphans == 0 && len(tmps) >= 1 && len(tmps) <= 2,
				"renamed":      orphans >= 1 && orphans+len(tmps) <= 2,
				"indexing":     orphans == 2 && len(tmps) == 0,
			}[point]
			if !ok {
				t.Fatalf("after the kill: %d orphan payloads and %d temp files", orphans, len(tmps))
			}
			// gc removes the dead writer's temp file at once and orphans
			// once they are older than the grace period.
			old := time.Now().Add(-2 * orphanGrace)
			files, _ := c.walkObjects()
			for _, f := range files {
				os.Chtimes(f.path, old, old)
			}
			gc, err := c.GC(GCOptions{KeepRuns: 10, OlderThan: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			tmps, _ = os.ReadDir(filepath.Join(dir, tmpDir))
			if gc.Objects != orphans || gc.Keys != 0 || len(tmps) != 0 {
				t.Fatalf("gc %+v left %d temp files, want %d objects removed and no temp file", gc, len(tmps), orphans)
			}
			refs := mustStore(t, c, k1, map[string]artifact.Artifact{"a": valueArtifact(1, 1000), "b": valueArtifact(-1, 1000)})
			if a, err := c.Load(refs[1]); err != nil {
				t.Fatal(err)
			} else if v := values(a); v[0] != -1 {
				t.Fatalf("key 1 output b holds %v…", v[:1])
			}
			if rep, err := c.Verify(); err != nil || len(rep.Problems) > 0 || rep.Orphans != 0 {
				t.Fatalf("verify after the rerun: %+v %v", rep, err)
			}
		})
	}
}

func TestGC(t *testing.T) {
	c := openTest(t)
	store := func(name string, v float64, inputs ...string) *KeyRecord {
		rec := &KeyRecord{Address: name, StageType: "t", Version: "1", Params: map[string]string{"name": `"` + name + `"`}, Inputs: map[string][]string{}}
		for _, in := range inputs {
			rec.Inputs["in"] = append(rec.Inputs["in"], in+"/out")
		}
		ComputeKey(rec)
		mustStore(t, c, rec, map[string]artifact.Artifact{"out": valueArtifact(v, 10)})
		return rec
	}
	run := func(keys ...*KeyRecord) {
		id, err := c.BeginRun("p", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if err := c.RecordStage(id, StageRecord{Address: k.Address, Key: k.Key, Status: "ran"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.FinishRun(id, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	a := store("a", 1)
	b := store("b", 2)
	b2 := store("b2", 2) // same payload as b
	x := store("x", 3)
	run(a, b)
	run(x, b2)
	d := store("d", 4, a.Key) // input a; referenced by no run
	_ = d
	// An orphan payload: an old one is swept, a young one is kept.
	oldOrphan, _, err := c.writeObject(func(w io.Writer) error { _, err := w.Write([]byte("old orphan")); return err })
	if err != nil {
		t.Fatal(err)
	}
	youngOrphan, _, err := c.writeObject(func(w io.Writer) error { _, err := w.Write([]byte("young orphan")); return err })
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * orphanGrace)
	os.Chtimes(c.objectPath(oldOrphan), old, old)

	keys := func() []string {
		list, err := c.List()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range list {
			out = append(out, a.Address)
		}
		return out
	}
	// Keeping the last run: x and b2 (b's payload stays with b2), and d is
	// gone; a and b go too.
	dry, err := c.GC(GCOptions{KeepRuns: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := keys(); !reflect.DeepEqual(got, []string{"a", "b", "b2", "d", "x"}) {
		t.Fatalf("dry run removed keys: %v", got)
	}
	// The dry run names what it would remove, with the stored outputs.
	var named []string
	for _, g := range dry.Removed {
		named = append(named, g.Address)
		if len(g.Outputs) == 0 || g.Outputs[0].Key != g.Key || g.Outputs[0].Size <= 0 || g.Outputs[0].Digest == "" {
			t.Errorf("dry run: %s: outputs %+v", g.Address, g.Outputs)
		}
	}
	if !reflect.DeepEqual(named, []string{"a", "b", "d"}) {
		t.Errorf("dry run would remove %v, want [a b d]", named)
	}
	rep, err := c.GC(GCOptions{KeepRuns: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep, dry) {
		t.Errorf("gc report %+v, dry run said %+v", rep, dry)
	}
	if got := keys(); !reflect.DeepEqual(got, []string{"b2", "x"}) {
		t.Fatalf("after gc: %v, want [b2 x]", got)
	}
	// a (1) and d (4) payloads and the old orphan; b's payload is b2's.
	if rep.Keys != 3 || rep.Objects != 3 {
		t.Errorf("gc report %+v, want 3 keys (a b d) and 3 objects (a d old-orphan)", rep)
	}
	if _, err := os.Stat(c.objectPath(youngOrphan)); err != nil {
		t.Errorf("gc removed a young orphan: %v", err)
	}
	if _, err := os.Stat(c.objectPath(oldOrphan)); !os.IsNotExist(err) {
		t.Errorf("gc kept an old orphan: %v", err)
	}
	if vr, err := c.Verify(); err != nil || len(vr.Problems) > 0 || vr.Orphans != 1 {
		t.Fatalf("verify after gc: %+v %v", vr, err)
	}

	// Inputs of kept keys are kept, and the age rule keeps recent keys.
	e := store("e", 5)
	f := store("f", 6, e.Key)
	g := store("g", 7)
	run(f)
	if _, err := c.GC(GCOptions{KeepRuns: 1}); err != nil {
		t.Fatal(err)
	}
	if got := keys(); !reflect.DeepEqual(got, []string{"e", "f"}) {
		t.Fatalf("after gc keeping f's run: %v, want [e f] (e is f's input)", got)
	}
	g = store("g", 7)
	if _, err := c.GC(GCOptions{KeepRuns: 1, OlderThan: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if got := keys(); !reflect.DeepEqual(got, []string{"e", "f", "g"}) {
		t.Fatalf("after gc with an age rule: %v, want [e f g]", got)
	}
	_ = g
	if err := c.Clear(); err != nil {
		t.Fatal(err)
	}
	st, err := c.Stats()
	if err != nil || st != (Stats{}) {
		t.Fatalf("stats after clear: %+v %v", st, err)
	}
	if files, _ := c.walkObjects(); len(files) != 0 {
		t.Fatalf("%d payload files after clear", len(files))
	}
}

func TestVerifyFindsDamage(t *testing.T) {
	c := openTest(t)
	r1 := mustStore(t, c, testRecord("v", 1), map[string]artifact.Artifact{"out": valueArtifact(1, 10)})
	r2 := mustStore(t, c, testRecord("v", 2), map[string]artifact.Artifact{"out": valueArtifact(2, 10)})
	mustStore(t, c, testRecord("v", 3), map[string]artifact.Artifact{"out": valueArtifact(3, 10)})
	os.Remove(c.objectPath(r1[0].Digest))
	p2 := c.objectPath(r2[0].Digest)
	os.Chmod(p2, 0o644)
	if err := os.WriteFile(p2, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(c.dir, objectsDir, "zz", "notes.txt")
	os.MkdirAll(filepath.Dir(stray), 0o755)
	os.WriteFile(stray, []byte("x"), 0o644)
	rep, err := c.Verify()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"content has sha256", "not a payload", "is missing"}
	if len(rep.Problems) != len(want) || rep.Checked != 2 {
		t.Fatalf("verify: %+v", rep)
	}
	for _, w := range want {
		found := false
		for _, p := range rep.Problems {
			found = found || strings.Contains(p, w)
		}
		if !found {
			t.Errorf("no problem mentions %q: %q", w, rep.Problems)
		}
	}
}

func TestExport(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022))
	c := openTest(t)
	rec := testRecord("export", 0)
	refs := mustStore(t, c, rec, map[string]artifact.Artifact{"a": valueArtifact(1, 3), "b": valueArtifact(2, 3)})
	dir := t.TempDir()
	tests := []struct {
		output, want string
		err          error
	}{
		{"", "a", nil},
		{"b", "b", nil},
		{"c", "", ErrNotFound},
	}
	for _, tt := range tests {
		file := filepath.Join(dir, "out-"+tt.output+".zip")
		err := c.Export(rec.Key, tt.output, file)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("export %q: %v, want %v", tt.output, err, tt.err)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) {
				t.Errorf("export %q left a file", tt.output)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		// The user's file has the mode os.Create gives (0666 less the
		// umask, 022 here), not a temp file's 0600.
		if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("export %q: mode %v (%v), want -rw-r--r--", tt.output, st.Mode(), err)
		}
		got, _ := os.ReadFile(file)
		var ref OutputRef
		for _, r := range refs {
			if r.Name == tt.want {
				ref = r
			}
		}
		want, _ := os.ReadFile(c.objectPath(ref.Digest))
		if !bytes.Equal(got, want) || len(got) == 0 {
			t.Errorf("export %q: %d bytes differ from the payload of %s (%d bytes)", tt.output, len(got), tt.want, len(want))
		}
	}
	if err := c.Export(strings.Repeat("0", 64), "", filepath.Join(dir, "x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("export of an unknown key: %v", err)
	}
}

func TestParseStatStart(t *testing.T) {
	tail := " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 4242 20 21\n"
	tests := []struct {
		stat, want string
		ok         bool
	}{
		{"123 (hylaflow)" + tail, "4242", true},
		{"123 (a b) (c))" + tail, "4242", true},
		{"123 (short) S 1 2 3", "", false},
		{"123 no parens", "", false},
		{"123 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 x42 20", "", false},
	}
	for _, tt := range tests {
		got, err := parseStatStart([]byte(tt.stat))
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("parseStatStart(%q) = %q, %v; want %q (ok %v)", tt.stat, got, err, tt.want, tt.ok)
		}
	}
	self, err := procStart(os.Getpid())
	if err != nil || self == "" {
		t.Fatalf("start time of this process: %q %v", self, err)
	}
}

// A run whose process died shows as interrupted; gc keeps what a run in
// progress uses even when no run is retained.
func TestInterruptedRunAndGCDuringRun(t *testing.T) {
	c := openTest(t)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.db.Exec(`INSERT INTO runs (pipeline, args, start, duration, status, host, pid, pstart)
		VALUES ('old', '[]', 1, 0, 'running', ?, ?, '1')`, c.self.host, dead.Process.Pid); err != nil {
		t.Fatal(err)
	}
	old := mustStore(t, c, testRecord("gcrun", 0), map[string]artifact.Artifact{"out": valueArtifact(0, 3)})
	// Make the old key look unused since long before the live run began.
	if _, err := c.db.Exec(`UPDATE keys SET last_used = 1 WHERE key = ?`, old[0].Key); err != nil {
		t.Fatal(err)
	}
	id, err := c.BeginRun("live", nil)
	if err != nil {
		t.Fatal(err)
	}
	cur := testRecord("gcrun", 1)
	mustStore(t, c, cur, map[string]artifact.Artifact{"out": valueArtifact(1, 3)})
	runs, err := c.Runs(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].ID != id || runs[0].Status != "running" || runs[1].Status != RunInterrupted {
		t.Fatalf("runs: %+v", runs)
	}
	rep, err := c.GC(GCOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Keys != 1 {
		t.Errorf("gc removed %d keys, want 1 (the old one)", rep.Keys)
	}
	mustLookup(t, c, cur.Key)
	if _, ok, _ := c.Lookup(old[0].Key); ok {
		t.Error("gc kept a key no run uses")
	}
	if err := c.FinishRun(id, "ok"); err != nil {
		t.Fatal(err)
	}
	if rep, err := c.GC(GCOptions{}); err != nil || rep.Keys != 1 {
		t.Errorf("gc after the run finished, retaining no run: %+v %v, want the key removed", rep, err)
	}
}
