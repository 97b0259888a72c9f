package hyla

import "sync"

// The feature maps' large arrays (m×D each, tens of MB at Citeseer's shape)
// go back to a pool when a map is released (Release), and the next map
// takes them from there: on virtual machines the first touch of fresh
// memory costs seconds of CPU per GiB in page faults (docs/performance.md),
// more than a training epoch. The arrays are scratch: every entry is written before it
// is read, and getBuf zeroes reused arrays anyway.
var bufPool struct {
	sync.Mutex
	bufs  [][]float64
	total int // float64s held
}

// bufPoolMax bounds what the pool holds (in float64s: 256 MiB, enough for
// two concurrent seeds at Airport's node-level shape, 2 × 2 × 3188 × 1000
// doubles; a process keeps at most this much after its runs).
const bufPoolMax = 32 << 20

// getBuf returns a slice of length n, from the pool (the smallest that
// fits) if it can.
func getBuf(n int) []float64 {
	bufPool.Lock()
	best := -1
	for i, b := range bufPool.bufs {
		if cap(b) >= n && (best < 0 || cap(b) < cap(bufPool.bufs[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := bufPool.bufs[best]
		last := len(bufPool.bufs) - 1
		bufPool.bufs[best] = bufPool.bufs[last]
		bufPool.bufs[last] = nil
		bufPool.bufs = bufPool.bufs[:last]
		bufPool.total -= cap(b)
		bufPool.Unlock()
		// Zeroed like fresh memory, so a map's results can never depend on
		// which earlier map (seed, stage, -j order) used the array; clearing
		// costs milliseconds, far less than faulting in fresh pages.
		b = b[:n]
		clear(b)
		return b
	}
	bufPool.Unlock()
	return make([]float64, n)
}

// putBuf hands b to the pool (dropped if the pool is full).
func putBuf(b []float64) {
	if cap(b) == 0 {
		return
	}
	bufPool.Lock()
	if bufPool.total+cap(b) <= bufPoolMax {
		bufPool.bufs = append(bufPool.bufs, b[:0])
		bufPool.total += cap(b)
	}
	bufPool.Unlock()
}

// growPooled is grow for the pooled arrays: buf resliced to n, or a
// replacement from the pool (buf going back to it) if its capacity is short.
func growPooled(buf []float64, n int) []float64 {
	if cap(buf) >= n {
		return buf[:n]
	}
	putBuf(buf)
	return getBuf(n)
}
