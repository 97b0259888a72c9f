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

func graphCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cliFlagSet("graph")
	format := fs.String("format", "dot", "dot or mermaid")
	var opts runner.LoadOptions
	opts.RegisterFlags(fs)
	files, err := cliFlags(fs, args, stdout, graphCmdUsage)
	switch {
	case err != nil:
		return err
	case len(files) != 1:
		return usageText(graphCmdUsage, "want exactly one pipeline FILE")
	case *format != "dot" && *format != "mermaid":
		return usagef("unknown --format %q: want dot or mermaid", *format)
	}
	p, diags := runner.Load(cliRegistry(), files[0], opts)
	if len(diags) > 0 {
		cliWriteDiags(stderr, diags)
	}
	if p == nil {
		return errInvalid
	}
	if *format == "dot" {
		fmt.Fprint(stdout, p.DOT())
	} else {
		fmt.Fprint(stdout, p.Mermaid())
	}
	return nil
}
