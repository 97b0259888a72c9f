package main

import (
	"encoding/json"
	"io"
	"runtime/debug"

	"github.com/hylaflow/hylaflow/internal/buildinfo"
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
	v := buildinfo.Read(debug.ReadBuildInfo())
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return failed(enc.Encode(v))
	}
	buildinfo.Write(stdout, v)
	return nil
}
