package main

import (
	"fmt"
	"io"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/pipeline"
)

func init() {
	app.Register(&cli.Command{
		Name:     "fmt",
		Complete: completePipelines,
		Summary:  "rewrite pipeline files in the canonical HCL layout",
		Run:      fmtCmdRun,
	})
}

var fmtCmdUsage = helpText("fmt")

func fmtCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("fmt")
	check := fs.Bool("check", false, "only report unformatted files")
	files, err := cli.Parse(fs, args, stdout, fmtCmdUsage)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return cli.UsageText(fmtCmdUsage, "no files given")
	}
	status := cli.ExitOK // the worst: invalid (3) over failed or unformatted (1)
	worse := func(s int) {
		if s == cli.ExitInvalid || status == cli.ExitOK {
			status = s
		}
	}
	for _, file := range files {
		changed, diags, err := pipeline.FormatFile(file, !*check)
		switch {
		case diags.HasErrors():
			cliWriteDiags(stderr, diags)
			worse(cli.ExitInvalid)
		case err != nil:
			fmt.Fprintf(stderr, "hylaflow fmt: %v\n", err)
			worse(cli.ExitFailed)
		case changed:
			fmt.Fprintln(stdout, file)
			if *check {
				worse(cli.ExitFailed)
			}
		}
	}
	if status != cli.ExitOK {
		return cli.ExitStatus(status)
	}
	return nil
}
