package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/executor"
	"github.com/hylaflow/hylaflow/executor/slurm"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/internal/progress"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/supervise"
	"github.com/hylaflow/hylaflow/runreport"
	"github.com/hylaflow/hylaflow/runs"
	"github.com/hylaflow/hylaflow/table"
)

func init() {
	app.Register(&cli.Command{
		Name:     "run",
		Complete: completePipelines,
		Summary:  "run a pipeline, reusing every cached stage",
		Run:      runCmdRun,
	})
}

var runCmdUsage = helpText("run")

func runCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("run")
	jobs := fs.Int("j", runtime.NumCPU(), "stages run at once")
	cacheDir := fs.String("cache", "", "cache directory")
	noCache := fs.Bool("no-cache", false, "run every stage")
	keepGoing := fs.Bool("keep-going", false, "continue after a failure")
	memFlag := fs.String("mem", "", "memory budget of the stages run at once")
	quiet := fs.Bool("q", false, "quiet")
	verbose := fs.Bool("v", false, "verbose")
	allowCommands := fs.Bool("allow-commands", false, "run the programs of command stages")
	var force cli.Strings
	fs.Var(&force, "force", "run stage NAME even if cached; repeatable")
	var only cli.Strings
	fs.Var(&only, "only", "run only the stages PATTERN names and what they need; repeatable")
	var exFlags executor.Flags
	exFlags.RegisterFlags(fs)
	var lopts pipeline.LoadOptions
	lopts.RegisterFlags(fs)
	var rflags remoteFlags
	rflags.register(fs, true)
	files, err := cli.Parse(fs, args, stdout, runCmdUsage)
	switch {
	case err != nil:
		return err
	case len(files) != 1:
		return cli.UsageText(runCmdUsage, "want one pipeline file, got %d", len(files))
	case *jobs < 1:
		return cli.Usagef("-j %d: want at least 1", *jobs)
	case *quiet && *verbose:
		return cli.Usagef("-q and -v exclude each other")
	}
	memMB, err := runner.MemBudget(*memFlag)
	if err != nil {
		return cli.Usagef("--mem: %v", err)
	}
	restoreGC := runProbeGC()
	defer restoreGC()
	loadOut := stderr
	var loadDiags bytes.Buffer
	if runProbing {
		loadOut = &loadDiags
	}
	p, err := cliLoad(files[0], lopts, loadOut)
	if err != nil {
		if runProbing {
			runHandOff = true // the supervised child reports it
			return nil
		}
		return err
	}
	if p, err = pipeline.Only(p, only); err != nil {
		return cli.Usagef("%v", err)
	}
	if err := exFlags.Preflight(); err != nil {
		return cli.Usagef("%v", err)
	}
	c, err := cliOpenCache(*cacheDir, filepath.Dir(files[0]), true)
	if err != nil {
		return err
	}
	defer c.Close()
	planOpts := runner.PlanOptions{Force: force, NoCache: *noCache,
		AllowCommands: *allowCommands || runner.AllowCommandsFromEnv(os.Getenv(runner.AllowCommandsEnv))}
	var cachedPlan *runner.Plan
	if runProbing {
		if loadDiags.Len() > 0 {
			runHandOff = true // the child prints them
			return nil
		}
		if cachedPlan = runCachedPlan(p, c, planOpts); cachedPlan == nil {
			// A stage to run, or one only the remote store may have: the
			// supervised child runs it.
			runHandOff = true
			return nil
		}
	}
	rchoice, err := rflags.choose(c.Dir())
	if err != nil {
		return err
	}
	if rchoice.URL == "" && exFlags.Executor == "slurm" && executor.IsURL(exFlags.Store) && !cli.IsSet(fs, "remote") {
		// A remote store for the jobs is the run's remote too: the run
		// fetches what it has before planning the jobs, and its manifest
		// makes the remote's gc keep the keys the jobs pushed.
		rchoice.URL, rchoice.How = exFlags.Store, "--store"
	}
	var rwarn warnLog
	rs, err := cliRemoteStore(context.Background(), c, rchoice, !*noCache, rwarn.add)
	if err != nil {
		return err
	}
	var store runner.RunStore = c
	if rs != nil {
		store = rs
	}
	exFlags.Remote, exFlags.RemoteHow, exFlags.Producer = rchoice.URL, rchoice.How, cliProducer()
	executor, nJobs, err := exFlags.Build(store, *jobs, cli.IsSet(fs, "j"), *verbose, *quiet, stderr)
	if errors.Is(err, slurm.ErrRemoteUnusable) {
		return cli.Failed(err) // the store is down, the flags are right
	}
	if err != nil {
		return cli.Usagef("%v", err)
	}

	// Progress and the summary go to stderr (results go to stdout).
	width, isTerm := cli.Terminal(stderr)
	obs, progressDone := progress.New(stderr, *quiet, *verbose, width, isTerm)
	defer progressDone()

	ctx, stop := cli.Interruptible(true)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process
	}()
	runner.LimitHeap(memMB)
	if dir := supervise.Child(); dir != "" {
		obs = supervise.NewObserver(obs, dir, memMB)
	}
	opts := runner.RunOptions{
		PlanOptions: planOpts,
		Jobs:        nJobs,
		Executor:    executor,
		KeepGoing:   *keepGoing,
		MemMB:       memMB,
		Observer:    obs,
		Args:        append([]string{"run"}, args...),
		Plan:        cachedPlan,
	}
	prov, err := runs.Collect(files[0], lopts.VarFiles, lopts.Vars)
	if err == nil {
		prov.Data, err = runCmdData(p)
	}
	if err == nil {
		opts.Provenance, err = prov.Encode()
	}
	if err != nil {
		return cli.Failed(err)
	}
	if rs != nil && !*noCache && cachedPlan == nil {
		runCmdPrefetch(ctx, p, c, rs, opts.PlanOptions)
	}
	restoreGC() // stages may run (a gc removed a key meanwhile): the usual collector
	res, err := runner.Run(ctx, p, store, opts)
	progressDone() // erase the live block before the summary
	if res == nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "canceled before any stage started")
			return cli.ExitStatus(cli.ExitCanceled)
		}
		return err
	}
	progress.WriteSummary(stderr, res)
	if rs != nil {
		writeRemoteSummary(stderr, rs, res.Count(runner.StatusRan))
		rwarn.write(stderr, "hylaflow run")
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "hylaflow run: warning: %s\n", w)
	}
	if err != nil {
		fmt.Fprintf(stderr, "hylaflow run: %v\n", err)
	}
	if !*quiet {
		runCmdTables(stdout, stderr, c, res.RunID)
		fmt.Fprintf(stdout, "run %d, cache %s; 'hylaflow report' writes its tables and figures to %s/\n",
			res.RunID, cli.ShowPath(c.Dir()), cli.ShowPath(runreport.DefaultOut(filepath.Dir(files[0]))))
	}
	switch {
	case res.Status == runner.RunCanceled:
		return cli.ExitStatus(cli.ExitCanceled)
	case res.Status == runner.RunFailed, err != nil:
		return cli.ExitStatus(cli.ExitFailed)
	}
	return cli.Failed(runCmdPublish(res, c, runCmdStamp(res, c, prov, files[0]), *quiet, stdout, stderr))
}

// runCmdStamp is the provenance a run's published tables carry: the run,
// its day, the command that makes them again (the pipeline named within
// its repository, the -var-file and -var settings; flags that change no
// result, such as -j or --cache, left out, and so this machine's paths),
// the build's revision, the kernels and the variables.
func runCmdStamp(res *runner.RunResult, c *cache.Cache, prov *runs.Provenance, pipeline string) table.Provenance {
	rel := runreport.RepoPath(pipeline)
	cmd := []string{"hylaflow", "run", shellQuote(rel)}
	for _, f := range prov.VarFiles {
		cmd = append(cmd, "-var-file", shellQuote(runreport.RepoPath(f.Path)))
	}
	st := table.Provenance{RunID: res.RunID, Pipeline: rel, Revision: prov.Build.Revision, Dirty: prov.Build.Dirty,
		Kernel: prov.Kernel, Vars: prov.Vars}
	var names []string
	for k := range prov.Vars {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		cmd = append(cmd, "-var", shellQuote(k+"="+prov.Vars[k]))
	}
	st.Command = strings.Join(cmd, " ")
	if d, err := c.Run(res.RunID); err == nil {
		st.Date = d.Start.UTC().Format("2006-01-02")
	}
	return st
}

// shellQuote returns s as a POSIX shell word: as it is when it holds only
// characters no shell treats specially, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,=/:+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runProbing is set by main when `run` would be handed to a supervised
// child process (runner/supervise): runCmdRun then first plans the
// pipeline here (MakePlan writes nothing) and sets runHandOff instead of
// running when a stage needs to run (or the pipeline has diagnostics to
// print), so that a fully cached run finishes in this one process: no
// second process (start, runtime, cache and pipeline loaded again) for a
// run with nothing to compute and so nothing to run out of memory. The run
// then reuses that plan (RunOptions.Plan) instead of making it again.
var runProbing, runHandOff bool

// runProbeGC lets the heap of the probing process grow to five times its
// live data between collections (GOGC 400; unless GOGC is set) until the
// returned function restores the collector: loading and planning a large
// pipeline makes tens of MB of short-lived values, and with the default
// the collector ran a dozen times in a fully cached run of 502 stages, a
// quarter of its CPU time. A probing process only loads and plans (its
// stages run in the supervised child, or under the restored collector).
func runProbeGC() (restore func()) {
	if !runProbing || os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(400)
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(prev) }) }
}

// runCachedPlan returns the plan of p when every stage of it is cached
// (the leaves' payloads re-hashed as a run's plan does), else nil: a
// stage to run, or a plan that cannot be made (the child reports why).
func runCachedPlan(p *pipeline.Pipeline, c *cache.Cache, opts runner.PlanOptions) *runner.Plan {
	plan, err := runner.MakePlan(p, c, opts)
	if err != nil {
		return nil
	}
	for _, s := range plan.Steps {
		if !s.Cached {
			return nil
		}
	}
	return plan
}

// runCmdData lists the outside data the pipeline's instances read: each
// instance whose stage type fingerprints its files, with where they are
// read from (the type's Origin) and the fingerprint its key will hold.
func runCmdData(p *pipeline.Pipeline) ([]runs.DataInput, error) {
	var out []runs.DataInput
	for _, inst := range p.Instances {
		t := inst.Type
		if t.Fingerprint == nil {
			continue
		}
		fp, err := t.Fingerprint(inst.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: fingerprint of the data it reads: %w", inst.Address, err)
		}
		if fp == "" {
			continue
		}
		d := runs.DataInput{Address: inst.Address, Fingerprint: fp}
		if t.Origin != nil {
			d.Origin = t.Origin(inst.Params)
		}
		out = append(out, d)
	}
	return out, nil
}

// runCmdPublish carries out the pipeline's publish blocks after a
// successful run, stamps the published tables with the run's provenance
// (runreport.StampPublished) and says where the files went. A run with
// non-default variables says so even with -q (on stderr then): its files
// replaced those of the pipeline's defaults.
func runCmdPublish(res *runner.RunResult, c *cache.Cache, stamp table.Provenance, quiet bool, stdout, stderr io.Writer) error {
	done, err := runner.PublishOutputs(res, c)
	var files []runreport.PublishedFile
	for _, d := range done {
		members := map[string]string{} // file item name → member
		for _, pub := range res.Plan.Pipeline.Publish {
			if pub.Dir == d.Dir {
				for _, it := range pub.Items {
					if it.Member != "" {
						members[it.Name] = it.Member
					}
				}
			}
		}
		for _, f := range d.Files {
			rel, rerr := filepath.Rel(d.Dir, f)
			if rerr != nil {
				continue
			}
			rel = filepath.ToSlash(rel)
			member, ok := members[rel]
			if _, m, whole := strings.Cut(rel, "/"); whole {
				member, ok = m, true // DIR/NAME/MEMBER of a whole artifact
			}
			if ok {
				files = append(files, runreport.PublishedFile{Path: f, Member: member})
			}
		}
	}
	if _, serr := runreport.StampPublished(files, stamp); serr != nil {
		err = errors.Join(err, serr)
	}
	for _, d := range done {
		switch {
		case len(stamp.Vars) > 0:
			w := stdout
			if quiet {
				w = stderr
			}
			fmt.Fprintf(w, "published %d files to %s, from run %d with -var %s (not the pipeline's defaults; the files say so)\n",
				len(d.Files), cli.ShowPath(d.Dir), stamp.RunID, stamp.VarsText())
		case !quiet:
			fmt.Fprintf(stdout, "published %d files to %s\n", len(d.Files), cli.ShowPath(d.Dir))
		}
	}
	return err
}

// runCmdTables prints the tables of the run's evaluate stages that
// finished (runreport.WriteTablesText); a table that cannot be read is named
// on stderr.
func runCmdTables(stdout, stderr io.Writer, c *cache.Cache, runID int64) {
	for _, err := range runreport.WriteTablesText(stdout, c, cliRegistry(), runID) {
		fmt.Fprintf(stderr, "hylaflow run: %v\n", err)
	}
}

// runCmdPrefetch plans p against the local cache and fetches, several at
// once, the keys it lacks that the remote has, so the run finds them
// cached (the store would fetch them one by one as the plan looks them up).
func runCmdPrefetch(ctx context.Context, p *pipeline.Pipeline, c *cache.Cache, rs *remote.Store, popts runner.PlanOptions) {
	plan, err := runner.MakePlan(p, c, popts)
	if err != nil {
		return // Run makes the plan again and reports the error
	}
	var keys []string
	for _, s := range plan.Steps {
		if !s.Cached && s.Reason != "forced" {
			keys = append(keys, s.Key())
		}
	}
	rs.Prefetch(ctx, keys)
}
