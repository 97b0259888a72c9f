// Package testenv holds the tests' one rule for what they need from outside
// the repository — the shared benchmark files, the paper's LaTeX source, a
// system tool: when it is missing, a test skips with a message that names
// what it needs and how to provide it, except on CI (CI=true), where the same
// message fails the test, so CI never passes by skipping.
//
// The shared folder (datasets/ and paper/) is found as CI and the README
// arrange it: $HYLAFLOW_DATA for the datasets, $HYLAFLOW_SHARED for the
// whole folder, else shared/ beside the repository's root directory.
package testenv

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The environment variables that locate the shared folder.
const (
	EnvData   = "HYLAFLOW_DATA"   // the datasets folder (shared/datasets)
	EnvShared = "HYLAFLOW_SHARED" // the shared folder (datasets/, paper/)
)

// CI reports whether the tests run on CI: the environment has CI=true, as
// .ci/run and the common CI services set it.
func CI() bool { return os.Getenv("CI") == "true" }

// Missing reports that tb cannot run because something outside the
// repository is missing: it skips tb with the message, or fails it on CI.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if CI() {
		tb.Fatalf("%s (CI=true: a missing requirement fails instead of skipping)", msg)
		return // a testing.TB's Fatalf does not return; a stand-in's may
	}
	tb.Skip(msg)
}

// SharedDir returns the shared folder: $HYLAFLOW_SHARED, else shared/
// beside the repository's root directory (the directory holding go.mod,
// found upwards from the working directory). It does not check that the
// folder exists.
func SharedDir() string {
	if d := os.Getenv(EnvShared); d != "" {
		return d
	}
	return filepath.Join(filepath.Dir(repoRoot()), "shared")
}

// DataRoot returns the datasets folder: $HYLAFLOW_DATA, else the shared
// folder's datasets/. It does not check that the folder exists.
func DataRoot() string {
	if d := os.Getenv(EnvData); d != "" {
		return d
	}
	return filepath.Join(SharedDir(), "datasets")
}

// Data returns the absolute path of elem under the datasets folder (the
// folder itself without elem), after checking that it exists; when it does
// not, Missing skips tb (fails on CI) naming the path and how to provide it.
func Data(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{DataRoot()}, elem...)...)
	return need(tb, p, "the shared datasets", EnvData+" to the datasets folder or "+EnvShared+" to the shared/ folder")
}

// Shared returns the absolute path of elem under the shared folder, after
// checking that it exists, like Data.
func Shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{SharedDir()}, elem...)...)
	return need(tb, p, "the shared folder", EnvShared+" to the shared/ folder (it holds datasets/ and paper/)")
}

func need(tb testing.TB, p, what, how string) string {
	tb.Helper()
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	_, err := os.Stat(p)
	switch {
	case err == nil:
		return p
	case errors.Is(err, fs.ErrNotExist):
		Missing(tb, "needs %s: %s does not exist; set %s, or put shared/ beside the repository", what, p, how)
	default:
		Missing(tb, "needs %s: %v; set %s, or put shared/ beside the repository", what, err, how)
	}
	return p
}

// repoRoot returns the nearest directory upwards from the working directory
// that holds go.mod (a test runs in its package's directory), or the
// working directory when there is none.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := wd; ; {
		if st, err := os.Stat(filepath.Join(d, "go.mod")); err == nil && !st.IsDir() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return wd
		}
		d = up
	}
}
