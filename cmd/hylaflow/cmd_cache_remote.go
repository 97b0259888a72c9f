package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/remote"
	"github.com/hylaflow/hylaflow/runner"
)

// The cache subcommands that work with the remote store: push, pull and
// remote stats|verify|gc (the work is in package remote).

// cacheRemoteActions are the actions of `cache remote`.
var cacheRemoteActions = []string{"stats", "verify", "gc"}

// cacheRemoteOpen opens the local cache (to write when write) and the
// chosen remote; it fails when no remote is configured.
func cacheRemoteOpen(ctx context.Context, dirFlag string, rf *remoteFlags, write bool) (*cache.Cache, *remote.Remote, error) {
	cdir, err := cliCacheDir(dirFlag)
	if err != nil {
		return nil, nil, cli.Failed(err)
	}
	ch, err := rf.choose(cdir)
	if err != nil {
		return nil, nil, err
	}
	if ch.URL == "" {
		return nil, nil, cli.Usagef("no remote: pass --remote URL, set HYLAFLOW_REMOTE, or write remote = URL in %s", remote.ConfigPath(cdir))
	}
	r, err := cliOpenRemote(ctx, ch)
	if err != nil {
		return nil, nil, err
	}
	var c *cache.Cache
	if write {
		c, err = cache.Open(cdir)
	} else {
		c, err = cache.OpenReadOnly(cdir)
	}
	if err != nil {
		r.Close()
		return nil, nil, cli.Failed(fmt.Errorf("open the cache: %w", err))
	}
	return c, r, nil
}

// runKeys returns the keys run id of c used (cached or computed).
func runKeys(c *cache.Cache, id int64) ([]string, error) {
	d, err := c.Run(id)
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, s := range d.Stages {
		if (s.Status == runner.StatusCached || s.Status == runner.StatusRan) && !slices.Contains(keys, s.Key) {
			keys = append(keys, s.Key)
		}
	}
	return keys, nil
}

// cachePushRun is `cache push [--run N | KEY…]`.
func cachePushRun(args []string, stdout, stderr io.Writer) error {
	usage := helpText("cache-push")
	fs := cli.FlagSet("cache push")
	dir := fs.String("cache", "", "cache directory")
	run := fs.Int64("run", 0, "push the keys run N used")
	var rf remoteFlags
	rf.register(fs, false)
	pos, err := cli.Parse(fs, args, stdout, usage)
	if err != nil {
		return err
	}
	if *run != 0 && len(pos) > 0 {
		return cli.UsageText(usage, "--run and KEY arguments exclude each other")
	}
	ctx, stop := cli.Interruptible(false)
	defer stop()
	c, r, err := cacheRemoteOpen(ctx, *dir, &rf, true)
	if err != nil {
		return err
	}
	defer c.Close()
	defer r.Close()
	var keys []string
	switch {
	case *run != 0:
		if keys, err = runKeys(c, *run); err != nil {
			return cli.Failed(err)
		}
	case len(pos) > 0:
		for _, p := range pos {
			k, err := c.ResolveKey(p)
			if err != nil {
				return err // an unknown or ambiguous key is a usage error
			}
			keys = append(keys, k)
		}
	default:
		arts, err := c.List()
		if err != nil {
			return cli.Failed(err)
		}
		for _, a := range arts {
			if len(keys) == 0 || keys[len(keys)-1] != a.Key {
				keys = append(keys, a.Key)
			}
		}
	}
	var warns warnLog
	rs := remote.NewStore(c, r, remote.StoreOptions{Push: true, Producer: cliProducer(), Warn: warns.add})
	start := time.Now()
	rep := rs.PushKeys(ctx, keys)
	warns.write(stderr, "hylaflow cache push")
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "hylaflow cache push: %s\n", e)
	}
	fmt.Fprintf(stdout, "pushed %d keys (%s uploaded in %s) to %s; %d were there already",
		rep.Pushed, cacheops.Size(rep.Bytes), time.Since(start).Round(time.Millisecond), r.URL(), rep.Existed)
	if rep.Failed > 0 {
		fmt.Fprintf(stdout, "; %d failed", rep.Failed)
	}
	fmt.Fprintln(stdout)
	if rep.Failed > 0 {
		return cli.ExitStatus(cli.ExitFailed)
	}
	return nil
}

// cachePullRun is `cache pull [--run N | FILE]`.
func cachePullRun(args []string, stdout, stderr io.Writer) error {
	usage := helpText("cache-pull")
	fs := cli.FlagSet("cache pull")
	dir := fs.String("cache", "", "cache directory")
	run := fs.Int64("run", 0, "pull the keys run N used")
	var rf remoteFlags
	rf.register(fs, false)
	var lopts pipeline.LoadOptions
	lopts.RegisterFlags(fs)
	pos, err := cli.Parse(fs, args, stdout, usage)
	if err != nil {
		return err
	}
	if (*run != 0) == (len(pos) == 1) || len(pos) > 1 {
		return cli.UsageText(usage, "want a pipeline file or --run N")
	}
	ctx, stop := cli.Interruptible(false)
	defer stop()
	var keys []string
	var p *pipeline.Pipeline
	if len(pos) == 1 {
		if p, err = cliLoad(pos[0], lopts, stderr); err != nil {
			return err
		}
		if *dir == "" {
			loc, err := cliCache("", filepath.Dir(pos[0]))
			if err != nil {
				return cli.Failed(err)
			}
			*dir = loc.Dir
		}
	}
	c, r, err := cacheRemoteOpen(ctx, *dir, &rf, true)
	if err != nil {
		return err
	}
	defer c.Close()
	defer r.Close()
	if p != nil {
		plan, err := runner.MakePlan(p, c, runner.PlanOptions{})
		if err != nil {
			return err
		}
		for _, s := range plan.Steps {
			keys = append(keys, s.Key())
		}
	} else if keys, err = runKeys(c, *run); err != nil {
		return cli.Failed(err)
	}
	var warns warnLog
	rs := remote.NewStore(c, r, remote.StoreOptions{Fetch: true, Producer: cliProducer(), Warn: warns.add})
	var missing []string
	for _, k := range keys {
		if _, ok, err := c.Lookup(k); err == nil && !ok {
			missing = append(missing, k)
		}
	}
	n := rs.Prefetch(ctx, missing)
	warns.write(stderr, "hylaflow cache pull")
	cnt := rs.Counters()
	rate := ""
	if cnt.FetchTime > 0 && cnt.FetchedBytes > 0 {
		rate = fmt.Sprintf(", %.1f MB/s", float64(cnt.FetchedBytes)/1e6/cnt.FetchTime.Seconds())
	}
	fmt.Fprintf(stdout, "fetched %d of %d keys missing here (%s in %s%s) from %s; %d were cached already, %d are not on the remote\n",
		n, len(missing), cacheops.Size(cnt.FetchedBytes), cnt.FetchTime.Round(time.Millisecond), rate, r.URL(),
		len(keys)-len(missing), len(missing)-n)
	if rs.Down() != nil {
		return cli.ExitStatus(cli.ExitFailed)
	}
	return nil
}

// cacheRemoteRun is `cache remote stats|verify|gc`.
func cacheRemoteRun(args []string, stdout, stderr io.Writer) error {
	usage := helpText("cache-remote")
	fs := cli.FlagSet("cache remote")
	dir := fs.String("cache", "", "cache directory")
	asJSON := fs.Bool("json", false, "stats: JSON output")
	repair := fs.Bool("repair", false, "verify: remove damaged payloads and the records naming them")
	keepRuns := fs.Int("keep-runs", 20, "gc: run manifests whose keys are kept")
	olderThan := fs.String("older-than", "", "gc: also keep records written within this time")
	dryRun := fs.Bool("dry-run", false, "gc: only say what would be removed")
	var rf remoteFlags
	rf.register(fs, false)
	pos, err := cli.Parse(fs, args, stdout, usage)
	if err != nil {
		return err
	}
	if len(pos) != 1 || !slices.Contains(cacheRemoteActions, pos[0]) {
		return cli.UsageText(usage, "want one of stats, verify, gc")
	}
	var age time.Duration
	if *olderThan != "" {
		if age, err = cacheops.ParseAge(*olderThan); err != nil {
			return cli.Usagef("--older-than: %v", err)
		}
	}
	if *keepRuns < 0 {
		return cli.Usagef("--keep-runs %d: want 0 or more", *keepRuns)
	}
	ctx, stop := cli.Interruptible(false)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, remoteTimeout)
	defer cancel()
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		return cli.Failed(err)
	}
	ch, err := rf.choose(cdir)
	if err != nil {
		return err
	}
	if ch.URL == "" {
		return cli.Usagef("no remote: pass --remote URL, set HYLAFLOW_REMOTE, or write remote = URL in %s", remote.ConfigPath(cdir))
	}
	r, err := cliOpenRemote(ctx, ch)
	if err != nil {
		return err
	}
	defer r.Close()
	switch pos[0] {
	case "stats":
		s, err := r.Stats(ctx)
		if err != nil {
			return cli.Failed(err)
		}
		if *asJSON {
			return cli.Failed(cacheops.WriteJSON(stdout, map[string]any{"remote": r.URL(), "records": s.Records,
				"payloads": s.Objects, "bytes": s.Bytes, "runs": s.Runs, "slurm_files": s.SlurmFiles, "slurm_bytes": s.SlurmBytes}))
		}
		fmt.Fprintf(stdout, "remote %s: %d keys, %d payloads (%s), %d run manifests", r.URL(), s.Records, s.Objects, cacheops.Size(s.Bytes), s.Runs)
		if s.SlurmFiles > 0 {
			fmt.Fprintf(stdout, ", %d Slurm job files (%s)", s.SlurmFiles, cacheops.Size(s.SlurmBytes))
		}
		fmt.Fprintln(stdout)
		return nil
	case "verify":
		rep, err := r.Verify(ctx, true, *repair)
		if err != nil {
			return cli.Failed(err)
		}
		for _, p := range rep.Problems {
			fmt.Fprintln(stdout, p)
		}
		for _, p := range rep.Repaired {
			fmt.Fprintf(stdout, "repaired: %s\n", p)
		}
		fmt.Fprintf(stdout, "checked %d keys and %d payloads (%s): %d problems, %d payloads no key names\n",
			rep.Records, rep.Objects, cacheops.Size(rep.Bytes), len(rep.Problems), rep.Orphans)
		if len(rep.Problems) > 0 && !*repair {
			return cli.ExitStatus(cli.ExitFailed)
		}
		return nil
	default: // gc
		rep, err := r.GC(ctx, remote.GCOptions{KeepRuns: *keepRuns, OlderThan: age, DryRun: *dryRun})
		if err != nil {
			return cli.Failed(err)
		}
		verb := "removed"
		if *dryRun {
			verb = "would remove"
		}
		slurm := ""
		if rep.Slurm > 0 {
			slurm = fmt.Sprintf(" and %d Slurm job records and logs older than 7 days", rep.Slurm)
		}
		fmt.Fprintf(stdout, "%s %d keys, %d payloads (%s) and %d run manifests%s; kept %d keys\n",
			verb, rep.Records, rep.Objects, cacheops.Size(rep.Bytes), rep.Runs, slurm, rep.Kept)
		return nil
	}
}

// cacheVerifyRecompute is `cache verify --recompute N`: N stages fetched
// from a remote, drawn at random, are computed again here and their
// digests compared with the fetched ones.
func cacheVerifyRecompute(stdout io.Writer, c *cache.Cache, n int, seed int64) error {
	keys, err := c.KeysRecordedWith(remote.OriginPrefix)
	if err != nil {
		return cli.Failed(err)
	}
	// Only keys still stored can be compared.
	stored := keys[:0]
	for _, k := range keys {
		if _, ok, err := c.Lookup(k); err == nil && ok {
			stored = append(stored, k)
		}
	}
	keys = stored
	if len(keys) == 0 {
		fmt.Fprintln(stdout, "no stage of this cache was fetched from a remote (and is still stored): nothing to recompute")
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	if n < len(keys) {
		keys = keys[:n]
	}
	ctx, stop := cli.Interruptible(false)
	defer stop()
	bad := 0
	for _, r := range cacheops.Recompute(ctx, c, cliRegistry(), keys, runtime.NumCPU()) {
		switch {
		case r.Err != nil:
			bad++
			fmt.Fprintf(stdout, "error     %s %.12s: %v\n", r.Address, r.Key, r.Err)
		case r.Match:
			fmt.Fprintf(stdout, "same      %s %.12s (%s)\n", r.Address, r.Key, r.Took.Round(time.Millisecond))
		default:
			bad++
			fmt.Fprintf(stdout, "DIFFERENT %s %.12s: %v\n", r.Address, r.Key, r.Diffs)
		}
	}
	fmt.Fprintf(stdout, "recomputed %d of the %d stages fetched from a remote: %d differ or failed\n", len(keys), len(stored), bad)
	if bad > 0 {
		return cli.ExitStatus(cli.ExitFailed)
	}
	return nil
}
