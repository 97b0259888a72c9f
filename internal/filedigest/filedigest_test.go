package filedigest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func want(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// A same-size edit that keeps the modification time is seen while the file
// is recent (not remembered), and an old file's digest is remembered.
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
	if got, _ := Sum(p); got != want([]byte("bbbb")) {
		t.Fatalf("old file: Sum = %s", got)
	}
	// Remembered: the same path, size and time give the memo's digest.
	if err := os.WriteFile(p, []byte("cccc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	if got, _ := Sum(p); got != want([]byte("bbbb")) {
		t.Fatalf("old file's digest was not remembered: %s", got)
	}
	if _, err := Sum(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Fatal("Sum of a missing file: no error")
	}
}
