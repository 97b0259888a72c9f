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

var versionCmdUsage = helpText("version")

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
