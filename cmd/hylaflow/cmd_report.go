package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/runreport"
)

func init() {
	registerCommand(&command{
		Name:    "report",
		Summary: "write a run's tables and figures (md/csv/json/png/svg) from the cache into report/",
		Run:     reportCmdRun,
	})
}

const reportCmdUsage = `Usage: hylaflow report [RUN|latest] [--out DIR] [--timing] [--cache DIR]

Writes every table and figure of run RUN (a number from hylaflow runs;
default: latest, the run that finished last, so that a run another process
has started since, still going, is not taken; a run in progress only if
none has finished) from the cache into DIR/ADDRESS/, ADDRESS being the
stage instance (e.g. evaluate.table1, kernel.figure1): the evaluate
stages' tables (table.md, table.csv, table.json, chart.png) and the
figure stages' files (kernel, visualize, panels: PNG, SVG, CSV and their
JSON summaries). The Markdown tables are printed, then a listing of every
file written. Nothing is recomputed and nothing in the cache changes; an
output whose stage failed, or whose payload is gone (gc, clear), is
reported as missing.

  --out DIR    where to write the files (default: report/ beside the
               project's .hylaflow, i.e. at the repository root in a clone,
               even when --cache or $HYLAFLOW_CACHE moves the cache)
  --timing     also the timing view (Table 6 / Figure 4): for every train
               stage of the run, its duration plus the durations of all the
               stages it depends on in that run (load, normalise,
               precompute, sample), with its test accuracy; written to
               DIR/timing/ (timing.md, .csv, .json, .png). Times come from
               the run record only, so time a run made with --no-cache;
               dependencies taken from the cache are flagged.
  --cache DIR  cache directory (default $HYLAFLOW_CACHE, else the nearest
               .hylaflow here or above: see hylaflow cache --help)

Exit status: 0 ok, 1 a table is missing or unreadable, 2 usage error.
`

func reportCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cliFlagSet("report")
	dir := fs.String("cache", "", "cache directory")
	out := fs.String("out", "", "output directory")
	timing := fs.Bool("timing", false, "also the timing view")
	pos, err := cliFlags(fs, args, stdout, reportCmdUsage)
	switch {
	case err != nil:
		return err
	case len(pos) > 1:
		return usageText(reportCmdUsage, "want at most one run, got %s", strings.Join(pos, " "))
	case *out == "" && cliFlagSetOn(fs, "out"):
		return usagef("--out must not be empty")
	case *out == "":
		*out = runreport.DefaultOut(".")
	}
	which := "latest"
	if len(pos) == 1 {
		which = pos[0]
	}
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		return failed(err)
	}
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		return failed(err)
	}
	defer c.Close()
	id, note, err := runreport.ResolveRun(c, which)
	if note != "" {
		fmt.Fprintf(stderr, "hylaflow report: %s\n", note)
	}
	var badRun *runreport.BadRunError
	if errors.As(err, &badRun) {
		return usagef("%v", err)
	} else if err != nil {
		return err // an unknown run is exit 2
	}
	outputs, err := runreport.Collect(c, cliRegistry(), id, runreport.Kinds...)
	if err != nil {
		return fmt.Errorf("run %d: %w", id, err) // no such run: exit 2
	}
	if len(outputs) == 0 && !*timing {
		return fmt.Errorf("run %d has no table or figure outputs "+
			"(evaluate stages make tables; kernel, visualize and panels stages make figures)", id)
	}
	written := runreport.WriteOutputs(stdout, *out, id, outputs)
	for _, p := range written.Problems {
		fmt.Fprintf(stderr, "hylaflow report: %v\n", p)
	}
	if *timing {
		files, err := reportCmdTiming(stdout, c, *out, id)
		if err != nil {
			return failed(err)
		}
		written.Paths = append(written.Paths, files...)
	}
	runreport.WriteListing(stdout, *out, cliShowPath(*out), id, written.Paths)
	if len(written.Problems) > 0 {
		return exitStatus(exitStageFailed)
	}
	return nil
}

// reportCmdTiming writes the timing view of run id into out/timing/,
// prints its Markdown and returns the files written.
func reportCmdTiming(stdout io.Writer, c *cache.Cache, out string, id int64) ([]string, error) {
	rows, err := runreport.Timings(c, id)
	if err != nil {
		return nil, fmt.Errorf("run %d: timing: %w", id, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("run %d has no train stage to time", id)
	}
	md, files, err := runreport.WriteTiming(out, id, rows, paper.Timing)
	if err != nil {
		return nil, fmt.Errorf("timing: %w", err)
	}
	fmt.Fprintf(stdout, "<!-- timing (run %d) -->\n", id)
	stdout.Write(md)
	fmt.Fprintln(stdout)
	return files, nil
}
