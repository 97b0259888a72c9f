package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
)

func init() {
	registerCommand(&command{
		Name:    "exec-stage",
		Summary: "run one stage instance of the cache by its key (internal)",
		Hidden:  true,
		Run:     execStageCmdRun,
	})
}

const execStageCmdUsage = `Usage: hylaflow exec-stage [flags] KEY
       hylaflow exec-stage [flags] --task FILE

Runs the stage instance of one cache key outside any pipeline, as a
cluster executor does: the key's record (stage type, version, parameters,
input keys) comes from the cache (KEY) or from a task file written by an
executor (runner.TaskSpec JSON), the inputs are loaded from the cache, and
the outputs are stored there. A key that is stored already is not
recomputed unless --force is given. Prints the stored outputs.

Flags:
  --cache DIR    cache directory (default $HYLAFLOW_CACHE, else the nearest
                 .hylaflow here or above: see hylaflow cache --help)
  --task FILE    read the task from FILE instead of the cache's key record
  --force        recompute even if the key is stored
  --workers N    threads the stage may use (default: the number of cores)
  -v             print the stage's progress and log lines on stderr

Exit status: 0 ok, 1 the stage failed, 2 usage error, 130 canceled.
`

func execStageCmdRun(args []string, stdout, stderr io.Writer) int {
	fs := cliFlagSet("exec-stage", stderr)
	cacheDir := fs.String("cache", "", "cache directory")
	taskFile := fs.String("task", "", "task spec file")
	force := fs.Bool("force", false, "recompute even if stored")
	workers := fs.Int("workers", runtime.NumCPU(), "threads for the stage")
	verbose := fs.Bool("v", false, "verbose")
	pos, err := cliParse(fs, args)
	if err != nil {
		return cliFlagError(err, stdout, stderr, "exec-stage", execStageCmdUsage)
	}
	if (*taskFile == "") == (len(pos) != 1) || (*taskFile != "" && len(pos) != 0) {
		fmt.Fprint(stderr, "hylaflow exec-stage: give exactly one KEY or --task FILE\n\n"+execStageCmdUsage)
		return exitUsage
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "hylaflow exec-stage: --workers %d: want at least 1\n", *workers)
		return exitUsage
	}
	cdir, err := runCmdCacheDir(*cacheDir)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow exec-stage: %v\n", err)
		return exitStageFailed
	}
	c, err := cache.Open(cdir)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow exec-stage: open the cache: %v\n", err)
		return exitStageFailed
	}
	defer c.Close()

	hooks := runner.Hooks{}
	if *verbose {
		hooks.Progress = func(done, total int, msg string) {
			fmt.Fprintf(stderr, "%s progress %d/%d %s\n", time.Now().Format("15:04:05"), done, total, msg)
		}
		hooks.Logf = func(format string, a ...any) {
			fmt.Fprintf(stderr, "%s %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	reg := runCmdRegistry()
	var res *runner.Result
	if *taskFile != "" {
		b, err := os.ReadFile(*taskFile)
		if err != nil {
			fmt.Fprintf(stderr, "hylaflow exec-stage: %v\n", err)
			return exitStageFailed
		}
		var spec runner.TaskSpec
		if err := json.Unmarshal(b, &spec); err != nil {
			fmt.Fprintf(stderr, "hylaflow exec-stage: %s: not a task spec: %v\n", *taskFile, err)
			return exitStageFailed
		}
		spec.Workers, spec.Force = *workers, spec.Force || *force
		res, err = runner.ExecSpec(ctx, c, reg, &spec, hooks)
		if err != nil {
			return execStageCmdFail(ctx, err, stderr)
		}
	} else {
		rs, ok := any(c).(runner.RecordStore)
		if !ok {
			fmt.Fprintln(stderr, "hylaflow exec-stage: this cache cannot look up key records by key; use --task FILE")
			return exitStageFailed
		}
		res, err = runner.ExecKey(ctx, rs, reg, pos[0], *workers, *force, hooks)
		if err != nil {
			return execStageCmdFail(ctx, err, stderr)
		}
	}
	status := "ran"
	if res.Cached {
		status = "cached"
	}
	fmt.Fprintf(stdout, "%s in %s\n", status, runner.FormatDuration(res.Duration))
	for _, o := range res.Outputs {
		fmt.Fprintf(stdout, "%s/%s\t%s\t%s\t%d\n", o.Key, o.Name, o.Kind, o.Digest, o.Size)
	}
	return exitOK
}

func execStageCmdFail(ctx context.Context, err error, stderr io.Writer) int {
	fmt.Fprintf(stderr, "hylaflow exec-stage: %v\n", err)
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return exitCanceled
	}
	return exitStageFailed
}
