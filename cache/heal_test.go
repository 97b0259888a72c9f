package cache

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
)

// flipByte damages a payload file in place, keeping its size.
func flipByte(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	os.Chmod(path, 0o644)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A payload with one byte flipped keeps its size, so Lookup still serves
// it; CheckPayloads with rehash finds it, and storing the same outputs
// again (run --force, --no-cache) replaces the damaged file instead of
// trusting it because of its size.
func TestStoreReplacesDamagedPayload(t *testing.T) {
	c := openTest(t)
	rec := testRecord("heal", 0)
	outs := map[string]artifact.Artifact{"out": valueArtifact(1, 200)}
	refs := mustStore(t, c, rec, outs)
	path := c.objectPath(refs[0].Digest)
	flipByte(t, path)

	if err := c.CheckPayloads(refs, false); err != nil {
		t.Fatalf("size-only check of a same-size damage: %v, want nil", err)
	}
	err := c.CheckPayloads(refs, true)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), refs[0].Digest) {
		t.Fatalf("rehash check: %v, want ErrCorrupt naming %s and the expected digest", err, path)
	}
	mustStore(t, c, rec, outs)
	if err := c.CheckPayloads(refs, true); err != nil {
		t.Fatalf("after storing again: %v", err)
	}
	if rep, err := c.Verify(); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("verify after storing again: %+v %v", rep, err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o444 {
		t.Fatalf("replaced payload: %v %v, want a read-only file", info, err)
	}
}

// Lookup treats a payload of the wrong size as a miss.
func TestLookupChecksSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(path string) error
	}{
		{"truncated", func(p string) error { return os.Truncate(p, 10) }},
		{"grown", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			f.Write([]byte("x"))
			return f.Close()
		}},
		{"empty", func(p string) error { return os.Truncate(p, 0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := openTest(t)
			rec := testRecord("size", 0)
			refs := mustStore(t, c, rec, map[string]artifact.Artifact{"out": valueArtifact(2, 100)})
			path := c.objectPath(refs[0].Digest)
			os.Chmod(path, 0o644)
			if err := tc.damage(path); err != nil {
				t.Fatal(err)
			}
			if _, ok, err := c.Lookup(rec.Key); ok || err != nil {
				t.Fatalf("lookup of a %s payload: ok=%v err=%v, want a miss", tc.name, ok, err)
			}
			if err := c.CheckPayloads(refs, false); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "the index says") {
				t.Fatalf("size check: %v", err)
			}
		})
	}
}

// Repair drops every damaged entry, so the keys are misses (their records
// stay), and leaves a cache that verifies clean.
func TestRepair(t *testing.T) {
	c := openTest(t)
	store := func(i int) []OutputRef {
		return mustStore(t, c, testRecord("rep", i), map[string]artifact.Artifact{"out": valueArtifact(float64(i), 100)})
	}
	flipped, truncated, missing, sound := store(1), store(2), store(3), store(4)
	incomplete := store(5)
	flipByte(t, c.objectPath(flipped[0].Digest))
	p2 := c.objectPath(truncated[0].Digest)
	os.Chmod(p2, 0o644)
	os.Truncate(p2, 7)
	os.Remove(c.objectPath(missing[0].Digest))
	if _, err := c.db.Exec(`UPDATE keys SET outputs = 2 WHERE key = ?`, incomplete[0].Key); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(c.dir, objectsDir, "zz", "notes.txt")
	os.MkdirAll(filepath.Dir(stray), 0o755)
	os.WriteFile(stray, []byte("x"), 0o644)

	before, err := c.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Problems) != 5 || before.Repaired != nil {
		t.Fatalf("verify: %d problems %q, repaired %q; want 5 and nothing repaired", len(before.Problems), before.Problems, before.Repaired)
	}
	if _, ok, _ := c.Lookup(flipped[0].Key); !ok {
		t.Fatal("verify must not change the index")
	}
	rep, err := c.Repair()
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Problems) != 5 || rep.Unrepaired != 0 {
		t.Fatalf("repair: %+v", rep)
	}
	want := []string{"dropped the outputs of 4 keys (the next run recomputes them)", "removed 3 damaged or stray files under " + filepath.Join(c.dir, objectsDir)}
	if strings.Join(rep.Repaired, "\n") != strings.Join(want, "\n") {
		t.Fatalf("repaired %q, want %q", rep.Repaired, want)
	}
	for _, refs := range [][]OutputRef{flipped, truncated, missing, incomplete} {
		if _, ok, err := c.Lookup(refs[0].Key); ok || err != nil {
			t.Errorf("lookup of repaired key %s: ok=%v err=%v, want a miss", refs[0].Key, ok, err)
		}
		if _, ok, _ := c.Record(refs[0].Key); !ok {
			t.Errorf("the record of %s should stay", refs[0].Key)
		}
	}
	mustLookup(t, c, sound[0].Key)
	if after, err := c.Verify(); err != nil || len(after.Problems) != 0 {
		t.Fatalf("verify after repair: %+v %v", after, err)
	}
	// Recomputing the flipped key stores a sound payload.
	mustStore(t, c, testRecord("rep", 1), map[string]artifact.Artifact{"out": valueArtifact(1, 100)})
	if _, err := c.Load(mustLookup(t, c, flipped[0].Key)[0]); err != nil {
		t.Fatal(err)
	}
}

// A damaged index: Open says so and how to recover; Reset (clear --yes)
// empties the cache without reading it, and Open then works.
func TestDamagedIndexReset(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, path string) {
			os.WriteFile(path, bytes.Repeat([]byte("not sqlite "), 500), 0o644)
		}},
		{"pages overwritten", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Keep the 100-byte header; overwrite the rest of the first
			// page (the schema) and everything after it.
			for i := 100; i < len(b); i++ {
				b[i] = 0xA5
			}
			os.WriteFile(path, b, 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "cache")
			c, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				mustStore(t, c, testRecord("idx", i), map[string]artifact.Artifact{"out": valueArtifact(float64(i), 300)})
			}
			if _, err := c.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
			c.Close()
			tc.damage(t, filepath.Join(dir, indexFile))
			_, err = Open(dir)
			if !errors.Is(err, ErrIndexDamaged) || !strings.Contains(err.Error(), "hylaflow cache clear --yes") {
				t.Fatalf("open of a damaged index: %v, want ErrIndexDamaged with the recovery", err)
			}
			files, n, err := Reset(dir)
			if err != nil || files != 20 || n <= 0 {
				t.Fatalf("reset: %d files %d bytes %v, want the 20 payloads", files, n, err)
			}
			c, err = Open(dir)
			if err != nil {
				t.Fatalf("open after reset: %v", err)
			}
			defer c.Close()
			if s, err := c.Stats(); err != nil || s != (Stats{}) {
				t.Fatalf("stats after reset: %+v %v", s, err)
			}
			mustStore(t, c, testRecord("idx", 0), map[string]artifact.Artifact{"out": valueArtifact(0, 300)})
		})
	}
}
