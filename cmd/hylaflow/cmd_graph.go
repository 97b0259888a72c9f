package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runs"
)

func init() {
	app.Register(&cli.Command{
		Name:     "graph",
		Complete: completePipelines,
		Summary:  "print a pipeline's DAG as Graphviz DOT or Mermaid",
		Run:      graphCmdRun,
	})
}

var graphCmdUsage = helpText("graph")

func graphCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("graph")
	format := fs.String("format", "dot", "dot or mermaid")
	collapse := fs.Bool("collapse", false, "one node per stage block")
	runArg := fs.String("run", "", "style the blocks by this run's statuses")
	cacheDir := fs.String("cache", "", "cache directory")
	var opts pipeline.LoadOptions
	opts.RegisterFlags(fs)
	files, err := cli.Parse(fs, args, stdout, graphCmdUsage)
	switch {
	case err != nil:
		return err
	case len(files) != 1:
		return cli.UsageText(graphCmdUsage, "want exactly one pipeline FILE")
	case *format != "dot" && *format != "mermaid":
		return cli.Usagef("unknown --format %q: want dot or mermaid", *format)
	case *runArg != "" && !*collapse:
		return cli.Usagef("--run styles the collapsed view: give --collapse too")
	}
	datasets.SetStart(filepath.Dir(files[0])) // dataset_present looks from the pipeline
	p, diags := pipeline.Load(cliRegistry(), files[0], opts)
	if len(diags) > 0 {
		cliWriteDiags(stderr, diags)
	}
	if p == nil {
		return cli.ErrInvalid
	}
	switch {
	case *collapse:
		var status map[string]string
		if *runArg != "" {
			if status, err = graphCmdStatus(p, *runArg, *cacheDir, files[0], stderr); err != nil {
				return err
			}
		}
		if *format == "dot" {
			fmt.Fprint(stdout, p.CollapsedDOT(status))
		} else {
			fmt.Fprint(stdout, p.CollapsedMermaid(status))
		}
	case *format == "dot":
		fmt.Fprint(stdout, p.DOT())
	default:
		fmt.Fprint(stdout, p.Mermaid())
	}
	return nil
}

// graphCmdStatus reads the status of every stage instance of a run from
// the cache found for file: address → ran, cached, failed, skipped or
// canceled. A run of another pipeline is drawn all the same, with a warning.
func graphCmdStatus(p *pipeline.Pipeline, runArg, cacheFlag, file string, stderr io.Writer) (map[string]string, error) {
	c, err := cliOpenCache(cacheFlag, filepath.Dir(file), false)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	id, note, err := runs.ResolveID(c, runArg)
	if err != nil {
		return nil, err
	}
	if note != "" {
		fmt.Fprintf(stderr, "hylaflow graph: %s\n", note)
	}
	d, err := c.Run(id)
	if err != nil {
		return nil, err
	}
	if d.Pipeline != p.Name {
		fmt.Fprintf(stderr, "hylaflow graph: warning: run %d is of pipeline %q, not %q\n", id, d.Pipeline, p.Name)
	}
	return d.Statuses(), nil
}
