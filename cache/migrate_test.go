package cache

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
)

// oldCache makes, in a new directory, a cache whose index has schema
// version v (made by the migrations of that time, not by downgrading)
// holding rec's stored outputs — payload files and index rows copied from
// a current cache — and one finished run that used rec.
func oldCache(t *testing.T, v int, rec *KeyRecord, outs map[string]artifact.Artifact) (dir string, refs []OutputRef) {
	t.Helper()
	src := openTest(t)
	refs = mustStore(t, src, rec, outs)
	dir = filepath.Join(t.TempDir(), "old")
	path := filepath.Join(dir, indexFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, m := range migrations[:v] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	stmts := []struct {
		q    string
		args []any
	}{
		{fmt.Sprintf(`PRAGMA user_version = %d`, v), nil},
		{`INSERT INTO keys (key, address, stage_type, version, params, inputs, fingerprint, created, last_used, outputs)
		  VALUES (?, ?, ?, ?, ?, '{}', '', 1, 1, ?)`, []any{rec.Key, rec.Address, rec.StageType, rec.Version, mustJSON(rec.Params), len(refs)}},
		{`INSERT INTO runs (pipeline, args, start, duration, status, host, pid, pstart) VALUES ('p', '[]', 1, 1, 'ok', 'h', 1, '1')`, nil},
		{`INSERT INTO run_stages VALUES (1, 0, ?, ?, 'ran', 'never run', 1, 1, '', '')`, []any{rec.Address, rec.Key}},
	}
	for _, r := range refs {
		stmts = append(stmts, struct {
			q    string
			args []any
		}{`INSERT INTO artifacts (key, name, kind, digest, size) VALUES (?, ?, ?, ?, ?)`, []any{r.Key, r.Name, string(r.Kind), r.Digest, r.Size}})
	}
	for _, s := range stmts {
		if _, err := db.Exec(s.q, s.args...); err != nil {
			t.Fatalf("%s: %v", s.q, err)
		}
	}
	for _, r := range refs {
		b, err := os.ReadFile(src.objectPath(r.Digest))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, objectsDir, r.Digest[:2], r.Digest)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return dir, refs
}

// Issue 35: a cache whose index has an older schema opens and works — a
// read-only open reads it as it is (the removals count unknown), a writing
// open upgrades it to the current schema, and its stored outputs are still
// found, verified, loaded, counted and collected.
func TestOldSchemaCacheWorks(t *testing.T) {
	for v := 2; v < len(migrations); v++ {
		rec := testRecord("old", v)
		dir, refs := oldCache(t, v, rec, map[string]artifact.Artifact{"out": valueArtifact(float64(v), 5)})

		ro, err := OpenReadOnly(dir)
		if err != nil {
			t.Fatalf("schema %d: read-only open: %v", v, err)
		}
		want := int64(-1) // unknown before schema 3
		if v >= 3 {
			want = 0
		}
		if n, err := ro.Removals(); err != nil || n != want {
			t.Errorf("schema %d: read-only Removals = %d, %v; want %d", v, n, err, want)
		}
		if err := ro.CheckPayloads(mustLookup(t, ro, rec.Key), true); err != nil {
			t.Errorf("schema %d: read-only check: %v", v, err)
		}
		ro.Close()

		c, err := Open(dir)
		if err != nil {
			t.Fatalf("schema %d: open: %v", v, err)
		}
		if c.schema != len(migrations) {
			t.Errorf("schema %d: %d after a writing open, want %d", v, c.schema, len(migrations))
		}
		got := mustLookup(t, c, rec.Key)
		if len(got) != 1 || got[0] != refs[0] {
			t.Errorf("schema %d: lookup after the upgrade: %+v, want %+v", v, got, refs)
		}
		settle(t)
		if err := c.CheckPayloads(got, true); err != nil {
			t.Errorf("schema %d: %v", v, err)
		}
		if err := c.flush(); err != nil {
			t.Fatal(err)
		}
		if r, ok := c.readStamp(payloadStampPath(got[0].Digest)); !ok || r.digest != got[0].Digest {
			t.Errorf("schema %d: no stamp recorded for the checked payload after the upgrade", v)
		}
		a, err := c.Load(got[0])
		if err != nil || values(a)[0] != float64(v) {
			t.Errorf("schema %d: load: %v", v, err)
		}
		if keys, err := c.LastKeysOf("p", []string{rec.Address}); err != nil || keys[rec.Address] != rec.Key {
			t.Errorf("schema %d: history: %v %v", v, keys, err)
		}
		if n, err := c.Removals(); err != nil || n != 0 {
			t.Errorf("schema %d: Removals = %d, %v after the upgrade; want 0", v, n, err)
		}
		if rep, err := c.Verify(); err != nil || len(rep.Problems) != 0 {
			t.Errorf("schema %d: verify: %+v %v", v, rep, err)
		}
		if rep, err := c.GC(GCOptions{KeepRuns: 0}); err != nil || rep.Keys != 1 {
			t.Errorf("schema %d: gc: %+v %v", v, rep, err)
		}
		if n, _ := c.Removals(); n != 1 {
			t.Errorf("schema %d: Removals = %d after a gc, want 1", v, n)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// Issue 35: schema 5 drops the index of stage records by key, and the
// history's reads (a run's stages, in order) still search the records by
// run rather than scanning them.
func TestStageRecordsIndexedByRunOnly(t *testing.T) {
	c, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var n int
	if err := c.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'run_stages_key'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("run_stages_key still exists after the upgrade")
	}
	rows, err := c.db.Query(`EXPLAIN QUERY PLAN SELECT address, key FROM run_stages WHERE run_id = ? ORDER BY seq`, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if len(plan) != 1 || !strings.HasPrefix(plan[0], "SEARCH run_stages USING PRIMARY KEY (run_id=?)") {
		t.Errorf("a run's stages are read with plan %q, want a search of the primary key by run_id", plan)
	}
}
