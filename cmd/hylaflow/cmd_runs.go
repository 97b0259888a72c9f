package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/runs"
)

func init() {
	app.Register(&cli.Command{
		Name:        "runs",
		Subcommands: runsCmdSubs,
		Summary:     "list past runs, show one with its provenance and stages, or diff two",
		Run:         runsCmdRun,
	})
}

var runsCmdUsage = helpText("runs")

// runsCmdSubs are runs' subcommands; the first is the default.
var runsCmdSubs = []string{"list", "show", "diff"}

func runsCmdRun(args []string, stdout, stderr io.Writer) error {
	sub := "list"
	if len(args) > 0 && slices.Contains(runsCmdSubs, args[0]) {
		sub, args = args[0], args[1:]
	}
	name := "runs " + sub
	fs := cli.FlagSet(name)
	dir := fs.String("cache", "", "cache directory")
	asJSON := fs.Bool("json", false, "JSON output")
	var limit *int
	if sub == "list" {
		limit = fs.Int("n", 20, "runs to list (0 = all)")
	}
	pos, err := cli.Parse(fs, args, stdout, runsCmdUsage)
	if err != nil {
		return err
	}
	switch {
	case sub == "list" && len(pos) > 0, sub == "show" && len(pos) > 1, sub == "diff" && len(pos) > 2:
		return cli.InCommand(name, cli.UsageText(runsCmdUsage, "unexpected arguments %s", strings.Join(pos, " ")))
	case sub == "diff" && len(pos) == 1:
		return cli.InCommand(name, cli.UsageText(runsCmdUsage, "want two runs A and B (or none: the last two), got %s", pos[0]))
	case sub == "list" && *limit < 0:
		return cli.InCommand(name, cli.Usagef("-n %d: want 0 or more", *limit))
	}
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		return cli.InCommand(name, cli.Failed(err))
	}
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		return cli.InCommand(name, cli.Failed(err))
	}
	defer c.Close()
	switch sub {
	case "list":
		err = runs.WriteList(stdout, c, *limit, *asJSON, cacheCmdNow())
	case "show":
		id := "last"
		if len(pos) == 1 {
			id = pos[0]
		}
		var n int64
		if n, err = runsCmdID(c, id); err == nil {
			err = runs.WriteShow(stdout, c, n, *asJSON, cacheCmdNow())
		}
	case "diff":
		err = runsCmdDiff(c, pos, *asJSON, stdout)
	}
	return cli.InCommand(name, err)
}

// runsCmdID resolves a run argument: a number (optionally "#N") or "last".
func runsCmdID(c *cache.Cache, arg string) (int64, error) {
	if arg == "last" || arg == "latest" {
		runs, err := c.Runs(1)
		if err != nil {
			return 0, err
		}
		if len(runs) == 0 {
			return 0, cli.Failed(fmt.Errorf("no runs recorded in %s", c.Dir()))
		}
		return runs[0].ID, nil
	}
	v, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || v <= 0 {
		return 0, cli.Usagef("run id %q: want a positive number or \"last\"", arg)
	}
	return v, nil
}

// runsCmdDiff compares two runs: pos holds A and B, or nothing for the
// last two runs.
func runsCmdDiff(c *cache.Cache, pos []string, asJSON bool, w io.Writer) error {
	var ids [2]int64
	if len(pos) == 0 {
		last, err := c.Runs(2)
		if err != nil {
			return cli.Failed(err)
		}
		if len(last) < 2 {
			return cli.Failed(fmt.Errorf("%d runs recorded in %s: want two to compare", len(last), c.Dir()))
		}
		ids = [2]int64{last[1].ID, last[0].ID}
	}
	for i, arg := range pos {
		id, err := runsCmdID(c, arg)
		if err != nil {
			return err
		}
		ids[i] = id
	}
	var loaded [2]*runs.Run
	for i, id := range ids {
		r, err := runs.Load(c, id)
		if err != nil {
			return err
		}
		loaded[i] = r
	}
	d := runs.Compare(loaded[0], loaded[1])
	if asJSON {
		return cacheops.WriteJSON(w, d)
	}
	return runs.WriteDiff(w, d)
}
