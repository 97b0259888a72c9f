package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessCountsWork: burning CPU for a while moves Process forward by
// about that much (at least half: the process may be descheduled) and never
// backwards.
func TestProcessCountsWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("CPU time is read on Unix only")
	}
	before := Process()
	start := time.Now()
	x := 1.0
	for time.Since(start) < 200*time.Millisecond {
		for i := 0; i < 1000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	wall := time.Since(start)
	after := Process()
	if x == 0 {
		t.Fatal("unreachable")
	}
	if after < before {
		t.Fatalf("CPU time went backwards: %v then %v", before, after)
	}
	if got := after - before; got < wall/10 {
		t.Errorf("CPU time moved %v during %v of busy work, want a sizeable share of it", got, wall)
	}
}
