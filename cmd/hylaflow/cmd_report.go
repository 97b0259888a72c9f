package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/runreport"
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
	c, err := cliOpenCache(*dir, ".", false)
	if err != nil {
		return err
	}
	defer c.Close()
	id, err := reportCmdResolve(c, which, stderr)
	if err != nil {
		return err
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
		md, files, err := runreport.TimingView(c, *out, id)
		if err != nil {
			return cli.Failed(err)
		}
		fmt.Fprintf(stdout, "<!-- timing (run %d) -->\n%s\n", id, md)
		written.Paths = append(written.Paths, files...)
	}
	runreport.WriteListing(stdout, *out, cli.ShowPath(*out), id, written.Paths)
	if *html {
		file := *htmlOut
		if file == "" {
			file = filepath.Join(*out, runreport.DefaultHTML(id))
		}
		if err := runreport.WritePage(c, cliRegistry(), id, nil, file); err != nil {
			return cli.Failed(err)
		}
		fmt.Fprintf(stdout, "wrote the HTML report of run %d to %s\n", id, cli.ShowPath(file))
	}
	if len(written.Problems) > 0 {
		return cli.ExitStatus(cli.ExitFailed)
	}
	return nil
}

// reportCmdResolve resolves a run argument (runreport.ResolveRun), saying
// on stderr which run "latest" took when that needs saying.
func reportCmdResolve(c *cache.Cache, which string, stderr io.Writer) (int64, error) {
	id, note, err := runreport.ResolveRun(c, which)
	if note != "" {
		fmt.Fprintf(stderr, "hylaflow report: %s\n", note)
	}
	return id, err // a bad or unknown run is exit 2
}

// reportCmdCompare compares run a with run b (as runs diff does), prints
// the comparison as Markdown and writes it to out/compare-A-B.md and, with
// html, as a page of run b opening with it.
func reportCmdCompare(stdout, stderr io.Writer, cacheFlag, out, a, b string, html bool, htmlOut string) error {
	c, err := cliOpenCache(cacheFlag, ".", false)
	if err != nil {
		return err
	}
	defer c.Close()
	var ids [2]int64
	for i, which := range []string{a, b} {
		if ids[i], err = reportCmdResolve(c, which, stderr); err != nil {
			return err
		}
	}
	d, err := runreport.LoadCompare(c, ids[0], ids[1])
	if err != nil {
		return err // no such run: exit 2
	}
	md, mdFile, err := runreport.WriteCompare(out, ids[0], ids[1], d)
	stdout.Write(md)
	if err != nil {
		return cli.Failed(err)
	}
	fmt.Fprintf(stdout, "\nwrote the comparison of run %d with run %d to %s\n", ids[0], ids[1], cli.ShowPath(mdFile))
	if !html {
		return nil
	}
	file := htmlOut
	if file == "" {
		file = filepath.Join(out, runreport.DefaultCompareHTML(ids[0], ids[1]))
	}
	if err := runreport.WritePage(c, cliRegistry(), ids[1], d, file); err != nil {
		return cli.Failed(err)
	}
	fmt.Fprintf(stdout, "wrote the HTML comparison to %s\n", cli.ShowPath(file))
	return nil
}
