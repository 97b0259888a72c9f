package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
)

func init() {
	registerCommand(&command{
		Name:    "cache",
		Summary: "inspect, verify, export from and clean the artifact cache",
		Run:     cacheCmdRun,
	})
}

var cacheCmdUsage = helpText("cache")

var cacheCmdSubUsage = map[string]string{
	"ls":     helpText("cache-ls"),
	"stats":  helpText("cache-stats"),
	"verify": helpText("cache-verify"),
	"gc":     helpText("cache-gc"),
	"clear":  helpText("cache-clear"),
	"export": helpText("cache-export"),
}

// cacheCmdNow is the clock used for relative ages (tests may replace it).
var cacheCmdNow = time.Now

func cacheCmdRun(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageText(cacheCmdUsage, "")
	}
	sub := args[0]
	switch sub {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, cacheCmdUsage)
		return nil
	}
	usage, ok := cacheCmdSubUsage[sub]
	if !ok {
		return usageText(cacheCmdUsage, "unknown subcommand %q", sub)
	}
	name := "cache " + sub
	return inCommand(name, cacheCmdSub(sub, usage, args[1:], stdout, stderr))
}

// cacheCmdSub runs subcommand sub of cache with its arguments.
func cacheCmdSub(sub, usage string, args []string, stdout, stderr io.Writer) error {
	fs := cliFlagSet("cache " + sub)
	dir := fs.String("cache", "", "cache directory")
	var asJSON, dryRun, yes, repair *bool
	var member *string
	var keepRuns *int
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
	case "export":
		member = fs.String("member", "", "write only this member")
	}
	pos, err := cliFlags(fs, args, stdout, usage)
	if err != nil {
		return err
	}
	wantArgs := 0
	if sub == "export" {
		wantArgs = 2
	}
	if len(pos) != wantArgs && sub != "ls" {
		return usageText(usage, "want %d arguments, got %d", wantArgs, len(pos))
	}
	if sub == "ls" && !slices.Contains(cacheops.SortOrders, *sortBy) {
		return usagef("--sort %q: want stage, size, stored or used", *sortBy)
	}
	var age time.Duration
	if sub == "gc" {
		if *olderThan != "" {
			if age, err = cacheops.ParseAge(*olderThan); err != nil {
				return usagef("--older-than: %v", err)
			}
		}
		if *keepRuns < 0 {
			return usagef("--keep-runs %d: want 0 or more", *keepRuns)
		}
	}
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		return failed(err)
	}
	var c *cache.Cache
	switch {
	case sub == "gc" || sub == "clear" || sub == "verify" && *repair:
		if _, err := os.Stat(cdir); err != nil {
			return failed(fmt.Errorf("no cache at %s: %w", cdir, err))
		}
		c, err = cache.Open(cdir)
		if sub == "clear" && *yes && errors.Is(err, cache.ErrIndexDamaged) {
			return cacheCmdReset(cdir, stdout, stderr)
		}
	default:
		// Reading commands never create or modify a cache.
		c, err = cache.OpenReadOnly(cdir)
	}
	if err != nil {
		return failed(err)
	}
	defer c.Close()

	switch sub {
	case "ls":
		err = cacheops.List(stdout, c, cacheops.ListOptions{Prefixes: pos, Sort: *sortBy, JSON: *asJSON, Now: cacheCmdNow()})
	case "stats":
		err = cacheops.Stats(stdout, c, *asJSON)
	case "verify":
		clean, err := cacheops.Verify(stdout, c, *repair)
		if err == nil && !clean {
			return exitStatus(exitStageFailed)
		}
		return failed(err)
	case "gc":
		err = cacheops.GC(stdout, c, cache.GCOptions{KeepRuns: *keepRuns, OlderThan: age, DryRun: *dryRun})
	case "clear":
		if !*yes {
			what, err := cacheops.Contents(c)
			if err != nil {
				return failed(err)
			}
			return usagef("would remove %s from %s; pass --yes to do it", what, c.Dir())
		}
		err = cacheops.Clear(stdout, c)
		if errors.Is(err, cache.ErrIndexDamaged) {
			c.Close()
			return cacheCmdReset(cdir, stdout, stderr)
		}
	case "export":
		if *member != "" {
			err = cacheops.ExportMember(stdout, stderr, c, pos[0], *member, pos[1])
		} else {
			err = cacheops.Export(stdout, stderr, c, pos[0], pos[1])
		}
		return err // an unknown key or output is exit 2
	}
	return failed(err)
}

// cacheCmdReset empties a cache whose index SQLite cannot read (clear --yes).
func cacheCmdReset(dir string, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "hylaflow cache clear: %s is damaged (SQLite cannot read it); removing it with every payload\n", filepath.Join(dir, "index.db"))
	return failed(cacheops.Reset(stdout, dir))
}
