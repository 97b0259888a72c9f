package vec

import (
	"sync"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cputime"
)

// The machine's peak rates behind the floors in docs/performance.md, on
// one core and on every core (GOMAXPROCS goroutines):
//
//	go test ./internal/vec -run '^$' -bench Peak -benchtime 20x
//
// BenchmarkPeakFMA reports fused multiply-adds (one per float64 lane) per
// ns of CPU time; BenchmarkPeakRead the bytes per ns read from an array far
// larger than the caches (memory bandwidth), and from one that stays in
// the 32 KiB L1 and the 512 KiB L2.

func TestPeakKernels(t *testing.T) {
	if Best() < AVX2 {
		t.Skip("no AVX2+FMA")
	}
	if got := fmaPeakAVX2(3); got != 0 {
		t.Errorf("fmaPeakAVX2 of zero registers = %v, want 0", got)
	}
	x := make([]float64, 64)
	for i := range x {
		x[i] = float64(i)
	}
	// Lane 0 sums x[0], x[4], …, and lane 0 of the second accumulator x[4+…]:
	// the returned lane is x[0]+x[4]+x[32]+x[36] = 72.
	if got := readPeakAVX2(&x[0], 2); got != 72 {
		t.Errorf("readPeakAVX2 lane 0 = %v, want 72", got)
	}
}

func peakRun(b *testing.B, workers int, fn func()) {
	b.Helper()
	c0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() { defer wg.Done(); fn() }()
		}
		wg.Wait()
	}
	b.StopTimer()
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N)/1e6, "cpu-ms/op")
}

func BenchmarkPeakFMA(b *testing.B) {
	if Best() < AVX2 {
		b.Skip("no AVX2+FMA")
	}
	const iters = 1 << 24 // 12·4·2^24 = 805 M fused multiply-adds (four lanes)
	kinds := []struct {
		name  string
		lanes int
		f     func(int) float64
	}{{"", 4, fmaPeakAVX2}}
	if Best() >= AVX512 {
		kinds = append(kinds, struct {
			name  string
			lanes int
			f     func(int) float64
		}{"avx512-", 8, fmaPeakAVX512})
	}
	for _, k := range kinds {
		for _, w := range []int{1, 2} {
			b.Run(k.name+map[int]string{1: "1core", 2: "2cores"}[w], func(b *testing.B) {
				c0 := cputime.Process()
				peakRun(b, w, func() { k.f(iters) })
				cpu := float64(cputime.Process()-c0) / float64(b.N)
				b.ReportMetric(float64(w*12*k.lanes*iters)/cpu, "fma/cpu-ns")
			})
		}
	}
}

func BenchmarkPeakRead(b *testing.B) {
	if Best() < AVX2 {
		b.Skip("no AVX2+FMA")
	}
	for _, size := range []struct {
		name  string
		bytes int
		reps  int
	}{{"L1-16KiB", 16 << 10, 1 << 15}, {"L2-256KiB", 256 << 10, 1 << 11}, {"L3-4MiB", 4 << 20, 1 << 7}, {"memory-256MiB", 256 << 20, 2}} {
		for _, w := range []int{1, 2} {
			bufs := make([][]float64, w)
			for i := range bufs {
				bufs[i] = make([]float64, size.bytes/8)
				for j := range bufs[i] {
					bufs[i][j] = 1
				}
			}
			b.Run(size.name+"/"+map[int]string{1: "1core", 2: "2cores"}[w], func(b *testing.B) {
				var mu sync.Mutex
				next := 0
				c0 := cputime.Process()
				peakRun(b, w, func() {
					mu.Lock()
					buf := bufs[next%w]
					next++
					mu.Unlock()
					for range size.reps {
						readPeakAVX2(&buf[0], len(buf)/32)
					}
				})
				cpu := float64(cputime.Process()-c0) / float64(b.N)
				b.ReportMetric(float64(w)*float64(size.bytes)*float64(size.reps)/cpu, "bytes/cpu-ns")
				b.ReportMetric(float64(w)*float64(size.bytes)*float64(size.reps)/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "bytes/wall-ns")
			})
		}
	}
}
