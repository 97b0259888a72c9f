package cache

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A run's provenance document is stored as given and returned with the
// run; a run without one has none; bad documents and unknown runs are
// refused.
func TestRunProvenance(t *testing.T) {
	c := openTest(t)
	with, err := c.BeginRun("quickstart", []string{"run", "q.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	without, err := c.BeginRun("quickstart", nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"version":"v1.2.3","vars":{"epochs":"50"}}`)
	if err := c.SetRunProvenance(with, doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		id   int64
		doc  []byte
		want error
	}{
		{"not JSON", with, []byte(`{"version":`), nil},
		{"empty", with, nil, nil},
		{"unknown run", 999, doc, ErrNotFound},
	} {
		err := c.SetRunProvenance(tc.id, tc.doc)
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: %v, want an error (%v)", tc.name, err, tc.want)
		}
	}
	for _, id := range []int64{with, without} {
		if err := c.FinishRun(id, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	d, err := c.Run(with)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(d.Provenance, doc) {
		t.Errorf("provenance %s, want %s", d.Provenance, doc)
	}
	d, err = c.Run(without)
	if err != nil {
		t.Fatal(err)
	}
	if d.Provenance != nil {
		t.Errorf("a run without provenance has %q", d.Provenance)
	}
	ro, err := OpenReadOnly(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.SetRunProvenance(with, doc); !errors.Is(err, ErrReadOnly) {
		t.Errorf("set provenance on a read-only cache: %v", err)
	}
}

// An index of schema version 1 (before provenance) is read as it is by a
// read-only open (its runs have no provenance; the file is not written),
// and upgraded by a writing open, whose later runs record provenance.
func TestSchema1IndexReadable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, indexFile)
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], `PRAGMA user_version = 1`,
		`INSERT INTO runs (pipeline, args, start, duration, status, host, pid, pstart)
		 VALUES ('quickstart', '["run","q.hcl"]', 1700000000000000000, 2000000000, 'ok', 'h', 1, '1')`,
		`INSERT INTO run_stages VALUES (1, 0, 'a', 'ka', 'ran', 'never run', 1700000000000000000, 5, '', '')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("read-only open of a schema 1 index: %v", err)
	}
	d, err := ro.Run(1)
	if err != nil {
		t.Fatal(err)
	}
	if d.Pipeline != "quickstart" || len(d.Stages) != 1 || d.Stages[0].Address != "a" || d.Provenance != nil {
		t.Errorf("run 1 of a schema 1 index: %+v", d)
	}
	if runs, err := ro.Runs(0); err != nil || len(runs) != 1 {
		t.Errorf("runs of a schema 1 index: %+v %v", runs, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
		t.Fatalf("the read-only open changed the index (%v)", err)
	}

	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.schema != len(migrations) {
		t.Fatalf("schema %d after a writing open, want %d", c.schema, len(migrations))
	}
	if d, err := c.Run(1); err != nil || d.Provenance != nil || d.Pipeline != "quickstart" {
		t.Fatalf("the old run after the upgrade: %+v %v", d, err)
	}
	id, err := c.BeginRun("quickstart", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetRunProvenance(id, []byte(`{"go":"go1.99"}`)); err != nil {
		t.Fatal(err)
	}
	if d, err := c.Run(id); err != nil || string(d.Provenance) != `{"go":"go1.99"}` {
		t.Fatalf("a new run after the upgrade: %+v %v", d, err)
	}
}
