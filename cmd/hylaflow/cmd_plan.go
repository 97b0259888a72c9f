package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/planview"
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
	var lopts runner.LoadOptions
	lopts.RegisterFlags(fset)
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
	var store runner.PlanStore
	loc, err := cliCache(*cacheDir, filepath.Dir(files[0]))
	if err != nil {
		return cli.Failed(err)
	}
	dir := loc.Dir
	if _, err := os.Stat(dir); err == nil {
		c, err := cache.OpenReadOnly(dir)
		if err != nil {
			return cli.Failed(fmt.Errorf("open the cache: %w", err))
		}
		defer c.Close()
		store = c
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
	return nil
}
