package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
)

func init() {
	registerCommand(&command{
		Name:    "report",
		Summary: "re-emit the tables (md/csv/json/png) of a run's evaluate stages from the cache",
		Run:     reportCmdRun,
	})
}

const reportCmdUsage = `Usage: hylaflow report [RUN|latest] [--out DIR] [--cache DIR]

Finds the evaluate stages of run RUN (a number from hylaflow runs; default:
latest, the most recent run), loads their tables from the cache and writes
every file of each table (table.md, table.csv, table.json, chart.png) into
DIR/ADDRESS/, ADDRESS being the stage instance (e.g. evaluate.table1). The
Markdown tables are printed too. Nothing is recomputed and nothing in the
cache changes; a table whose stage failed, or whose payload is gone (gc,
clear), is reported as missing.

  --out DIR    where to write the files (default: report)
  --cache DIR  cache directory (default $HYLAFLOW_CACHE, else .hylaflow)

Exit status: 0 ok, 1 a table is missing or unreadable, 2 usage error.
`

func reportCmdRun(args []string, stdout, stderr io.Writer) int {
	fs := runCmdFlagSet("report", stderr)
	dir := fs.String("cache", "", "cache directory")
	out := fs.String("out", "report", "output directory")
	pos, err := runCmdParse(fs, args)
	if err != nil {
		return runCmdUsageError(err, stdout, stderr, "report", reportCmdUsage)
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "hylaflow report: want at most one run, got %s\n\n%s", strings.Join(pos, " "), reportCmdUsage)
		return exitUsage
	}
	which := "latest"
	if len(pos) == 1 {
		which = pos[0]
	}
	if *out == "" {
		fmt.Fprintln(stderr, "hylaflow report: --out must not be empty")
		return exitUsage
	}
	c, err := cache.OpenReadOnly(runCmdCacheDir(*dir))
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow report: %v\n", err)
		return exitStageFailed
	}
	defer c.Close()
	id, err := reportCmdRunID(c, which)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow report: %v\n", err)
		if errors.Is(err, errReportUsage) {
			return exitUsage
		}
		return exitStageFailed
	}
	tables, err := reportCollect(c, id)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow report: run %d: %v\n", id, err)
		return exitStageFailed
	}
	if len(tables) == 0 {
		fmt.Fprintf(stderr, "hylaflow report: run %d has no evaluate stage\n", id)
		return exitStageFailed
	}
	code := exitOK
	for _, t := range tables {
		if t.err != nil {
			fmt.Fprintf(stderr, "hylaflow report: run %d: %s: %v\n", id, t.address, t.err)
			code = exitStageFailed
			continue
		}
		files, err := reportWrite(*out, t)
		if err != nil {
			fmt.Fprintf(stderr, "hylaflow report: %v\n", err)
			code = exitStageFailed
			continue
		}
		fmt.Fprintf(stdout, "<!-- %s (run %d): %s -->\n", t.address, id, strings.Join(files, ", "))
		if md, err := t.table.File("table.md"); err == nil {
			stdout.Write(md)
			if len(md) > 0 && md[len(md)-1] != '\n' {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintln(stdout)
		}
	}
	return code
}

var errReportUsage = errors.New("usage")

// reportCmdRunID resolves RUN or "latest" (also "last") to a run id.
func reportCmdRunID(c *cache.Cache, which string) (int64, error) {
	if which == "latest" || which == "last" {
		runs, err := c.Runs(1)
		if err != nil {
			return 0, err
		}
		if len(runs) == 0 {
			return 0, fmt.Errorf("the cache %s has no runs yet", c.Dir())
		}
		return runs[0].ID, nil
	}
	id, err := strconv.ParseInt(which, 10, 64)
	if err != nil || id < 1 {
		return 0, fmt.Errorf("run %q: want a run number or latest: %w", which, errReportUsage)
	}
	return id, nil
}

// reportTable is one evaluate stage of a run and its loaded table.
type reportTable struct {
	address string
	table   *artifact.Artifact
	err     error
}

// reportCollect loads the table of every evaluate stage of run id, in the
// run's stage order.
func reportCollect(c *cache.Cache, id int64) ([]reportTable, error) {
	run, err := c.Run(id)
	if err != nil {
		return nil, err
	}
	var out []reportTable
	for _, s := range run.Stages {
		if !reportIsEvaluate(c, s) {
			continue
		}
		t := reportTable{address: s.Address}
		switch s.Status {
		case "ran", "cached":
			t.table, t.err = reportLoadTable(c, s.Key)
		default:
			t.err = fmt.Errorf("the stage did not finish in that run (%s)", s.Status)
		}
		out = append(out, t)
	}
	return out, nil
}

// reportIsEvaluate tells whether a run's stage is an evaluate stage: by its
// key record when the cache has it, else by its address.
func reportIsEvaluate(c *cache.Cache, s cache.StageRecord) bool {
	if s.Key != "" {
		if rec, ok, err := c.Record(s.Key); err == nil && ok {
			return rec.StageType == "evaluate"
		}
	}
	return strings.HasPrefix(s.Address, "evaluate.")
}

// reportLoadTable loads the table output of key.
func reportLoadTable(c *cache.Cache, key string) (*artifact.Artifact, error) {
	refs, ok, err := c.Lookup(key)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("key %.12s… is no longer in the cache (rerun the pipeline)", key)
	}
	for _, r := range refs {
		if r.Kind == artifact.KindTable {
			return c.Load(r)
		}
	}
	return nil, fmt.Errorf("key %.12s… has no table output", key)
}

var reportUnsafe = regexp.MustCompile(`[^A-Za-z0-9._=,-]+`)

// reportDirName turns a stage address into a directory name:
// evaluate.reddit["synthetic"] → evaluate.reddit-synthetic.
func reportDirName(address string) string {
	s := reportUnsafe.ReplaceAllString(address, "-")
	s = strings.Trim(s, "-.")
	if s == "" {
		s = "table"
	}
	return s
}

// reportWrite writes every file member of t into out/ADDRESS/ and returns
// the written paths.
func reportWrite(out string, t reportTable) ([]string, error) {
	dir := filepath.Join(out, reportDirName(t.address))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, name := range t.table.Names() {
		b, err := t.table.File(name)
		if err != nil {
			continue // not a file member
		}
		if name != filepath.Base(name) || name == "." || name == ".." {
			return files, fmt.Errorf("%s: member %q is not a plain file name", t.address, name)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return files, err
		}
		files = append(files, p)
	}
	return files, nil
}
