package files_test

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/datasets/files"
	"github.com/hylaflow/hylaflow/internal/cputime"
)

// writeRandomEdges writes an edge list of m lines "u,v" over n nodes
// (uniform endpoints, seeded) with a header, streaming.
func writeRandomEdges(tb testing.TB, path string, n, m int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("src,dst\n")
	rng := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	for range m {
		buf = strconv.AppendInt(buf[:0], int64(rng.IntN(n)), 10)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, int64(rng.IntN(n)), 10)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// peakRSS is the process's peak resident set (VmHWM), in bytes.
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb * 1024
		}
	}
	return 0
}

// BenchmarkReadEdgeList reads a generated integer edge list into the
// symmetric adjacency: "products" is ogbn-products' size (2,449,029 nodes,
// 61,859,140 edge lines; a 1 GB file, about 5 GB of memory at the peak —
// run it alone, with -bench ReadEdgeList/products -benchtime 1x), "small"
// a tenth of it. It reports the wall and CPU seconds of the read, the
// final graph's bytes (indptr, indices, values) and the process's peak
// resident memory over them (the file is generated streaming, in a few MB).
func BenchmarkReadEdgeList(b *testing.B) {
	for _, sz := range []struct {
		name string
		n, m int
	}{{"small", 244_903, 6_185_914}, {"products", 2_449_029, 61_859_140}} {
		b.Run(sz.name, func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "edges.csv")
			writeRandomEdges(b, path, sz.n, sz.m)
			runtime.GC()
			debug.FreeOSMemory()
			for b.Loop() {
				c0, t0 := cputime.Process(), time.Now()
				g, info, err := files.Load(context.Background(), path, "auto", runtime.GOMAXPROCS(0))
				if err != nil {
					b.Fatal(err)
				}
				wall, cpu := time.Since(t0), cputime.Process()-c0
				a := g.Adj
				graph := float64(8*len(a.Indptr) + 4*len(a.Indices) + 8*len(a.Data))
				b.ReportMetric(wall.Seconds(), "wall-s")
				b.ReportMetric(cpu.Seconds(), "cpu-s")
				b.ReportMetric(graph/(1<<20), "graph-MiB")
				b.ReportMetric(peakRSS()/(1<<20), "peak-MiB")
				b.ReportMetric(peakRSS()/graph, "peak/graph")
				b.ReportMetric(float64(g.Edges()), "edges")
				if info.EdgeLines != sz.m || g.Nodes() > sz.n {
					b.Fatalf("%d lines, %d nodes", info.EdgeLines, g.Nodes())
				}
			}
		})
	}
}
