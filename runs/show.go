package runs

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// What `hylaflow runs list` and `hylaflow runs show` print.

// RunJSON is a run in JSON output.
type RunJSON struct {
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

// StageJSON is a stage of `runs show --json`.
type StageJSON struct {
	Address   string             `json:"address"`
	Key       string             `json:"key"`
	Status    string             `json:"status"`
	Reason    string             `json:"reason,omitempty"`
	Start     string             `json:"start"`
	DurationS float64            `json:"duration_s"`
	Error     string             `json:"error,omitempty"`
	Metrics   map[string]float64 `json:"metrics,omitempty"`
	// Command is a command stage's program and fingerprint; absent for
	// the built-in stage types.
	Command *CommandJSON `json:"command,omitempty"`
}

// DetailJSON is `runs show --json`: the run, its provenance and its stages.
type DetailJSON struct {
	RunJSON
	// Provenance is null for a run recorded before provenance existed.
	Provenance *Provenance `json:"provenance"`
	StageList  []StageJSON `json:"stage_list"`
}

func summaryOf(r cache.RunSummary) RunJSON {
	args := r.Args
	if args == nil {
		args = []string{}
	}
	return RunJSON{ID: r.ID, Pipeline: r.Pipeline, Args: args, Start: cacheops.Time(r.Start),
		DurationS: r.Duration.Seconds(), Status: r.Status, Stages: r.Stages, Cached: r.Cached, Ran: r.Ran, Failed: r.Fail}
}

// WriteList writes the limit most recent runs of c (0: all), newest
// first: a table with their ages relative to now, or a JSON array.
func WriteList(w io.Writer, c *cache.Cache, limit int, asJSON bool, now time.Time) error {
	runs, err := c.Runs(limit)
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]RunJSON, len(runs))
		for i, r := range runs {
			out[i] = summaryOf(r)
		}
		return cacheops.WriteJSON(w, out)
	}
	if len(runs) == 0 {
		_, err := fmt.Fprintf(w, "no runs recorded in %s\n", c.Dir())
		return err
	}
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

// WriteShow writes run id of c: its command, times, status, provenance,
// stages (with the metrics of cached stages read from the cache) and
// metrics, as text with ages relative to now, or as one JSON object.
func WriteShow(w io.Writer, c *cache.Cache, id int64, asJSON bool, now time.Time) error {
	d, err := c.Run(id)
	if err != nil {
		return err
	}
	for i := range d.Stages {
		cachedMetrics(c, &d.Stages[i])
	}
	prov, err := Decode(d.Provenance)
	if err != nil {
		return fmt.Errorf("run %d: %w", d.ID, err)
	}
	if asJSON {
		out := DetailJSON{RunJSON: summaryOf(d.RunSummary), Provenance: prov, StageList: []StageJSON{}}
		for _, s := range d.Stages {
			out.StageList = append(out.StageList, StageJSON{Address: s.Address, Key: s.Key, Status: s.Status,
				Reason: s.Reason, Start: cacheops.Time(s.Start), DurationS: s.Duration.Seconds(), Error: s.Error, Metrics: s.Metrics,
				Command: commandOf(c, s.Key)})
		}
		return cacheops.WriteJSON(w, out)
	}
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
	if err := WriteText(w, prov, "  "); err != nil {
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
			why = "error: " + oneLine(s.Error)
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
	writeErrors(w, d.Stages)
	writeCommands(w, c, d.Stages)
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

// cachedMetrics fills in the metrics of a stage that was cached in
// this run (the run history records metrics only when a stage runs) from
// its stored KindMetrics outputs, if they are still in the cache.
func cachedMetrics(c *cache.Cache, s *cache.StageRecord) {
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

// oneLine keeps the first line of a (possibly long) error message, at
// most 160 characters of it, with "..." when it leaves something out (the
// whole message follows the stages table: writeErrors).
func oneLine(s string) string {
	first, _, more := strings.Cut(s, "\n")
	if r := []rune(first); len(r) > 160 {
		first, more = string(r[:157])+"...", true
	}
	if more && !strings.HasSuffix(first, "...") {
		first += " ..."
	}
	return first
}

// errorWidth is the width writeErrors wraps an error's lines at.
const errorWidth = 100

// writeErrors writes the whole error of every stage that has one, under
// its address, each line wrapped at errorWidth: the stages table shows only
// the start of the first line, and a failure's hint is often at its end.
func writeErrors(w io.Writer, stages []cache.StageRecord) {
	first := true
	for _, s := range stages {
		if s.Error == "" {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nerrors:")
			first = false
		}
		fmt.Fprintf(w, "  %s\n", s.Address)
		for _, line := range strings.Split(strings.TrimRight(s.Error, "\n"), "\n") {
			for _, l := range wrapWords(line, errorWidth-4) {
				fmt.Fprintf(w, "    %s\n", l)
			}
		}
	}
}

// wrapWords breaks s at spaces into lines of at most width runes; a word
// longer than width (a path) stands alone on its line, whole.
func wrapWords(s string, width int) []string {
	words := strings.Fields(s)
	if len(words) == 0 {
		return []string{""}
	}
	var lines []string
	line := words[0]
	for _, word := range words[1:] {
		if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			lines, line = append(lines, line), word
			continue
		}
		line += " " + word
	}
	return append(lines, line)
}
