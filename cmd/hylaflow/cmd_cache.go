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

const cacheCmdUsage = `Usage: hylaflow cache SUBCOMMAND [flags]

Subcommands:
  ls       list the stored artifacts (--json for machine-readable output)
  stats    count keys, artifacts, payloads, bytes and runs, by stage type (--json)
  verify   re-hash every payload and check the index; exit 1 on problems
  gc       remove what recent runs and recent use do not keep
  clear    remove everything (needs --yes)
  export   KEY[/OUTPUT] FILE: copy an artifact out of the cache

Every subcommand takes --cache DIR and --help.

Where the cache is: --cache DIR, else $HYLAFLOW_CACHE, else found as git
finds its repository: the nearest directory named .hylaflow in the start
directory or above it, stopping at the repository root (the directory
holding .git). run and plan start from the pipeline file's directory, the
other commands from the working directory. When there is none, run creates
it at the repository root, or beside the pipeline file outside a
repository. So 'hylaflow run pipelines/quickstart.hcl' in a clone and
'cd pipelines && hylaflow run quickstart.hcl' share CLONE/.hylaflow, and
every command anywhere in the clone uses it. run says where it is.
 Artifacts are zip files of .npy/.json members: numpy.load opens
them, and scipy.sparse.load_npz opens those holding one unnamed sparse matrix.
`

var cacheCmdSubUsage = map[string]string{
	"ls": `Usage: hylaflow cache ls [--json] [--sort ORDER] [--cache DIR] [PREFIX...]

Lists every stored artifact: its key (first 12 hex digits; any unique prefix
works with export), output name, kind, payload size, the stage instance
that made it, when it was stored and when it was last used. With PREFIX
arguments only the artifacts whose stage address (e.g. train.cora) or key
starts with one of them are listed.
  --sort ORDER   stage (default: by stage address, key, output), size (largest
                 first), stored or used (oldest first)
  --json         one JSON array of {key, output, kind, digest, size, address,
                 created, last_used}
`,
	"stats": `Usage: hylaflow cache stats [--json] [--cache DIR]

Summarises the cache: stored keys (stage results), artifacts (outputs),
distinct payload files and their bytes, and recorded runs; then the
artifacts and their bytes per stage type, largest first.
  --json   one JSON object {dir, keys, artifacts, objects, bytes, runs,
           by_stage_type: [{type, artifacts, bytes}]}
`,
	"verify": `Usage: hylaflow cache verify [--repair] [--cache DIR]

Re-hashes every payload and checks the index against the payload files both
ways. Prints each problem on its own line and exits 1 if there is any.
Payload files no key refers to (left by a killed process) are reported as
orphans; they are harmless and gc removes them.
  --repair   fix what was found: keys whose payload is missing, truncated or
             damaged lose their outputs (the next run recomputes them) and
             damaged or stray files are removed; exits 0 when everything
             found was fixed. A damaged index cannot be repaired (payloads
             carry no keys): 'hylaflow cache clear --yes' starts afresh.
`,
	"gc": `Usage: hylaflow cache gc [--keep-runs N] [--older-than D] [--dry-run] [--cache DIR]

Removes stored keys and payloads that are not kept. Kept are: everything the
N most recent runs used or made (and, transitively, their inputs), runs in
progress, keys being computed, and with --older-than everything used within
that time. Run history is kept.
  --keep-runs N    runs whose artifacts are kept (default 5)
  --older-than D   also keep whatever was used within D (e.g. 36h, 7d, 2w);
                   default: no age rule
  --dry-run        only say what would be removed, and list it: key,
                   output, kind, size and stage of every artifact, and
                   their total
`,
	"clear": `Usage: hylaflow cache clear --yes [--cache DIR]

Removes every stored key, payload and run from the cache. Without --yes it
only says what it would remove. When the index (index.db) is damaged, clear
--yes removes it with every payload and creates an empty cache: this is the
recovery from a damaged index.
`,
	"export": `Usage: hylaflow cache export KEY[/OUTPUT] FILE [--member NAME] [--cache DIR]

Copies the payload of one artifact to FILE (written completely or not at
all, mode 0666 less the umask; "-" writes to stdout), after checking its
digest. KEY may be any unique prefix of a key shown by 'hylaflow cache ls'
or 'hylaflow runs show'; OUTPUT may be left out when the key has only one
output. In Python: numpy.load(FILE) gives every member, e.g.
numpy.load(FILE)["values"]; scipy.sparse.load_npz(FILE) reads an artifact
holding a single unnamed sparse matrix.

  --member NAME   write only that member, as a file other tools open: a
                  sparse matrix (a graph's adj, a precompute's S) as an .npz
                  that scipy.sparse.load_npz reads, a dense matrix or vector
                  as an .npy (numpy.load), a JSON member as JSON, a file
                  member (chart.png) as its bytes
`,
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
