package cache

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"testing"
)

// LastKeysOf gives each address the key of the latest run of the same
// pipeline that planned it: a later record within a run wins, another
// pipeline's runs do not count, a key whose record is gone (gc) is passed
// over for an earlier run's, and an address no run planned is absent.
func TestLastKeysOf(t *testing.T) {
	c := openTest(t)
	k := make([]string, 6)
	for i := range k {
		rec := testRecord("s", i)
		mustStore(t, c, rec, map[string]artifact.Artifact{"out": valueArtifact(float64(i), 2)})
		k[i] = rec.Key
	}
	gone := testRecord("gone", 0).Key // never stored: no record in the index
	runs := []struct {
		pipeline string
		stages   [][2]string // address, key in record order
	}{
		{"p", [][2]string{{"a", k[0]}, {"b", k[1]}, {"d", k[5]}}},
		{"q", [][2]string{{"a", k[2]}, {"c", k[2]}}},
		{"p", [][2]string{{"a", k[3]}, {"a", k[4]}}}, // a retried: the later record wins
		{"p", [][2]string{{"b", gone}}},
	}
	for _, r := range runs {
		id, err := c.BeginRun(r.pipeline, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.stages {
			if err := c.RecordStage(id, StageRecord{Address: s[0], Key: s[1], Status: "cached"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.FinishRun(id, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name      string
		pipeline  string
		addresses []string
		want      map[string]string
	}{
		{"p", "p", []string{"a", "b", "c", "d"}, map[string]string{"a": k[4], "b": k[1], "d": k[5]}},
		{"p, newest run only", "p", []string{"a"}, map[string]string{"a": k[4]}},
		{"q", "q", []string{"a", "b", "c"}, map[string]string{"a": k[2], "c": k[2]}},
		{"never ran", "r", []string{"a"}, map[string]string{}},
		{"no addresses", "p", nil, map[string]string{}},
	} {
		got, err := c.LastKeysOf(tt.pipeline, tt.addresses)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got, tt.want) {
			t.Errorf("%s: LastKeysOf = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// The removals count (Removals) moves with every change that removes or
// replaces stored outputs — gc that removes keys, repair, a damaged
// payload dropped by Load, a key stored again, clear — and with nothing
// else: storing a new key, touching, pinning, recording runs, a gc or
// repair that finds nothing to remove.
func TestRemovalsCount(t *testing.T) {
	c := openTest(t)
	recs := make([]*KeyRecord, 4)
	for i := range recs {
		recs[i] = testRecord("rm", i)
	}
	var last int64
	step := func(name string, wantMoved bool, f func() error) {
		t.Helper()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n, err := c.Removals()
		if err != nil {
			t.Fatal(err)
		}
		if moved := n != last; moved != wantMoved {
			t.Errorf("%s: removals %d → %d, want moved=%v", name, last, n, wantMoved)
		}
		last = n
	}
	store := func(i int, v float64) func() error {
		return func() error {
			_, err := c.Store(recs[i], map[string]artifact.Artifact{"out": valueArtifact(v, 3)})
			return err
		}
	}
	step("store new keys", false, func() error {
		for i := range recs {
			if err := store(i, float64(i))(); err != nil {
				return err
			}
		}
		return nil
	})
	step("touch, pin, run records", false, func() error {
		c.Touch(recs[0].Key)
		if err := c.Pin([]string{recs[1].Key}); err != nil {
			return err
		}
		id, err := c.BeginRun("p", nil)
		if err != nil {
			return err
		}
		for _, r := range recs {
			c.RecordStage(id, StageRecord{Address: r.Address, Key: r.Key, Status: "ran"})
		}
		return c.FinishRun(id, "ok")
	})
	step("gc keeping every key", false, func() error { _, err := c.GC(GCOptions{KeepRuns: 1}); return err })
	step("repair of a sound cache", false, func() error { _, err := c.Repair(); return err })
	step("a key stored again", true, store(0, 10))
	step("gc removing keys", true, func() error {
		rep, err := c.GC(GCOptions{KeepRuns: 0})
		if err == nil && rep.Keys == 0 {
			err = fmt.Errorf("gc removed nothing")
		}
		return err
	})
	step("store again", false, store(1, 1))
	step("load of a damaged payload", true, func() error {
		ref := mustLookup(t, c, recs[1].Key)[0]
		path := c.objectPath(ref.Digest)
		os.Chmod(path, 0o644)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b[len(b)-1] ^= 1
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
		if _, err := c.Load(ref); !errors.Is(err, ErrCorrupt) {
			return fmt.Errorf("load of a damaged payload: %v", err)
		}
		return nil
	})
	step("clear", true, c.Clear)
}

// PreloadLookups: lookups served from the preloaded rows answer as plain
// lookups do (stored, unknown, outputs dropped, payload file missing), a
// row serves one lookup, and a change to stored outputs (a Store) makes
// the next lookups query the index again.
func TestPreloadLookups(t *testing.T) {
	c := openTest(t)
	recs := make([]*KeyRecord, 4)
	for i := range recs {
		recs[i] = testRecord("pre", i)
		mustStore(t, c, recs[i], map[string]artifact.Artifact{"a": valueArtifact(float64(i), 2), "b": valueArtifact(float64(i)+10, 2)})
	}
	// recs[1]: outputs dropped; recs[2]: a payload file removed.
	if _, err := c.db.Exec(`UPDATE keys SET outputs = NULL WHERE key = ?`, recs[1].Key); err != nil {
		t.Fatal(err)
	}
	refs2 := mustLookup(t, c, recs[2].Key)
	os.Remove(c.objectPath(refs2[1].Digest))
	unknown := testRecord("pre", 99).Key
	keys := []string{recs[0].Key, recs[1].Key, recs[2].Key, recs[3].Key, unknown}
	type answer struct {
		refs []OutputRef
		ok   bool
	}
	plain := map[string]answer{}
	for _, k := range keys {
		refs, ok, err := c.Lookup(k)
		if err != nil {
			t.Fatal(err)
		}
		plain[k] = answer{refs, ok}
	}
	if !plain[recs[0].Key].ok || plain[recs[1].Key].ok || plain[recs[2].Key].ok || !plain[recs[3].Key].ok || plain[unknown].ok {
		t.Fatalf("plain lookups: %+v", plain)
	}
	done := c.PreloadLookups(keys)
	if len(c.preloaded) != len(keys) {
		t.Fatalf("%d rows preloaded, want %d", len(c.preloaded), len(keys))
	}
	for _, k := range keys {
		refs, ok, err := c.Lookup(k)
		if err != nil || ok != plain[k].ok || fmt.Sprint(refs) != fmt.Sprint(plain[k].refs) {
			t.Errorf("preloaded lookup of %s: %v %v %v, want %+v", k, refs, ok, err, plain[k])
		}
	}
	if len(c.preloaded) != 0 {
		t.Errorf("%d preloaded rows left after one lookup each", len(c.preloaded))
	}
	done()

	// A preloaded miss is not served after this Cache stores the key.
	rec := testRecord("pre", 100)
	c.PreloadLookups([]string{rec.Key})
	mustStore(t, c, rec, map[string]artifact.Artifact{"a": valueArtifact(100, 2)})
	mustLookup(t, c, rec.Key)
}

// Stage records buffered for two runs at once, more than one INSERT holds
// (and more than one flush), are written in order with their fields; those
// of a run cleared meanwhile are dropped.
func TestStageRecordsBatched(t *testing.T) {
	c := openTest(t)
	a, _ := c.BeginRun("p", nil)
	b, _ := c.BeginRun("p", nil)
	gone, _ := c.BeginRun("p", nil)
	if _, err := c.db.Exec(`DELETE FROM runs WHERE id = ?`, gone); err != nil { // cleared by another process
		t.Fatal(err)
	}
	start := time.Unix(1700000000, 123456789)
	n := 2*stageRowsPerInsert + 7
	for i := range n {
		for _, id := range []int64{a, b, gone} {
			s := StageRecord{Address: fmt.Sprintf("s%d", i), Key: fmt.Sprintf("k%d-%d", id, i), Status: "cached",
				Reason: "r", Start: start.Add(time.Duration(i)), Duration: time.Duration(id), Metrics: map[string]float64{"acc": float64(i)}}
			if err := c.RecordStage(id, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int64{a, b} {
		d, err := c.Run(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Stages) != n {
			t.Fatalf("run %d: %d stages, want %d", id, len(d.Stages), n)
		}
		for i, s := range d.Stages {
			if s.Address != fmt.Sprintf("s%d", i) || s.Key != fmt.Sprintf("k%d-%d", id, i) || !s.Start.Equal(start.Add(time.Duration(i))) ||
				s.Duration != time.Duration(id) || s.Metrics["acc"] != float64(i) || s.Reason != "r" {
				t.Fatalf("run %d stage %d: %+v", id, i, s)
			}
		}
	}
	var left int
	c.db.QueryRow(`SELECT count(*) FROM run_stages WHERE run_id = ?`, gone).Scan(&left)
	if left != 0 {
		t.Errorf("%d stage records of a cleared run", left)
	}
}
