package runs

import (
	"errors"
	"fmt"
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
	if _, _, err := ResolveID(c, "last"); err == nil || !strings.Contains(err.Error(), "no runs recorded in ") {
		t.Errorf("last of no runs: %v", err)
	}
	if _, _, err := LoadDiff(c, nil); err == nil || !strings.Contains(err.Error(), "0 runs recorded in ") {
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
		id, _, err := ResolveID(c, tt.arg)
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
		d, _, err := LoadDiff(c, tt.args)
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
	if _, _, err := LoadDiff(c, []string{"1", "99"}); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("an unknown run is not cache.ErrNotFound: %v", err)
	}
}

// "last" passes over runs that ended (canceled or failed) before recording
// any stage, and says which run it took instead; a running run counts (it
// is being recorded), and when no run has a stage the newest is taken.
func TestResolveLastSkipsRunsWithoutStages(t *testing.T) {
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	run := func(status string, stages int) int64 {
		t.Helper()
		id, err := c.BeginRun("p", []string{"run", "p.hcl"})
		if err != nil {
			t.Fatal(err)
		}
		for i := range stages {
			if err := c.RecordStage(id, cache.StageRecord{Address: fmt.Sprintf("s.%d", i), Key: "k", Status: "ran"}); err != nil {
				t.Fatal(err)
			}
		}
		if status != "running" {
			if err := c.FinishRun(id, status); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	check := func(wantID int64, wantNote string) {
		t.Helper()
		for _, arg := range []string{"last", "latest"} {
			id, note, err := ResolveID(c, arg)
			if err != nil || id != wantID || note != wantNote {
				t.Errorf("ResolveID(%q) = %d, %q, %v; want %d, %q", arg, id, note, err, wantID, wantNote)
			}
		}
	}
	empty := run("canceled", 0)
	check(empty, "") // nothing better: the newest
	good := run("ok", 2)
	check(good, "")
	run("canceled", 0)
	check(good, "last: run 2, the last with stages (run 3 was canceled before recording any stage)")
	run("failed", 0)
	check(good, "last: run 2, the last with stages (runs 4, 3 ended before recording any stage)")
	diff := func(wantA, wantB int64, wantNote string) {
		t.Helper()
		d, note, err := LoadDiff(c, nil)
		if err != nil || d.A.ID != wantA || d.B.ID != wantB || note != wantNote {
			t.Errorf("LoadDiff(nil) = %v, %q, %v; want runs %d and %d, %q", d, note, err, wantA, wantB, wantNote)
		}
	}
	diff(3, 4, "") // one run has stages: the newest two, as they are
	good2 := run("ok", 1)
	diff(good, good2, "runs 2 and 5, the last two with stages (runs 4, 3 ended before recording any stage)")
	run("canceled", 0)
	diff(good, good2, "runs 2 and 5, the last two with stages (runs 6, 4, 3 ended before recording any stage)")
	running := run("running", 0)
	check(running, "")
	if id, note, err := ResolveID(c, "3"); err != nil || id != 3 || note != "" {
		t.Errorf("ResolveID(3) = %d, %q, %v: a run named by number is taken as it is", id, note, err)
	}
}
