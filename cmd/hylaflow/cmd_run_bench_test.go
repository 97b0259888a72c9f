package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRunCachedFanout502 is a fully cached `hylaflow run` of the
// 502-stage fan-out (testdata/bench/fanout502.hcl) in this process, as
// main runs it: load, plan, the run record, the summary. Every iteration
// adds a run to the cache's history, as a user's reruns do.
//
//	go test ./cmd/hylaflow -run '^$' -bench RunCachedFanout502 -cpuprofile cpu.out
func BenchmarkRunCachedFanout502(b *testing.B) {
	file := filepath.Join("..", "..", "testdata", "bench", "fanout502.hcl")
	cdir := filepath.Join(b.TempDir(), "cache")
	run := func() (children int) {
		var errb strings.Builder
		code := runSupervised([]string{"run", file, "--cache", cdir, "-q"}, io.Discard, &errb,
			func(_ string, _ []string, _ io.Writer, inProcess func() int) int {
				children++
				return inProcess()
			})
		if code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		return children
	}
	if run() != 1 {
		b.Fatal("the cold run did not go to the child")
	}
	b.ReportAllocs()
	for b.Loop() {
		if run() != 0 {
			b.Fatal("a fully cached run started a child")
		}
	}
}
