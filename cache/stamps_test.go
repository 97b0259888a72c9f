package cache

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/internal/filedigest"
)

// settle shortens filedigest.RacyWindow for the test and waits it out, so
// that files written so far have settled stamps.
func settle(t *testing.T) {
	t.Helper()
	if filedigest.RacyWindow > 5*time.Millisecond {
		old := filedigest.RacyWindow
		filedigest.RacyWindow = 5 * time.Millisecond
		t.Cleanup(func() { filedigest.RacyWindow = old })
	}
	time.Sleep(2 * filedigest.RacyWindow)
}

// flipByteKeepTime flips the last byte of the file at path and sets its
// modification time back, as a tool that "preserves times" would.
func flipByteKeepTime(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0x40
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// Issue 35: a leaf's payload is re-hashed only when its stamp changed since
// it was last hashed, and damage is still found: a byte rewritten with the
// modification time set back changes the change time; a file replaced by
// another (new inode) is read again; damage that leaves the stamp as it was
// (the storage corrupting bytes under the file system: simulated by
// recording the damaged file's stamp) is served by the check — as documented
// — but found by Verify and by Load, and by the check once the stamp is
// older than RehashAfter.
func TestCheckPayloadsSkipsUnchangedFiles(t *testing.T) {
	c := openTest(t)
	rec := testRecord("leaf", 0)
	refs := mustStore(t, c, rec, map[string]artifact.Artifact{"out": valueArtifact(1, 50)})
	path := c.objectPath(refs[0].Digest)
	check := func(name string, wantHashed bool, wantErr error) {
		t.Helper()
		before := filesHashed.Load()
		err := c.CheckPayloads(refs, true)
		if hashed := filesHashed.Load() != before; hashed != wantHashed {
			t.Errorf("%s: hashed=%v, want %v", name, hashed, wantHashed)
		}
		if (wantErr == nil) != (err == nil) || wantErr != nil && !errors.Is(err, wantErr) {
			t.Errorf("%s: %v, want %v", name, err, wantErr)
		}
		if err := c.flush(); err != nil {
			t.Fatal(err)
		}
	}
	check("just written (not settled)", true, nil)
	check("still not settled: not recorded", true, nil)
	settle(t)
	check("settled: hashed and recorded", true, nil)
	check("unchanged", false, nil)
	check("unchanged again", false, nil)

	// A new Cache on the directory (another process) trusts the record.
	other, err := Open(c.dir)
	if err != nil {
		t.Fatal(err)
	}
	before := filesHashed.Load()
	if err := other.CheckPayloads(refs, true); err != nil || filesHashed.Load() != before {
		t.Errorf("another handle: %v, hashed %d files, want none", err, filesHashed.Load()-before)
	}
	other.Close()

	// A file replaced by a copy of itself: new inode, read again, sound.
	b, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	os.Remove(path)
	if err := os.WriteFile(path, b, 0o444); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, info.ModTime(), info.ModTime())
	settle(t)
	check("replaced by a copy", true, nil)
	check("copy unchanged", false, nil)

	// A byte rewritten, modification time set back: the change time moved.
	flipByteKeepTime(t, path)
	check("byte flipped, mtime restored", true, ErrCorrupt)
	check("byte flipped: found every time", true, ErrCorrupt)

	// Damage the stamp does not show: the row says the damaged file is
	// the one hashed.
	settle(t)
	st, _ := os.Stat(path)
	s := filedigest.StampOf(st)
	if _, err := c.db.Exec(`INSERT OR REPLACE INTO stamps (path, size, mtime, ctime, inode, digest, verified) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		payloadStampPath(refs[0].Digest), s.Size, s.Mtime, s.Ctime, int64(s.Inode), refs[0].Digest, time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	check("damage under the file system: served by the stamp", false, nil)
	rep, err := c.Verify()
	if err != nil || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], filepath.Base(path)) {
		t.Errorf("verify: %+v %v, want the damaged payload named", rep, err)
	}
	if _, err := c.db.Exec(`UPDATE stamps SET verified = ?`, time.Now().Add(-RehashAfter-time.Minute).UnixNano()); err != nil {
		t.Fatal(err)
	}
	check("stamp older than RehashAfter", true, ErrCorrupt)
	if _, err := c.Load(refs[0]); !errors.Is(err, ErrCorrupt) {
		t.Errorf("load of the damaged payload: %v", err)
	}
}

// Outside files' digests (filedigest.Sum through the cache) are read from
// the index when the file's stamp is unchanged, by any process, and
// hashed again when it changed — a same-size rewrite with the
// modification time set back included.
func TestFileDigestStore(t *testing.T) {
	c := openTest(t)
	c.UseForFileDigests()
	dir := t.TempDir()
	path := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(path, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	settle(t)
	sum, err := filedigest.Sum(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.flush(); err != nil {
		t.Fatal(err)
	}
	st, d, ok := c.FileDigest(path)
	if !ok || d != sum || st.Size != 8 {
		t.Fatalf("recorded: %+v %s %v, want %s", st, d, ok, sum)
	}
	// The record, not the file, gives the digest while the stamp is the
	// same: a record with another digest for the same stamp is returned
	// by a fresh process (simulated: the row rewritten, the memo bypassed
	// by a new path name for the same file).
	link := filepath.Join(dir, "link.csv")
	if err := os.Link(path, link); err != nil {
		t.Fatal(err)
	}
	settle(t)
	info, _ := os.Stat(link)
	c.recordStamp(link, filedigest.StampOf(info), "f00d", time.Now())
	if got, err := filedigest.Sum(link); err != nil || got != "f00d" {
		t.Errorf("Sum of an unchanged recorded file = %s, %v; want the record's digest", got, err)
	}
	// A same-size rewrite with the time set back is hashed again.
	flipByteKeepTime(t, link)
	got, err := filedigest.Sum(link)
	if err != nil || got == "f00d" || got == sum {
		t.Errorf("Sum after a rewrite = %s, %v; want the new contents' digest", got, err)
	}
	c.Close()
	if _, err := filedigest.Sum(path); err != nil {
		t.Errorf("Sum once the cache is closed: %v", err)
	}
}
