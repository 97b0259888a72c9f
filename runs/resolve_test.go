package runs

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
)

// ResolveID takes numbers, "#N" and last/latest; LoadDiff compares the
// two runs named, or the last two, and says why it cannot.
func TestResolveIDAndLoadDiff(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := ResolveID(c, "last"); err == nil || !strings.Contains(err.Error(), "no runs recorded in ") {
		t.Errorf("last of no runs: %v", err)
	}
	if _, err := LoadDiff(c, nil); err == nil || !strings.Contains(err.Error(), "0 runs recorded in ") {
		t.Errorf("diff of no runs: %v", err)
	}
	var ids []int64
	for _, p := range []string{"a", "b", "c"} {
		id, err := c.BeginRun(p, []string{"run", p + ".hcl"})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.FinishRun(id, "ok"); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, tt := range []struct {
		arg  string
		want int64
		bad  bool
	}{
		{"2", 2, false}, {"#3", 3, false}, {"last", ids[2], false}, {"latest", ids[2], false},
		{"99", 99, false}, // not checked here: Load says there is no run 99
		{"0", 0, true}, {"-1", 0, true}, {"x", 0, true}, {"", 0, true},
	} {
		id, err := ResolveID(c, tt.arg)
		var bad *BadIDError
		if errors.As(err, &bad) != tt.bad || !tt.bad && (err != nil || id != tt.want) {
			t.Errorf("ResolveID(%q) = %d, %v; want %d (bad %v)", tt.arg, id, err, tt.want, tt.bad)
		}
		if tt.bad && err.Error() != `run id "`+tt.arg+`": want a positive number or "last"` {
			t.Errorf("ResolveID(%q): message %q", tt.arg, err)
		}
	}
	for _, tt := range []struct {
		args []string
		a, b string // pipelines of the runs compared
		err  string
	}{
		{nil, "b", "c", ""},
		{[]string{"1", "last"}, "a", "c", ""},
		{[]string{"1", "99"}, "", "", "no run 99"},
		{[]string{"1", "x"}, "", "", `run id "x"`},
		{[]string{"1"}, "", "", "want two runs to compare, got 1"},
	} {
		d, err := LoadDiff(c, tt.args)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("LoadDiff(%q): %v, want %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("LoadDiff(%q): %v", tt.args, err)
		case d.A.Pipeline != tt.a || d.B.Pipeline != tt.b:
			t.Errorf("LoadDiff(%q) compared %s with %s, want %s with %s", tt.args, d.A.Pipeline, d.B.Pipeline, tt.a, tt.b)
		}
	}
	if _, err := LoadDiff(c, []string{"1", "99"}); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("an unknown run is not cache.ErrNotFound: %v", err)
	}
}
