package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skip and Fatalf instead of stopping.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Skip(args ...any)               { r.skipped = fmt.Sprint(args...) }
func (r *recorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

func TestDataAndShared(t *testing.T) {
	shared := t.TempDir()
	if err := os.MkdirAll(filepath.Join(shared, "datasets", "planetoid"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(shared, "paper"), 0o755); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(shared, "datasets")
	for _, tc := range []struct {
		name       string
		data, shrd string // environment (empty = unset)
		ci         bool
		call       func(testing.TB) string
		want       string // returned path when found
		skip, fail string // substrings of the message ("" = none expected)
	}{
		{"data from HYLAFLOW_DATA", data, "", false, func(tb testing.TB) string { return Data(tb, "planetoid") }, filepath.Join(data, "planetoid"), "", ""},
		{"data from HYLAFLOW_SHARED", "", shared, false, func(tb testing.TB) string { return Data(tb, "planetoid") }, filepath.Join(data, "planetoid"), "", ""},
		{"HYLAFLOW_DATA wins", filepath.Join(shared, "paper"), shared, false, func(tb testing.TB) string { return Data(tb) }, filepath.Join(shared, "paper"), "", ""},
		{"missing data skips", data, "", false, func(tb testing.TB) string { return Data(tb, "hgcn") },
			"", filepath.Join(data, "hgcn") + " does not exist; set HYLAFLOW_DATA to the datasets folder or HYLAFLOW_SHARED", ""},
		{"missing data fails on CI", data, "", true, func(tb testing.TB) string { return Data(tb, "hgcn") },
			"", "", "needs the shared datasets: " + filepath.Join(data, "hgcn") + " does not exist"},
		{"paper", "", shared, false, func(tb testing.TB) string { return Shared(tb, "paper") }, filepath.Join(shared, "paper"), "", ""},
		{"missing paper skips", "", shared, false, func(tb testing.TB) string { return Shared(tb, "paper", "hyla.tex") },
			"", "needs the shared folder: " + filepath.Join(shared, "paper", "hyla.tex") + " does not exist; set HYLAFLOW_SHARED", ""},
		{"missing paper fails on CI", "", shared, true, func(tb testing.TB) string { return Shared(tb, "paper", "hyla.tex") },
			"", "", "(CI=true: a missing requirement fails instead of skipping)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvData, tc.data)
			t.Setenv(EnvShared, tc.shrd)
			t.Setenv("CI", map[bool]string{true: "true", false: ""}[tc.ci])
			r := &recorder{}
			got := tc.call(r)
			switch {
			case tc.want != "" && (got != tc.want || r.skipped != "" || r.failed != ""):
				t.Errorf("got %q (skipped %q, failed %q), want %q", got, r.skipped, r.failed, tc.want)
			case tc.skip != "" && (!strings.Contains(r.skipped, tc.skip) || r.failed != ""):
				t.Errorf("skipped %q, failed %q; want a skip containing %q", r.skipped, r.failed, tc.skip)
			case tc.fail != "" && (!strings.Contains(r.failed, tc.fail) || r.skipped != ""):
				t.Errorf("failed %q, skipped %q; want a failure containing %q", r.failed, r.skipped, tc.fail)
			}
		})
	}
}

// Without the variables, the shared folder is the one beside the
// repository's root, whatever package directory the test runs in.
func TestSharedDirBesideRepository(t *testing.T) {
	t.Setenv(EnvShared, "")
	t.Setenv(EnvData, "")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Dir(filepath.Dir(wd)) // internal/testenv → the root
	if _, err := os.Stat(filepath.Join(repo, "go.mod")); err != nil {
		t.Fatalf("no go.mod two levels up from %s: %v", wd, err)
	}
	want := filepath.Join(filepath.Dir(repo), "shared")
	if got := SharedDir(); got != want {
		t.Errorf("SharedDir() = %q, want %q", got, want)
	}
	if got := DataRoot(); got != filepath.Join(want, "datasets") {
		t.Errorf("DataRoot() = %q, want %q", got, filepath.Join(want, "datasets"))
	}
}
