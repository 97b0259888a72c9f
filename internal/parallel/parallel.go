// Package parallel runs a loop over [0, n) in blocks of rows on a few
// goroutines. The block boundaries depend only on n and the block size,
// never on the number of workers or on scheduling, so a loop whose blocks
// write disjoint results (or per-block partial sums reduced in block
// order) gives the same bits for any worker count.
//
// Blocks assigns block b to worker b mod workers (use it when a worker
// keeps state across its blocks, such as scratch space or a partial sum);
// Balanced hands the blocks out in order to whichever worker is free (use
// it when blocks cost unequal work). Both run on the calling goroutine,
// starting no other, when there is one worker or one block.
package parallel

import (
	"context"
	"sync"
	"sync/atomic"
)

// Size returns the block size that splits n rows into at most parts
// contiguous blocks of equal size (the last may be shorter): ⌈n/parts⌉,
// at least 1.
func Size(n, parts int) int {
	parts = max(parts, 1)
	return max((n+parts-1)/parts, 1)
}

// count returns the number of blocks of size covering n, and the number
// of workers that have any (at least 1).
func count(n, size, workers int) (blocks, w int) {
	if n <= 0 {
		return 0, 1
	}
	size = max(size, 1)
	blocks = (n + size - 1) / size
	return blocks, max(1, min(workers, blocks))
}

// Blocks calls fn(w, lo, hi) for every block [lo, hi) = [b·size,
// min((b+1)·size, n)) of [0, n), on min(workers, blocks) goroutines: block b
// runs on worker w = b mod that number, and each worker takes its blocks in
// increasing order. It returns when every started call has returned. Once
// ctx is done no further block starts, and Blocks returns ctx.Err().
func Blocks(ctx context.Context, n, size, workers int, fn func(w, lo, hi int)) error {
	size = max(size, 1)
	blocks, w := count(n, size, workers)
	run := func(k int) {
		for b := k; b < blocks; b += w {
			if ctx.Err() != nil {
				return
			}
			lo := b * size
			fn(k, lo, min(lo+size, n))
		}
	}
	if w == 1 {
		run(0)
		return ctx.Err()
	}
	var wg sync.WaitGroup
	wg.Add(w)
	for k := range w {
		go func() {
			defer wg.Done()
			run(k)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// Balanced calls fn(lo, hi) for every block [lo, hi) = [b·size,
// min((b+1)·size, n)) of [0, n) on up to workers goroutines, which take
// the blocks in increasing order as they become free. It returns when every
// started call has returned. Once ctx is done no further block starts, and
// Balanced returns ctx.Err().
func Balanced(ctx context.Context, n, size, workers int, fn func(lo, hi int)) error {
	size = max(size, 1)
	blocks, w := count(n, size, workers)
	if w == 1 {
		return Blocks(ctx, n, size, 1, func(_, lo, hi int) { fn(lo, hi) })
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(w)
	for range w {
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				lo := b * size
				fn(lo, min(lo+size, n))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}
