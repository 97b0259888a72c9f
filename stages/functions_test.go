package stages

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func TestDatasetPresent(t *testing.T) {
	dir := t.TempDir() // the pipeline's directory
	t.Setenv("HYLAFLOW_DATA", filepath.Join(dir, "nowhere"))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	f := datasetPresentFunc(dir)
	call := func(args ...string) (bool, error) {
		vals := make([]cty.Value, len(args))
		for i, a := range args {
			vals[i] = cty.StringVal(a)
		}
		v, err := f.Call(vals)
		if err != nil {
			return false, err
		}
		return v.True(), nil
	}
	write := func(rel string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(want bool, args ...string) {
		t.Helper()
		got, err := call(args...)
		if err != nil || got != want {
			t.Errorf("dataset_present(%q) = %v, %v; want %v", args, got, err, want)
		}
	}
	check(false, "reddit", "data")
	check(false, "reddit")
	write("data/reddit/reddit.npz")
	check(false, "reddit", "data") // the adjacency is missing
	write("data/reddit/reddit_adj.npz")
	check(true, "reddit", "data") // relative to the pipeline's directory
	check(true, "reddit", filepath.Join(dir, "data"))
	check(false, "reddit") // not where a dataset stage without root looks
	t.Setenv("HYLAFLOW_DATA", filepath.Join(dir, "data"))
	check(true, "reddit")
	check(true, "synthetic_sbm") // generated: always there
	for _, tc := range []struct {
		args []string
		want string
	}{{[]string{"nosuch"}, "unknown dataset"}, {[]string{"reddit", "a", "b"}, "at most one root"}} {
		if _, err := call(tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("dataset_present(%q): error %v, want %q", tc.args, err, tc.want)
		}
	}
}
