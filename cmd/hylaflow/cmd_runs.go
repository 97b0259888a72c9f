package main

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runs"
	"github.com/hylaflow/hylaflow/stages/schema"
)

func init() {
	registerCommand(&command{
		Name:    "runs",
		Summary: "list past runs, show one with its provenance and stages, or diff two",
		Run:     runsCmdRun,
	})
}

var runsCmdUsage = helpText("runs")

func runsCmdRun(args []string, stdout, stderr io.Writer) error {
	sub := "list"
	if len(args) > 0 && (args[0] == "list" || args[0] == "show" || args[0] == "diff") {
		sub, args = args[0], args[1:]
	}
	name := "runs " + sub
	fs := cliFlagSet(name)
	dir := fs.String("cache", "", "cache directory")
	asJSON := fs.Bool("json", false, "JSON output")
	var limit *int
	if sub == "list" {
		limit = fs.Int("n", 20, "runs to list (0 = all)")
	}
	pos, err := cliFlags(fs, args, stdout, runsCmdUsage)
	if err != nil {
		return err
	}
	switch {
	case sub == "list" && len(pos) > 0, sub == "show" && len(pos) > 1, sub == "diff" && len(pos) > 2:
		return inCommand(name, usageText(runsCmdUsage, "unexpected arguments %s", strings.Join(pos, " ")))
	case sub == "diff" && len(pos) == 1:
		return inCommand(name, usageText(runsCmdUsage, "want two runs A and B (or none: the last two), got %s", pos[0]))
	case sub == "list" && *limit < 0:
		return inCommand(name, usagef("-n %d: want 0 or more", *limit))
	}
	cdir, err := cliCacheDir(*dir)
	if err != nil {
		return inCommand(name, failed(err))
	}
	c, err := cache.OpenReadOnly(cdir)
	if err != nil {
		return inCommand(name, failed(err))
	}
	defer c.Close()
	switch sub {
	case "list":
		err = runsCmdList(c, *limit, *asJSON, stdout)
	case "show":
		id := "last"
		if len(pos) == 1 {
			id = pos[0]
		}
		err = runsCmdShow(c, id, *asJSON, stdout)
	case "diff":
		err = runsCmdDiff(c, pos, *asJSON, stdout)
	}
	return inCommand(name, err)
}

// runsCmdID resolves a run argument: a number (optionally "#N") or "last".
func runsCmdID(c *cache.Cache, arg string) (int64, error) {
	if arg == "last" || arg == "latest" {
		runs, err := c.Runs(1)
		if err != nil {
			return 0, err
		}
		if len(runs) == 0 {
			return 0, failed(fmt.Errorf("no runs recorded in %s", c.Dir()))
		}
		return runs[0].ID, nil
	}
	v, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || v <= 0 {
		return 0, usagef("run id %q: want a positive number or \"last\"", arg)
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
			return failed(err)
		}
		if len(last) < 2 {
			return failed(fmt.Errorf("%d runs recorded in %s: want two to compare", len(last), c.Dir()))
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

// runsCmdSummaryJSON is a run in JSON output.
type runsCmdSummaryJSON struct {
	ID        int64    `json:"id"`
	Pipeline  string   `json:"pipeline"`
	Args      []string `json:"args"`
	Start     string   `json:"start"`
	DurationS float64  `json:"duration_s"`
	Status    string   `json:"status"`
	Stages    int      `json:"stages"`
	Cached    int      `json:"cached"`
	Ran       int      `json:"ran"`
	Failed    int      `json:"failed"`
}

// runsCmdStageJSON is a stage of `runs show --json`.
type runsCmdStageJSON struct {
	Address   string             `json:"address"`
	Key       string             `json:"key"`
	Status    string             `json:"status"`
	Reason    string             `json:"reason,omitempty"`
	Start     string             `json:"start"`
	DurationS float64            `json:"duration_s"`
	Error     string             `json:"error,omitempty"`
	Metrics   map[string]float64 `json:"metrics,omitempty"`
}

type runsCmdDetailJSON struct {
	runsCmdSummaryJSON
	// Provenance is null for a run recorded before provenance existed.
	Provenance *runs.Provenance   `json:"provenance"`
	StageList  []runsCmdStageJSON `json:"stage_list"`
}

func runsCmdSummary(r cache.RunSummary) runsCmdSummaryJSON {
	args := r.Args
	if args == nil {
		args = []string{}
	}
	return runsCmdSummaryJSON{ID: r.ID, Pipeline: r.Pipeline, Args: args, Start: cacheops.Time(r.Start),
		DurationS: r.Duration.Seconds(), Status: r.Status, Stages: r.Stages, Cached: r.Cached, Ran: r.Ran, Failed: r.Fail}
}

func runsCmdList(c *cache.Cache, limit int, asJSON bool, w io.Writer) error {
	runs, err := c.Runs(limit)
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]runsCmdSummaryJSON, len(runs))
		for i, r := range runs {
			out[i] = runsCmdSummary(r)
		}
		return cacheops.WriteJSON(w, out)
	}
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "no runs recorded in %s\n", c.Dir())
		return err
	}
	now := cacheCmdNow()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tDURATION\tSTATUS\tSTAGES\tRAN\tCACHED\tFAILED\tPIPELINE")
	for _, r := range runs {
		dur := cacheops.Duration(r.Duration)
		if r.Status == "running" {
			dur = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", r.ID, cacheops.Age(r.Start, now), dur, r.Status,
			r.Stages, r.Ran, r.Cached, r.Fail, r.Pipeline)
	}
	return tw.Flush()
}

func runsCmdShow(c *cache.Cache, idArg string, asJSON bool, w io.Writer) error {
	id, err := runsCmdID(c, idArg)
	if err != nil {
		return err
	}
	d, err := c.Run(id)
	if err != nil {
		return err
	}
	for i := range d.Stages {
		runsCmdCachedMetrics(c, &d.Stages[i])
	}
	prov, err := runs.Decode(d.Provenance)
	if err != nil {
		return fmt.Errorf("run %d: %w", d.ID, err)
	}
	if asJSON {
		out := runsCmdDetailJSON{runsCmdSummaryJSON: runsCmdSummary(d.RunSummary), Provenance: prov, StageList: []runsCmdStageJSON{}}
		for _, s := range d.Stages {
			out.StageList = append(out.StageList, runsCmdStageJSON{Address: s.Address, Key: s.Key, Status: s.Status,
				Reason: s.Reason, Start: cacheops.Time(s.Start), DurationS: s.Duration.Seconds(), Error: s.Error, Metrics: s.Metrics})
		}
		return cacheops.WriteJSON(w, out)
	}
	now := cacheCmdNow()
	fmt.Fprintf(w, "run %d: %s\n", d.ID, d.Pipeline)
	if len(d.Args) > 0 {
		fmt.Fprintf(w, "  command  hylaflow %s\n", strings.Join(d.Args, " "))
	}
	start := "-"
	if !d.Start.IsZero() {
		start = d.Start.Local().Format("2006-01-02 15:04:05") + " (" + cacheops.Age(d.Start, now) + ")"
	}
	fmt.Fprintf(w, "  started  %s\n", start)
	dur := cacheops.Duration(d.Duration)
	if d.Status == "running" {
		dur = "still running"
	}
	fmt.Fprintf(w, "  took     %s\n", dur)
	fmt.Fprintf(w, "  status   %s: %d stages, %d ran, %d cached, %d failed\n", d.Status, d.RunSummary.Stages, d.Ran, d.Cached, d.Fail)
	fmt.Fprintln(w, "\nprovenance:")
	if err := runs.WriteText(w, prov, "  "); err != nil {
		return err
	}
	if len(d.Stages) == 0 {
		_, err := fmt.Fprintln(w, "\nno stages recorded")
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tSTAGE\tAT\tTIME\tKEY\tREASON")
	var withMetrics []cache.StageRecord
	for _, s := range d.Stages {
		why := s.Reason
		if s.Error != "" {
			why = "error: " + runsCmdOneLine(s.Error)
		}
		if s.Status == "cached" && why == "" {
			why = "-"
		}
		dur := cacheops.Duration(s.Duration)
		if s.Status == "cached" || s.Status == "skipped" {
			dur = "-"
		}
		at := "-"
		if !s.Start.IsZero() && !d.Start.IsZero() {
			at = "+" + cacheops.Duration(s.Start.Sub(d.Start))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Status, s.Address, at, dur, cacheops.ShortKey(s.Key), why)
		if len(s.Metrics) > 0 {
			withMetrics = append(withMetrics, s)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(withMetrics) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nmetrics:")
	for _, s := range withMetrics {
		names := make([]string, 0, len(s.Metrics))
		for k := range s.Metrics {
			names = append(names, k)
		}
		sort.Strings(names)
		parts := make([]string, len(names))
		for i, k := range names {
			parts[i] = k + "=" + strconv.FormatFloat(s.Metrics[k], 'g', 6, 64)
		}
		fmt.Fprintf(w, "  %s  %s\n", s.Address, strings.Join(parts, "  "))
	}
	return nil
}

// runsCmdCachedMetrics fills in the metrics of a stage that was cached in
// this run (the run history records metrics only when a stage runs) from
// its stored KindMetrics outputs, if they are still in the cache.
func runsCmdCachedMetrics(c *cache.Cache, s *cache.StageRecord) {
	if s.Status != "cached" || len(s.Metrics) > 0 || s.Key == "" {
		return
	}
	refs, ok, err := c.Lookup(s.Key)
	if err != nil || !ok {
		return
	}
	outs := map[string]artifact.Artifact{}
	for _, r := range refs {
		if r.Kind != schema.KindMetrics {
			continue
		}
		if a, err := c.Load(r); err == nil {
			outs[r.Name] = a
		}
	}
	s.Metrics = runner.Metrics(outs)
}

// runsCmdOneLine keeps the first line of a (possibly long) error message.
func runsCmdOneLine(s string) string {
	first, _, more := strings.Cut(s, "\n")
	if len(first) > 160 {
		first, more = first[:157]+"...", true
	}
	if more && !strings.HasSuffix(first, "...") {
		first += " ..."
	}
	return first
}
