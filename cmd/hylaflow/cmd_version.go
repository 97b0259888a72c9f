package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/openblas"
)

func init() {
	registerCommand(&command{
		Name:    "version",
		Summary: "print the build: module version, VCS revision, Go version, kernels",
		Run:     versionCmdRun,
	})
}

const versionCmdUsage = `Usage: hylaflow version [--json]   (or hylaflow --version)

Prints what this binary was built from: the module version, the VCS
revision and time it was built at (with "dirty" when the work tree had
uncommitted changes), the Go version and platform, and the numeric
kernels it runs on this CPU (the vector kernels' path: avx512, avx2 or
generic, forced lower with HYLAFLOW_CPU; the BLAS). Quote it in bug
reports: the three kernel paths give bit-identical results.

Flags:
  --json   one JSON object instead of text

Exit status: 0 printed, 2 usage error.
`

// versionInfo is what `hylaflow version` reports.
type versionInfo struct {
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

// versionRead collects versionInfo from the binary's build information.
func versionRead(bi *debug.BuildInfo, ok bool) versionInfo {
	v := versionInfo{Version: "unknown", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
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

// versionWrite prints v as a few lines of text.
func versionWrite(w io.Writer, v versionInfo) {
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

func versionCmdRun(args []string, stdout, _ io.Writer) error {
	fs := cliFlagSet("version")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := cliFlags(fs, args, stdout, versionCmdUsage)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageHint("unexpected argument %q", pos[0])
	}
	v := versionRead(debug.ReadBuildInfo())
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return failed(enc.Encode(v))
	}
	versionWrite(stdout, v)
	return nil
}
