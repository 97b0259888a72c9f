package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/planview"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
)

func init() {
	app.Register(&cli.Command{
		Name:     "plan",
		Complete: completePipelines,
		Summary:  "show which stages a run would compute and why (writes nothing)",
		Run:      planCmdRun,
	})
}

var planCmdUsage = helpText("plan")

func planCmdRun(args []string, stdout, stderr io.Writer) error {
	fset := cli.FlagSet("plan")
	cacheDir := fset.String("cache", "", "cache directory")
	noCache := fset.Bool("no-cache", false, "plan to run every stage")
	keys := fset.Bool("keys", false, "print cache keys")
	mem := fset.Bool("mem", false, "print memory estimates")
	asJSON := fset.Bool("json", false, "JSON output")
	allowCommands := fset.Bool("allow-commands", false, "run version_argv of command stages")
	var force cli.Strings
	fset.Var(&force, "force", "plan stage NAME to run; repeatable")
	var only cli.Strings
	fset.Var(&only, "only", "plan only the stages PATTERN names and what they need; repeatable")
	var lopts pipeline.LoadOptions
	lopts.RegisterFlags(fset)
	var rflags remoteFlags
	rflags.register(fset, false)
	files, err := cli.Parse(fset, args, stdout, planCmdUsage)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return cli.UsageText(planCmdUsage, "want one pipeline file, got %d", len(files))
	}
	p, err := cliLoad(files[0], lopts, stderr)
	if err != nil {
		return err
	}
	if p, err = pipeline.Only(p, only); err != nil {
		return cli.Usagef("%v", err)
	}
	var store runner.PlanStore
	loc, err := cliCache(*cacheDir, filepath.Dir(files[0]))
	if err != nil {
		return cli.Failed(err)
	}
	dir := loc.Dir
	rchoice, err := rflags.choose(dir)
	if err != nil {
		return err
	}
	var local *cache.Cache
	if _, err := os.Stat(dir); err == nil {
		c, err := cache.OpenReadOnly(dir)
		if err != nil {
			return cli.Failed(fmt.Errorf("open the cache: %w", err))
		}
		defer c.Close()
		store, local = c, c
	} else if !errors.Is(err, fs.ErrNotExist) {
		return cli.Failed(err)
	}
	allow := *allowCommands || runner.AllowCommandsFromEnv(os.Getenv(runner.AllowCommandsEnv))
	plan, err := runner.MakePlan(p, runner.ReadOnlyStore{S: store}, runner.PlanOptions{Force: force, NoCache: *noCache, AllowCommands: allow})
	if err != nil {
		return err
	}
	if *asJSON {
		return cli.Failed(cacheops.WriteJSON(stdout, planview.JSON(files[0], dir, plan)))
	}
	planview.WriteMem(stdout, plan, *keys, *mem)
	planview.WriteCommands(stdout, plan, allow)
	for _, line := range p.PublishSummary(cli.ShowPath) {
		fmt.Fprintf(stdout, "publish %s\n", line)
	}
	if rchoice.URL != "" && !*noCache {
		return planCmdRemote(stdout, stderr, plan, local, rchoice)
	}
	return nil
}

// planCmdRemote says what a run would fetch from the remote: the stages
// the plan runs whose keys the remote has.
func planCmdRemote(stdout, stderr io.Writer, plan *runner.Plan, local *cache.Cache, ch remote.Choice) error {
	r, err := cliOpenRemote(context.Background(), ch)
	if err != nil {
		return err
	}
	defer r.Close()
	var keys []string
	for _, s := range plan.Steps {
		if !s.Cached && s.Reason != "forced" {
			keys = append(keys, s.Key())
		}
	}
	rs := remote.NewStore(local, r, remote.StoreOptions{})
	n, bytes, err := rs.Probe(context.Background(), keys)
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow plan: warning: remote %s: %v; the plan counts no stage from it\n", r.URL(), err)
		return nil
	}
	fmt.Fprintf(stdout, "remote: %d stages, %s to fetch (from %s)\n", n, cacheops.Size(bytes), r.URL())
	return nil
}
