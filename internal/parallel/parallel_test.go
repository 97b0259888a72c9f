package parallel

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

func TestSize(t *testing.T) {
	for _, c := range []struct{ n, parts, want int }{
		{10, 3, 4}, {9, 3, 3}, {1, 8, 1}, {0, 4, 1}, {100, 0, 100}, {100, -2, 100}, {7, 7, 1},
	} {
		if got := Size(c.n, c.parts); got != c.want {
			t.Errorf("Size(%d, %d) = %d, want %d", c.n, c.parts, got, c.want)
		}
	}
}

type call struct{ w, lo, hi int }

// blocksOf is the expected partition: [b·size, min((b+1)·size, n)).
func blocksOf(n, size int) [][2]int {
	var out [][2]int
	for lo := 0; lo < n; lo += max(size, 1) {
		out = append(out, [2]int{lo, min(lo+max(size, 1), n)})
	}
	return out
}

var shapes = []struct{ n, size, workers int }{
	{0, 4, 3}, {1, 4, 3}, {10, 3, 1}, {10, 3, 2}, {10, 3, 8}, {12, 3, 4}, {1000, 7, 3}, {5, 0, 2}, {64, 64, 4}, {65, 64, 4},
}

func TestBlocks(t *testing.T) {
	for _, s := range shapes {
		var mu sync.Mutex
		var calls []call
		err := Blocks(context.Background(), s.n, s.size, s.workers, func(w, lo, hi int) {
			mu.Lock()
			calls = append(calls, call{w, lo, hi})
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		want := blocksOf(s.n, s.size)
		nw := max(1, min(s.workers, len(want)))
		slices.SortFunc(calls, func(a, b call) int { return a.lo - b.lo })
		if len(calls) != len(want) {
			t.Errorf("%+v: %d calls, want %d", s, len(calls), len(want))
			continue
		}
		for b, c := range calls {
			if c.lo != want[b][0] || c.hi != want[b][1] || c.w != b%nw {
				t.Errorf("%+v: block %d = %+v, want [%d, %d) on worker %d", s, b, c, want[b][0], want[b][1], b%nw)
			}
		}
	}
}

func TestBalanced(t *testing.T) {
	for _, s := range shapes {
		var mu sync.Mutex
		var got [][2]int
		err := Balanced(context.Background(), s.n, s.size, s.workers, func(lo, hi int) {
			mu.Lock()
			got = append(got, [2]int{lo, hi})
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(got, func(a, b [2]int) int { return a[0] - b[0] })
		if want := blocksOf(s.n, s.size); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%+v: blocks %v, want %v", s, got, want)
		}
	}
}

// One worker runs the blocks in order on the calling goroutine (a call
// sees the writes of the one before it without synchronisation).
func TestSerialInOrder(t *testing.T) {
	var seen []int
	Blocks(context.Background(), 10, 3, 1, func(w, lo, hi int) { seen = append(seen, lo) })
	Balanced(context.Background(), 10, 3, 1, func(lo, hi int) { seen = append(seen, lo) })
	if want := []int{0, 3, 6, 9, 0, 3, 6, 9}; !slices.Equal(seen, want) {
		t.Errorf("serial order %v, want %v", seen, want)
	}
}

// At most workers calls run at once.
func TestConcurrencyBound(t *testing.T) {
	for _, workers := range []int{1, 2, 3} {
		var cur, peak atomic.Int32
		body := func() {
			n := cur.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			for i := 0; i < 100; i++ {
				_ = fmt.Sprint(i)
			}
			cur.Add(-1)
		}
		Blocks(context.Background(), 200, 1, workers, func(int, int, int) { body() })
		Balanced(context.Background(), 200, 1, workers, func(int, int) { body() })
		if p := int(peak.Load()); p > workers {
			t.Errorf("workers %d: %d calls at once", workers, p)
		}
	}
}

// Once ctx is done no block starts; the error is ctx's.
func TestCanceled(t *testing.T) {
	for _, workers := range []int{1, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		var n atomic.Int32
		err := Blocks(ctx, 100, 1, workers, func(int, int, int) {
			if n.Add(1) == 1 {
				cancel()
			}
		})
		if err != context.Canceled || n.Load() > int32(workers) {
			t.Errorf("Blocks, %d workers: error %v after %d calls", workers, err, n.Load())
		}
		ctx, cancel = context.WithCancel(context.Background())
		n.Store(0)
		err = Balanced(ctx, 100, 1, workers, func(int, int) {
			if n.Add(1) == 1 {
				cancel()
			}
		})
		if err != context.Canceled || n.Load() > int32(workers) {
			t.Errorf("Balanced, %d workers: error %v after %d calls", workers, err, n.Load())
		}
	}
}
