// Package buildinfo says what a binary was built from (module version,
// VCS revision and time, uncommitted changes, Go version and platform)
// and which numeric kernels and BLAS it runs on this CPU.
package buildinfo

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/openblas"
)

// Info is what this binary was built from and runs on: what
// `hylaflow version` reports.
type Info struct {
	Module     string `json:"module"`
	Version    string `json:"version"`            // module version, "(devel)" for a work-tree build
	Revision   string `json:"revision,omitempty"` // VCS revision (vcs.revision)
	Time       string `json:"time,omitempty"`     // commit time (vcs.time)
	Dirty      bool   `json:"dirty"`              // uncommitted changes at build time
	Go         string `json:"go"`
	Platform   string `json:"platform"`
	Kernels    string `json:"kernels"`
	BLAS       string `json:"blas"`
	Experiment string `json:"goexperiment,omitempty"`
}

// Read collects Info from build information (debug.ReadBuildInfo's
// results) and the kernels and BLAS this process runs.
func Read(bi *debug.BuildInfo, ok bool) Info {
	v := Info{Version: "unknown", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Kernels: hyla.KernelPath(), BLAS: openblas.Name()}
	if !ok || bi == nil {
		return v
	}
	v.Module, v.Version, v.Go = bi.Main.Path, bi.Main.Version, bi.GoVersion
	if v.Version == "" {
		v.Version = "unknown"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Dirty = s.Value == "true"
		case "GOEXPERIMENT":
			v.Experiment = s.Value
		}
	}
	return v
}

// Write prints v as a few lines of text.
func Write(w io.Writer, v Info) {
	fmt.Fprintf(w, "hylaflow %s\n", v.Version)
	switch {
	case v.Revision == "":
		fmt.Fprintln(w, "revision: unknown (built without VCS information, e.g. go run or -buildvcs=false)")
	default:
		rev := v.Revision
		if v.Time != "" {
			rev += " (" + v.Time + ")"
		}
		if v.Dirty {
			rev += ", dirty: uncommitted changes"
		}
		fmt.Fprintf(w, "revision: %s\n", rev)
	}
	fmt.Fprintf(w, "go: %s %s", v.Go, v.Platform)
	if v.Experiment != "" {
		fmt.Fprintf(w, " GOEXPERIMENT=%s", v.Experiment)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "kernels: %s, BLAS %s\n", v.Kernels, v.BLAS)
}
