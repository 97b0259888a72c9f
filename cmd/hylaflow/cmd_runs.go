package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

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
	c, err := cliOpenCache(*dir, ".", false)
	if err != nil {
		return cli.InCommand(name, err)
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
		var note string
		if n, note, err = runs.ResolveID(c, id); note != "" {
			fmt.Fprintf(stderr, "hylaflow %s: %s\n", name, note)
		}
		if err == nil {
			err = runs.WriteShow(stdout, c, n, *asJSON, cacheCmdNow())
		}
	case "diff":
		var d *runs.Diff
		var note string
		if d, note, err = runs.LoadDiff(c, pos); note != "" {
			fmt.Fprintf(stderr, "hylaflow %s: %s\n", name, note)
		}
		if err == nil && *asJSON {
			err = cacheops.WriteJSON(stdout, d)
		} else if err == nil {
			err = runs.WriteDiff(stdout, d)
		}
	}
	return cli.InCommand(name, err)
}
