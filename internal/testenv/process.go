package testenv

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The hylaflow binary of the process tests, built once per test binary.
var (
	binaryDir string
	binary    = sync.OnceValues(func() (string, error) {
		dir, err := os.MkdirTemp("", "hylaflow-test-bin-")
		if err != nil {
			return "", err
		}
		binaryDir = dir
		bin := filepath.Join(dir, "hylaflow")
		out, err := exec.Command("go", "build", "-o", bin, "github.com/hylaflow/hylaflow/cmd/hylaflow").CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("go build: %w\n%s", err, out)
		}
		return bin, nil
	})
)

// Binary returns the path of a hylaflow binary built from the repository
// once per test binary, for tests that run it as a separate process (kills,
// signals, resource limits). It skips tb with -short. Call RemoveBinary from
// TestMain after m.Run.
func Binary(tb testing.TB) string {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds the binary and runs processes; skipped with -short")
	}
	bin, err := binary()
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// RemoveBinary deletes the binary Binary built, if any.
func RemoveBinary() {
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
}

// WriteFile writes src to dir/name and returns the path, failing tb on error.
func WriteFile(tb testing.TB, dir, name, src string) string {
	tb.Helper()
	f := filepath.Join(dir, name)
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		tb.Fatal(err)
	}
	return f
}

// SyncBuffer is a bytes.Buffer that a process's output can be written to
// while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
