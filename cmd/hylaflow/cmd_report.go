package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/runreport"
	"github.com/hylaflow/hylaflow/runs"
)

func init() {
	app.Register(&cli.Command{
		Name:    "report",
		Summary: "write a run's tables and figures (md/csv/json/png/svg) from the cache into report/",
		Run:     reportCmdRun,
	})
}

var reportCmdUsage = helpText("report")

func reportCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("report")
	dir := fs.String("cache", "", "cache directory")
	out := fs.String("out", "", "output directory")
	timing := fs.Bool("timing", false, "also the timing view")
	html := fs.Bool("html", false, "also the HTML page")
	htmlOut := fs.String("o", "", "HTML file")
	compare := fs.Bool("compare", false, "compare two runs")
	pos, err := cli.Parse(fs, args, stdout, reportCmdUsage)
	switch {
	case err != nil:
		return err
	case cli.IsSet(fs, "o") && !*html:
		return cli.Usagef("-o names the HTML page: give --html too")
	case cli.IsSet(fs, "o") && *htmlOut == "":
		return cli.Usagef("-o must not be empty")
	case *compare && *timing:
		return cli.Usagef("--timing is for one run, not with --compare")
	case *compare && len(pos) != 2:
		return cli.UsageText(reportCmdUsage, "--compare wants two runs A B, got %d", len(pos))
	case !*compare && len(pos) > 1:
		return cli.UsageText(reportCmdUsage, "want at most one run, got %s", strings.Join(pos, " "))
	case *out == "" && cli.IsSet(fs, "out"):
		return cli.Usagef("--out must not be empty")
	case *out == "":
		*out = runreport.DefaultOut(".")
	}
	if *compare {
		return reportCmdCompare(stdout, stderr, *dir, *out, pos[0], pos[1], *html, *htmlOut)
	}
	which := "latest"
	if len(pos) == 1 {
		which = pos[0]
	}
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		return cli.Failed(err)
	}
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		return cli.Failed(err)
	}
	defer c.Close()
	id, note, err := runreport.ResolveRun(c, which)
	if note != "" {
		fmt.Fprintf(stderr, "hylaflow report: %s\n", note)
	}
	var badRun *runreport.BadRunError
	if errors.As(err, &badRun) {
		return cli.Usagef("%v", err)
	} else if err != nil {
		return err // an unknown run is exit 2
	}
	outputs, err := runreport.Collect(c, cliRegistry(), id, runreport.Kinds...)
	if err != nil {
		return fmt.Errorf("run %d: %w", id, err) // no such run: exit 2
	}
	if len(outputs) == 0 && !*timing && !*html {
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
			return cli.Failed(err)
		}
		written.Paths = append(written.Paths, files...)
	}
	runreport.WriteListing(stdout, *out, cli.ShowPath(*out), id, written.Paths)
	if *html {
		file := *htmlOut
		if file == "" {
			file = filepath.Join(*out, runreport.DefaultHTML(id))
		}
		pg, err := runreport.BuildPage(c, cliRegistry(), id)
		if err != nil {
			return cli.Failed(fmt.Errorf("run %d: %w", id, err))
		}
		if err := reportCmdWriteHTML(file, pg); err != nil {
			return cli.Failed(err)
		}
		fmt.Fprintf(stdout, "wrote the HTML report of run %d to %s\n", id, cli.ShowPath(file))
	}
	if len(written.Problems) > 0 {
		return cli.ExitStatus(cli.ExitFailed)
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

// reportCmdCompare compares run a with run b (runs.Compare, as runs diff
// does) and writes the comparison as Markdown (printed and written to
// out/compare-A-B.md) and, with html, as a page of run b opening with it.
func reportCmdCompare(stdout, stderr io.Writer, cacheFlag, out, a, b string, html bool, htmlOut string) error {
	cdir, err := cliCacheDir(cacheFlag)
	if err != nil {
		return cli.Failed(err)
	}
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		return cli.Failed(err)
	}
	defer c.Close()
	var ids [2]int64
	for i, which := range []string{a, b} {
		id, note, err := runreport.ResolveRun(c, which)
		if note != "" {
			fmt.Fprintf(stderr, "hylaflow report: %s\n", note)
		}
		var badRun *runreport.BadRunError
		if errors.As(err, &badRun) {
			return cli.Usagef("%v", err)
		} else if err != nil {
			return err
		}
		ids[i] = id
	}
	var rs [2]*runs.Run
	for i, id := range ids {
		if rs[i], err = runs.Load(c, id); err != nil {
			return fmt.Errorf("run %d: %w", id, err) // no such run: exit 2
		}
	}
	d := runs.Compare(rs[0], rs[1])
	var md bytes.Buffer
	runreport.WriteCompareMarkdown(&md, d)
	stdout.Write(md.Bytes())
	if err := os.MkdirAll(out, 0o755); err != nil {
		return cli.Failed(err)
	}
	mdFile := filepath.Join(out, fmt.Sprintf("compare-%d-%d.md", ids[0], ids[1]))
	if err := os.WriteFile(mdFile, md.Bytes(), 0o644); err != nil {
		return cli.Failed(err)
	}
	fmt.Fprintf(stdout, "\nwrote the comparison of run %d with run %d to %s\n", ids[0], ids[1], cli.ShowPath(mdFile))
	if !html {
		return nil
	}
	pg, err := runreport.BuildPage(c, cliRegistry(), ids[1])
	if err != nil {
		return cli.Failed(fmt.Errorf("run %d: %w", ids[1], err))
	}
	pg.Compare = d
	file := htmlOut
	if file == "" {
		file = filepath.Join(out, runreport.DefaultCompareHTML(ids[0], ids[1]))
	}
	if err := reportCmdWriteHTML(file, pg); err != nil {
		return cli.Failed(err)
	}
	fmt.Fprintf(stdout, "wrote the HTML comparison to %s\n", cli.ShowPath(file))
	return nil
}

// reportCmdWriteHTML renders pg into file (its directory created).
func reportCmdWriteHTML(file string, pg *runreport.Page) error {
	var b bytes.Buffer
	if err := pg.Render(&b); err != nil {
		return fmt.Errorf("HTML report: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}
