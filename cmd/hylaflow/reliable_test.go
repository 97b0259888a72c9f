package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/filedigest"
	"github.com/hylaflow/hylaflow/internal/testenv"
)

// reliablePayload returns the payload file of the first output of address.
func reliablePayload(t *testing.T, cdir, address string) string {
	t.Helper()
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.List()
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, a := range list {
		if a.Address == address {
			found = append(found, filepath.Join(cdir, "objects", a.Digest[:2], a.Digest))
		}
	}
	if len(found) == 0 {
		t.Fatalf("%s has no stored outputs", address)
	}
	return found[0]
}

// reliableFlip flips one byte of a file, keeping its size.
func reliableFlip(t *testing.T, path string) {
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

// Issue 19 item 1: a payload with one byte flipped (same size) heals. The
// leaf the user reads is re-hashed before it is served from the cache;
// run --force and --no-cache rewrite a damaged file; verify --repair drops
// the damaged entries so the next run recomputes them.
func TestDamagedPayloadHeals(t *testing.T) {
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestRandom)
	cdir := filepath.Join(dir, "cache")
	run := func(args ...string) string {
		t.Helper()
		code, out, errs := runCmdDispatch(append([]string{"run", file, "--cache", cdir, "-j", "2"}, args...)...)
		if code != cli.ExitOK {
			t.Fatalf("run %q: exit %d\n%s%s", args, code, out, errs)
		}
		return out + errs
	}
	run()

	t.Run("leaf", func(t *testing.T) {
		reliableFlip(t, reliablePayload(t, cdir, "sum.all"))
		out := run()
		if !strings.Contains(out, "1 ran, 20 cached") || !strings.Contains(out, "hylaflow run: warning: sum.all: stored output damaged (") || !strings.Contains(out, "; recomputing it") {
			t.Fatalf("run with a damaged leaf:\n%s", out)
		}
		runCmdVerify(t, cdir)
	})
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"force", []string{"--force", `random.r["3"]`}},
		{"no-cache", []string{"--no-cache"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reliableFlip(t, reliablePayload(t, cdir, `random.r["3"]`))
			run(tc.args...)
			runCmdVerify(t, cdir)
		})
	}
	t.Run("repair", func(t *testing.T) {
		reliableFlip(t, reliablePayload(t, cdir, `random.r["3"]`))
		code, out, _ := runCmdDispatch("cache", "verify", "--cache", cdir)
		if code != cli.ExitFailed || !strings.Contains(out, "1 problems") || !strings.Contains(out, "--repair") {
			t.Fatalf("verify: exit %d\n%s", code, out)
		}
		code, out, errs := runCmdDispatch("cache", "verify", "--repair", "--cache", cdir)
		if code != cli.ExitOK || !strings.Contains(out, "repaired: dropped the outputs of 1 keys") {
			t.Fatalf("verify --repair: exit %d\n%s%s", code, out, errs)
		}
		runCmdVerify(t, cdir)
		out = run()
		if !strings.Contains(out, "1 ran, 20 cached") {
			t.Fatalf("run after the repair:\n%s", out)
		}
		runCmdVerify(t, cdir)
	})
}

// Issue 19 item 5: clear --yes recovers a cache whose index is damaged.
func TestClearRecoversDamagedIndex(t *testing.T) {
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestPipeline)
	cdir := filepath.Join(dir, "cache")
	if code, out, errs := runCmdDispatch("run", file, "--cache", cdir, "-q", "-var", "ms=1"); code != cli.ExitOK {
		t.Fatalf("run: exit %d\n%s%s", code, out, errs)
	}
	index := filepath.Join(cdir, "index.db")
	for _, f := range []string{index + "-wal", index + "-shm"} {
		os.Remove(f)
	}
	if err := os.WriteFile(index, bytes.Repeat([]byte("damaged "), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCmdDispatch("run", file, "--cache", cdir, "-q", "-var", "ms=1")
	if code != cli.ExitFailed || !strings.Contains(errs, "the index is damaged") || !strings.Contains(errs, "hylaflow cache clear --yes") {
		t.Fatalf("run on a damaged index: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmdDispatch("cache", "clear", "--yes", "--cache", cdir)
	if code != cli.ExitOK || !strings.Contains(out, "removed the damaged index and 3 payload files") {
		t.Fatalf("clear --yes on a damaged index: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmdDispatch("run", file, "--cache", cdir, "-var", "ms=1")
	if code != cli.ExitOK || !strings.Contains(errs, "10 ran, 0 cached") {
		t.Fatalf("run after clear: exit %d\n%s%s", code, out, errs)
	}
	runCmdVerify(t, cdir)
}

// Issue 35: a fully cached run re-hashes a leaf's payload only when its
// stamp (size, modification and change times, inode) changed since it was
// last hashed, and still finds damage: a byte rewritten with the
// modification time set back is recomputed with the warning. Damage that
// leaves the stamp as it was (the storage corrupting bytes under the file
// system; simulated by recording the damaged file's stamp in the index) is
// what `cache verify` is for: it finds it, --repair drops it, and the next
// run recomputes it.
func TestDamagedLeafFoundThroughStamps(t *testing.T) {
	dir := t.TempDir()
	file := testenv.WriteFile(t, dir, "p.hcl", runCmdTestRandom)
	cdir := filepath.Join(dir, "cache")
	run := func(want string) {
		t.Helper()
		code, out, errs := runCmdDispatch("run", file, "--cache", cdir, "-j", "2", "-q")
		if code != cli.ExitOK || !strings.Contains(out+errs, want) {
			t.Fatalf("run: exit %d, want %q in\n%s%s", code, want, out, errs)
		}
	}
	defer func(w time.Duration) { filedigest.RacyWindow = w }(filedigest.RacyWindow)
	filedigest.RacyWindow = 5 * time.Millisecond
	settle := func() { time.Sleep(3 * filedigest.RacyWindow) }
	restoreTime := func(path string, info os.FileInfo) {
		if err := os.Chtimes(path, info.ModTime(), info.ModTime()); err != nil {
			t.Fatal(err)
		}
	}

	run("21 ran, 0 cached")
	settle()
	run("nothing to do: all 21 stages cached") // hashes the leaf, records its stamp
	leaf := reliablePayload(t, cdir, "sum.all")
	info, _ := os.Stat(leaf)
	reliableFlip(t, leaf)
	restoreTime(leaf, info)
	run("stored output damaged (")
	runCmdVerify(t, cdir)

	settle()
	run("nothing to do: all 21 stages cached")
	leaf = reliablePayload(t, cdir, "sum.all")
	info, _ = os.Stat(leaf)
	reliableFlip(t, leaf)
	restoreTime(leaf, info)
	settle()
	st, _ := os.Stat(leaf)
	s := filedigest.StampOf(st)
	db, err := sql.Open("sqlite3", filepath.Join(cdir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec(`UPDATE stamps SET size = ?, mtime = ?, ctime = ?, inode = ?, verified = ? WHERE path = ?`,
		s.Size, s.Mtime, s.Ctime, int64(s.Inode), time.Now().UnixNano(), "objects/"+filepath.Base(filepath.Dir(leaf))+"/"+filepath.Base(leaf))
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("record the damaged stamp: %v (%d rows)", err, n)
	}
	db.Close()
	run("nothing to do: all 21 stages cached") // the stamp cannot show it
	code, out, _ := runCmdDispatch("cache", "verify", "--cache", cdir)
	if code != cli.ExitFailed || !strings.Contains(out, filepath.Base(leaf)) {
		t.Fatalf("verify of stamp-invisible damage: exit %d\n%s", code, out)
	}
	if code, out, errs := runCmdDispatch("cache", "verify", "--repair", "--cache", cdir); code != cli.ExitOK {
		t.Fatalf("verify --repair: exit %d\n%s%s", code, out, errs)
	}
	run("1 ran, 20 cached")
	runCmdVerify(t, cdir)
}
