package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/runner"
)

// The live block's status line: stages finished of the run's total, the
// running ones, the elapsed time and an estimate of the time left from
// the stages that ran so far.
func TestTermProgressStatusLine(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	clock := t0
	var buf bytes.Buffer
	p := &TermProgress{w: &buf, level: Normal, width: 100, running: map[string]*termLine{}, now: func() time.Time { return clock }}
	steps := []struct {
		e    runner.Event
		at   time.Duration // clock after the event
		want string        // the status line ("" = none)
	}{
		{runner.Event{Kind: runner.EventPlan, Total: 10}, 0, ""},
		{runner.Event{Kind: runner.EventDone, Address: "data", Status: runner.StatusCached}, 0, ""},
		{runner.Event{Kind: runner.EventStart, Address: "a", Time: t0}, 0, "[1/10 stages] 1 running, 0ms elapsed"},
		{runner.Event{Kind: runner.EventStart, Address: "b", Time: t0}, 0, "[1/10 stages] 2 running, 0ms elapsed"},
		// a ran in 20 s: 8 stages left at 20 s per stage run → 2m40s.
		{runner.Event{Kind: runner.EventDone, Address: "a", Status: runner.StatusRan, Time: t0.Add(20 * time.Second)}, 20 * time.Second,
			"[2/10 stages] 1 running, 20.0s elapsed, about 2m40s left"},
		{runner.Event{Kind: runner.EventDone, Address: "b", Status: runner.StatusFailed, Time: t0.Add(30 * time.Second)}, 30 * time.Second, ""},
	}
	for i, s := range steps {
		clock = t0.Add(s.at)
		p.Event(s.e)
		if got := p.status(clock); got != s.want {
			t.Errorf("step %d: status %q, want %q", i, got, s.want)
		}
	}
	// Canceled stages get no line of their own.
	buf.Reset()
	p.Event(runner.Event{Kind: runner.EventStart, Address: "c", Time: clock})
	p.Event(runner.Event{Kind: runner.EventDone, Address: "c", Status: runner.StatusCanceled, Time: clock})
	if strings.Contains(buf.String(), "canceled") {
		t.Errorf("a canceled stage printed a line: %q", buf.String())
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 stages", 1: "1 stage", 2: "2 stages", 357: "357 stages"} {
		if got := Plural(n, "stage", "stages"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want string
	}{
		{850 * time.Millisecond, "850ms"}, {1200 * time.Millisecond, "1.2s"},
		{184 * time.Second, "3m04s"}, {62 * time.Minute, "1h02m"},
	} {
		if got := FormatDuration(tt.d); got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
