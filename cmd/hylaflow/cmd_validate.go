package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/progress"
	"github.com/hylaflow/hylaflow/pipeline"
)

func init() {
	app.Register(&cli.Command{
		Name:     "validate",
		Complete: completePipelines,
		Summary:  "check pipeline files without running anything (for CI)",
		Run:      validateCmdRun,
	})
}

var validateCmdUsage = helpText("validate")

func validateCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("validate")
	jsonOut := fs.Bool("json", false, "print diagnostics as JSON")
	var opts pipeline.LoadOptions
	opts.RegisterFlags(fs)
	files, err := cli.Parse(fs, args, stdout, validateCmdUsage)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return cli.UsageText(validateCmdUsage, "no pipeline files given")
	}
	reg := cliRegistry()
	var all hcl.Diagnostics
	for _, file := range files {
		datasets.SetStart(filepath.Dir(file)) // dataset_present looks from the pipeline
		p, diags := pipeline.Load(reg, file, opts)
		all = append(all, diags...)
		if *jsonOut {
			continue
		}
		if len(diags) > 0 {
			cliWriteDiags(stderr, diags)
		}
		if p != nil {
			fmt.Fprintf(stdout, "ok %s (%s)\n", file, progress.Plural(len(p.Instances), "stage", "stages"))
		}
	}
	if *jsonOut {
		if err := pipeline.WriteDiagnosticsJSON(stdout, all); err != nil {
			return cli.Failed(err)
		}
	} else if all.HasErrors() {
		n := 0
		for _, d := range all {
			if d.Severity == hcl.DiagError {
				n++
			}
		}
		fmt.Fprintf(stderr, "hylaflow validate: %s\n", progress.Plural(n, "error", "errors"))
	}
	if all.HasErrors() {
		return cli.ErrInvalid
	}
	return nil
}
