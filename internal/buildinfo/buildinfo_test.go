package buildinfo

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

// Read takes the module version, revision, time and dirty flag
// from the build information, and says so when there is none.
func TestReadWrite(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/hylaflow/hylaflow", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-11-26T07:21:19Z"},
			{Key: "vcs.modified", Value: "true"}, {Key: "GOEXPERIMENT", Value: "simd"}}}
	var b bytes.Buffer
	v := Read(bi, true)
	Write(&b, v)
	want := "hylaflow v1.2.3\nrevision: abc123 (2026-11-26T07:21:19Z), dirty: uncommitted changes\ngo: go1.99 " + v.Platform +
		" GOEXPERIMENT=simd\nkernels: " + v.Kernels + ", BLAS " + v.BLAS + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	Write(&b, Read(nil, false))
	if !strings.Contains(b.String(), "hylaflow unknown\nrevision: unknown (built without VCS information") {
		t.Errorf("without build info:\n%s", b.String())
	}
}
