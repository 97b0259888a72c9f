package filedigest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func want(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// A same-size edit that keeps the modification time is seen while the file
// is recent (not remembered); a settled file's digest is remembered (not
// read again) until its stamp changes, which a same-size rewrite with the
// modification time set back does (its change time moves).
func TestSum(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("aaaa"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if err := os.Chtimes(p, now, now); err != nil {
		t.Fatal(err)
	}
	if got, err := Sum(p); err != nil || got != want([]byte("aaaa")) {
		t.Fatalf("Sum = %s, %v", got, err)
	}
	if err := os.WriteFile(p, []byte("bbbb"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, now, now); err != nil {
		t.Fatal(err)
	}
	if got, err := Sum(p); err != nil || got != want([]byte("bbbb")) {
		t.Fatalf("recent same-size edit: Sum = %s, %v; want the new contents' digest", got, err)
	}

	old := now.Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	defer func(w time.Duration) { RacyWindow = w }(RacyWindow)
	RacyWindow = 5 * time.Millisecond
	time.Sleep(3 * RacyWindow)
	for i := range 3 {
		before := hashed.Load()
		if got, _ := Sum(p); got != want([]byte("bbbb")) {
			t.Fatalf("settled file: Sum = %s", got)
		}
		if n := hashed.Load() - before; n != map[bool]int64{true: 1, false: 0}[i == 0] {
			t.Errorf("settled file, call %d: read %d times", i, n)
		}
	}
	if runtime.GOOS != "linux" {
		return // the change time is read on Linux only
	}
	if err := os.WriteFile(p, []byte("cccc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if got, _ := Sum(p); got != want([]byte("cccc")) {
		t.Fatalf("same-size rewrite, time set back: Sum = %s, want the new contents' digest", got)
	}
	if _, err := Sum(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("Sum of a missing file: no error")
	}
}
