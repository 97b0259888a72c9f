package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/cli"
)

func init() {
	app.Register(&cli.Command{
		Name:        "cache",
		Subcommands: cacheCmdSubs,
		Summary:     "inspect, verify, export from and clean the artifact cache",
		Run:         cacheCmdRun,
	})
}

var cacheCmdUsage = helpText("cache")

// cacheCmdSubs are cache's subcommands, each with its usage text in
// help/cache-SUB.txt.
var cacheCmdSubs = []string{"ls", "stats", "verify", "gc", "clear", "export", "push", "pull", "remote"}

// cacheCmdNow is the clock used for relative ages (tests may replace it).
var cacheCmdNow = time.Now

func cacheCmdRun(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return cli.UsageText(cacheCmdUsage, "")
	}
	sub := args[0]
	switch sub {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, cacheCmdUsage)
		return nil
	}
	if !slices.Contains(cacheCmdSubs, sub) {
		return cli.UsageText(cacheCmdUsage, "unknown subcommand %q", sub)
	}
	name := "cache " + sub
	switch sub {
	case "push":
		return cli.InCommand(name, cachePushRun(args[1:], stdout, stderr))
	case "pull":
		return cli.InCommand(name, cachePullRun(args[1:], stdout, stderr))
	case "remote":
		return cli.InCommand(name, cacheRemoteRun(args[1:], stdout, stderr))
	}
	return cli.InCommand(name, cacheCmdSub(sub, helpText("cache-"+sub), args[1:], stdout, stderr))
}

// cacheCmdSub runs subcommand sub of cache with its arguments.
func cacheCmdSub(sub, usage string, args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("cache " + sub)
	dir := fs.String("cache", "", "cache directory")
	var asJSON, dryRun, yes, repair *bool
	var member *string
	var keepRuns, recompute *int
	var olderThan, sortBy *string
	switch sub {
	case "ls", "stats":
		asJSON = fs.Bool("json", false, "JSON output")
		if sub == "ls" {
			sortBy = fs.String("sort", "stage", "order: stage, size, stored or used")
		}
	case "gc":
		keepRuns = fs.Int("keep-runs", 5, "runs whose artifacts are kept")
		olderThan = fs.String("older-than", "", "keep whatever was used within this time")
		dryRun = fs.Bool("dry-run", false, "only say what would be removed")
	case "clear":
		yes = fs.Bool("yes", false, "really remove everything")
	case "verify":
		repair = fs.Bool("repair", false, "drop damaged entries so the next run recomputes them")
		recompute = fs.Int("recompute", 0, "recompute N stages fetched from a remote and compare digests")
	case "export":
		member = fs.String("member", "", "write only this member")
	}
	pos, err := cli.Parse(fs, args, stdout, usage)
	if err != nil {
		return err
	}
	wantArgs := 0
	if sub == "export" {
		wantArgs = 2
	}
	if len(pos) != wantArgs && sub != "ls" {
		return cli.UsageText(usage, "want %d arguments, got %d", wantArgs, len(pos))
	}
	if sub == "ls" && !slices.Contains(cacheops.SortOrders, *sortBy) {
		return cli.Usagef("--sort %q: want stage, size, stored or used", *sortBy)
	}
	var age time.Duration
	if sub == "gc" {
		if *olderThan != "" {
			if age, err = cacheops.ParseAge(*olderThan); err != nil {
				return cli.Usagef("--older-than: %v", err)
			}
		}
		if *keepRuns < 0 {
			return cli.Usagef("--keep-runs %d: want 0 or more", *keepRuns)
		}
	}
	loc, err := cliCache(*dir, ".")
	if err != nil {
		return cli.Failed(err)
	}
	cdir := loc.Dir
	if _, statErr := os.Stat(cdir); sub == "export" && statErr != nil && (loc.How == cache.FromRepo || loc.How == cache.FromStart) {
		return cli.Failed(fmt.Errorf("no cache found: no %s directory in the working directory or above it (up to the repository root); "+
			"run a pipeline first, or give --cache DIR or $HYLAFLOW_CACHE", cache.DirName))
	}
	if sub == "clear" && *yes {
		return cli.Failed(cacheops.ClearDir(stdout, cdir, func(index string) {
			fmt.Fprintf(stderr, "hylaflow cache clear: %s is damaged (SQLite cannot read it); removing it with every payload\n", index)
		}))
	}
	c, err := cacheops.Open(cdir, sub == "gc" || sub == "clear" || sub == "verify" && *repair)
	if err != nil {
		return cli.Failed(err)
	}
	defer c.Close()

	switch sub {
	case "ls":
		err = cacheops.List(stdout, c, cacheops.ListOptions{Prefixes: pos, Sort: *sortBy, JSON: *asJSON, Now: cacheCmdNow()})
	case "stats":
		err = cacheops.Stats(stdout, c, *asJSON)
	case "verify":
		if *recompute < 0 {
			return cli.Usagef("--recompute %d: want 1 or more", *recompute)
		}
		if *recompute > 0 {
			return cacheVerifyRecompute(stdout, c, *recompute, time.Now().UnixNano())
		}
		clean, err := cacheops.Verify(stdout, c, *repair)
		if err == nil && !clean {
			return cli.ExitStatus(cli.ExitFailed)
		}
		return cli.Failed(err)
	case "gc":
		err = cacheops.GC(stdout, c, cache.GCOptions{KeepRuns: *keepRuns, OlderThan: age, DryRun: *dryRun})
	case "clear": // without --yes
		what, err := cacheops.Contents(c)
		if err != nil {
			return cli.Failed(err)
		}
		return cli.Usagef("would remove %s from %s; pass --yes to do it", what, c.Dir())
	case "export":
		if *member != "" {
			err = cacheops.ExportMember(stdout, stderr, c, pos[0], *member, pos[1])
		} else {
			err = cacheops.Export(stdout, stderr, c, pos[0], pos[1])
		}
		return err // an unknown key or output is exit 2
	}
	return cli.Failed(err)
}
