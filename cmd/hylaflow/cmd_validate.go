package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages"
	"golang.org/x/term"
)

func init() {
	registerCommand(&command{
		Name:    "validate",
		Summary: "check pipeline files without running anything (for CI)",
		Run:     validateCmdRun,
	})
}

// validateCmdRegistry returns the stage types that validate, graph and
// stages check against; tests replace it with a test-only registry.
var validateCmdRegistry = func() *registry.Registry { return stages.Default() }

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

// validateCmdWriteDiags writes diagnostics as text, with colour and
// wrapping when w is a terminal (and NO_COLOR is unset).
func validateCmdWriteDiags(w io.Writer, diags hcl.Diagnostics) {
	width, color := uint(0), false
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 20 {
			width = uint(cols)
		}
		color = os.Getenv("NO_COLOR") == ""
	}
	if err := runner.WriteDiagnostics(w, diags, width, color); err != nil {
		fmt.Fprintf(w, "%s\n", diags.Error())
	}
}

func validateCmdRun(args []string, stdout, stderr io.Writer) int {
	fs := cliFlagSet("validate", stderr)
	jsonOut := fs.Bool("json", false, "print diagnostics as JSON")
	var opts runner.LoadOptions
	opts.RegisterFlags(fs)
	files, err := cliParse(fs, args)
	if err != nil {
		return cliFlagError(err, stdout, stderr, "validate", validateCmdUsage)
	}
	if len(files) == 0 {
		fmt.Fprint(stderr, "hylaflow validate: no pipeline files given\n\n"+validateCmdUsage)
		return exitUsage
	}
	reg := validateCmdRegistry()
	var all hcl.Diagnostics
	status := exitOK
	for _, file := range files {
		p, diags := runner.Load(reg, file, opts)
		all = append(all, diags...)
		if diags.HasErrors() {
			status = exitInvalid
		}
		if *jsonOut {
			continue
		}
		if len(diags) > 0 {
			validateCmdWriteDiags(stderr, diags)
		}
		if p != nil {
			fmt.Fprintf(stdout, "ok %s (%s)\n", file, runner.Plural(len(p.Instances), "stage", "stages"))
		}
	}
	if *jsonOut {
		if err := runner.WriteDiagnosticsJSON(stdout, all); err != nil {
			fmt.Fprintf(stderr, "hylaflow validate: %v\n", err)
			return exitStageFailed
		}
	} else if status == exitInvalid {
		n := 0
		for _, d := range all {
			if d.Severity == hcl.DiagError {
				n++
			}
		}
		fmt.Fprintf(stderr, "hylaflow validate: %d %s\n", n, validateCmdPlural(n, "error", "errors"))
	}
	return status
}

func validateCmdPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// validateCmdJoin is strings.Join for short lists in messages.
func validateCmdJoin(xs []string) string { return strings.Join(xs, ", ") }
