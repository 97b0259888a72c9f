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

var reportCmdUsage = helpText("report")

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
