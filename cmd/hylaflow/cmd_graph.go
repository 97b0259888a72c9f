package main

import (
	"fmt"
	"io"

	"github.com/hylaflow/hylaflow/runner"
)

func init() {
	registerCommand(&command{
		Name:    "graph",
		Summary: "print a pipeline's DAG as Graphviz DOT or Mermaid",
		Run:     graphCmdRun,
	})
}

const graphCmdUsage = `Usage: hylaflow graph [flags] FILE

Prints the pipeline's DAG: one node per stage instance (for_each and matrix
instances grouped by their stage block), one edge per input, labelled with
the input slot. Nothing runs and nothing is cached.

  hylaflow graph pipelines/table1.hcl | dot -Tsvg > table1.svg

Flags:
  --format dot|mermaid   output format (default dot)
  -var NAME=VALUE        set a pipeline variable; repeatable
  -var-file FILE         read variables from an HCL file; repeatable

Exit status: 0 printed, 2 usage error, 3 the pipeline is invalid.
`

func graphCmdRun(args []string, stdout, stderr io.Writer) int {
	fs := cliFlagSet("graph", stderr)
	format := fs.String("format", "dot", "dot or mermaid")
	var opts runner.LoadOptions
	opts.RegisterFlags(fs)
	files, err := cliParse(fs, args)
	if err != nil {
		return cliFlagError(err, stdout, stderr, "graph", graphCmdUsage)
	}
	if len(files) != 1 {
		fmt.Fprint(stderr, "hylaflow graph: want exactly one pipeline FILE\n\n"+graphCmdUsage)
		return exitUsage
	}
	if *format != "dot" && *format != "mermaid" {
		fmt.Fprintf(stderr, "hylaflow graph: unknown --format %q: want dot or mermaid\n", *format)
		return exitUsage
	}
	p, diags := runner.Load(validateCmdRegistry(), files[0], opts)
	if len(diags) > 0 {
		validateCmdWriteDiags(stderr, diags)
	}
	if p == nil {
		return exitInvalid
	}
	if *format == "dot" {
		fmt.Fprint(stdout, p.DOT())
	} else {
		fmt.Fprint(stdout, p.Mermaid())
	}
	return exitOK
}
