package main

import (
	"fmt"
	"io"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/runner"
)

func init() {
	registerCommand(&command{
		Name:    "validate",
		Summary: "check pipeline files without running anything (for CI)",
		Run:     validateCmdRun,
	})
}

const validateCmdUsage = `Usage: hylaflow validate [flags] FILE...

Checks each pipeline file without running or caching anything: HCL syntax,
stage types, parameter names, types and values, required parameters and
inputs, references between stages and their outputs, for_each and matrix
expansions, variables, and dependency cycles. Every problem is reported at
once, with file:line:col and a source snippet.

Prints "ok FILE (N stages)" for each valid file, N counting the instances
after for_each/matrix expansion.

Flags (before or after the files):
  -json              print all diagnostics as one JSON array on stdout
                     (objects with severity, summary, detail and range)
  -var NAME=VALUE    set a pipeline variable; VALUE is an HCL expression
                     ([1, 2], true, 0.5) or else a string; repeatable
  -var-file FILE     read variables from an HCL file of NAME = VALUE lines; repeatable

Exit status: 0 all files valid, 2 usage error, 3 a file is invalid.
`

func validateCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cliFlagSet("validate")
	jsonOut := fs.Bool("json", false, "print diagnostics as JSON")
	var opts runner.LoadOptions
	opts.RegisterFlags(fs)
	files, err := cliFlags(fs, args, stdout, validateCmdUsage)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageText(validateCmdUsage, "no pipeline files given")
	}
	reg := cliRegistry()
	var all hcl.Diagnostics
	for _, file := range files {
		p, diags := runner.Load(reg, file, opts)
		all = append(all, diags...)
		if *jsonOut {
			continue
		}
		if len(diags) > 0 {
			cliWriteDiags(stderr, diags)
		}
		if p != nil {
			fmt.Fprintf(stdout, "ok %s (%s)\n", file, runner.Plural(len(p.Instances), "stage", "stages"))
		}
	}
	if *jsonOut {
		if err := runner.WriteDiagnosticsJSON(stdout, all); err != nil {
			return failed(err)
		}
	} else if all.HasErrors() {
		n := 0
		for _, d := range all {
			if d.Severity == hcl.DiagError {
				n++
			}
		}
		fmt.Fprintf(stderr, "hylaflow validate: %s\n", runner.Plural(n, "error", "errors"))
	}
	if all.HasErrors() {
		return errInvalid
	}
	return nil
}
