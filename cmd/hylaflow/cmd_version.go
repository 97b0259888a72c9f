package main

import (
	"encoding/json"
	"io"
	"runtime/debug"

	"github.com/hylaflow/hylaflow/internal/buildinfo"
	"github.com/hylaflow/hylaflow/internal/cli"
)

func init() {
	app.Register(&cli.Command{
		Name:    "version",
		Summary: "print the build: module version, VCS revision, Go version, kernels",
		Run:     versionCmdRun,
	})
}

var versionCmdUsage = helpText("version")

func versionCmdRun(args []string, stdout, _ io.Writer) error {
	fs := cli.FlagSet("version")
	asJSON := fs.Bool("json", false, "JSON output")
	pos, err := cli.Parse(fs, args, stdout, versionCmdUsage)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.UsageHint("unexpected argument %q", pos[0])
	}
	v := buildinfo.Read(debug.ReadBuildInfo())
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return cli.Failed(enc.Encode(v))
	}
	buildinfo.Write(stdout, v)
	return nil
}
