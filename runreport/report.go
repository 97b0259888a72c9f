// Package runreport reads a run's tables and figures from the cache and
// writes them out: every evaluate table (table.md, .csv, .json, chart.png)
// and figure stage's files into a directory per stage instance, the
// compact text of the tables that run prints at its end, and the timing
// view (Table 6 / Figure 4) computed from the run record. Nothing is
// recomputed and nothing in the cache changes.
package runreport

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/safename"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runs"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

// Kinds are the artifact kinds a report writes out.
var Kinds = []artifact.Kind{schema.KindTable, schema.KindFigure}

// Output is one table or figure output of a stage of a run, loaded.
type Output struct {
	Address  string // stage instance
	Output   string // output name
	Kind     artifact.Kind
	Artifact artifact.Artifact // nil when Err is set
	// Err says why the output cannot be had: its stage did not finish in
	// the run, or its payload is gone (gc, clear).
	Err error
}

// Collect loads every output of run id whose kind is one of kinds,
// ordered by stage address: the run records stages in completion order,
// which depends on -j and timing, and a report must not. Which outputs a
// stage has comes from its stage type in reg (by its key record), else
// from what is stored under its key; a stage of unknown type whose
// address says evaluate is taken to make a table. An unknown run is an
// error wrapping cache.ErrNotFound.
func Collect(c *cache.Cache, reg *registry.Registry, id int64, kinds ...artifact.Kind) ([]Output, error) {
	run, err := c.Run(id)
	if err != nil {
		return nil, err
	}
	var out []Output
	for _, s := range run.Stages {
		want := outputsOf(c, reg, s, kinds)
		if len(want) == 0 {
			continue
		}
		if s.Status != "ran" && s.Status != "cached" {
			out = append(out, Output{Address: s.Address, Output: want[0].Name, Kind: want[0].Kind,
				Err: fmt.Errorf("the stage did not finish in that run (%s)", s.Status)})
			continue
		}
		refs, ok, err := c.Lookup(s.Key)
		if err != nil {
			return nil, err
		}
		for _, w := range want {
			t := Output{Address: s.Address, Output: w.Name, Kind: w.Kind}
			i := slices.IndexFunc(refs, func(r cache.OutputRef) bool { return r.Name == w.Name })
			switch {
			case !ok || i < 0:
				t.Err = fmt.Errorf("key %.12s… is no longer in the cache (rerun the pipeline)", s.Key)
			default:
				t.Artifact, t.Err = c.Load(refs[i])
			}
			out = append(out, t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Address != out[j].Address {
			return out[i].Address < out[j].Address
		}
		return out[i].Output < out[j].Output
	})
	return out, nil
}

// outputsOf returns the outputs of a run's stage whose kind is one of
// kinds (see Collect).
func outputsOf(c *cache.Cache, reg *registry.Registry, s cache.StageRecord, kinds []artifact.Kind) []registry.Output {
	var out []registry.Output
	if s.Key != "" {
		if rec, ok, err := c.Record(s.Key); err == nil && ok && reg != nil {
			if t, ok := reg.Lookup(rec.StageType); ok {
				for _, o := range t.Outputs {
					if slices.Contains(kinds, o.Kind) {
						out = append(out, o)
					}
				}
				return out
			}
		}
		if refs, ok, err := c.Lookup(s.Key); err == nil && ok {
			for _, r := range refs {
				if slices.Contains(kinds, r.Kind) {
					out = append(out, registry.Output{Name: r.Name, Kind: r.Kind})
				}
			}
			return out
		}
	}
	if strings.HasPrefix(s.Address, "evaluate.") && slices.Contains(kinds, schema.KindTable) {
		out = append(out, registry.Output{Name: "table", Kind: schema.KindTable})
	}
	return out
}

// DefaultOut is where a report goes by default: report/ beside the
// project's cache, i.e. in the directory where cache.Locate finds or
// would create .hylaflow when neither --cache nor $HYLAFLOW_CACHE is
// given (the repository root in a clone), whether or not the cache was
// moved elsewhere; start is as for cache.Locate.
func DefaultOut(start string) string {
	loc, err := cache.Locate("", "", start)
	if err != nil {
		return "report" // a .hylaflow file in the way: the working directory
	}
	return filepath.Join(filepath.Dir(loc.Dir), "report")
}

// BadRunError is a run given as neither a positive number nor latest.
type BadRunError struct{ Which string }

func (e *BadRunError) Error() string {
	return fmt.Sprintf("run %q: want a run number or latest", e.Which)
}

// latestWindow is how many of the most recent runs "latest" looks
// through for the one that finished last.
const latestWindow = 100

// ResolveRun resolves RUN or "latest" (also "last") to a run id. latest
// is the run that finished last among those with stages (runs.HasStages):
// a run canceled or failed before recording any stage has no results and
// is passed over. With several processes on one cache, a run started later
// may still be going (its tables incomplete), so it is taken only when no
// run has finished. note says which run latest took when it passed over
// others, and why. Anything else but a positive number is a *BadRunError.
func ResolveRun(c *cache.Cache, which string) (id int64, note string, err error) {
	if which == "latest" || which == "last" {
		list, err := c.Runs(latestWindow)
		if err != nil {
			return 0, "", err
		}
		if len(list) == 0 {
			return 0, "", fmt.Errorf("the cache %s has no runs yet", c.Dir())
		}
		finish := func(r cache.RunSummary) time.Time { return r.Start.Add(r.Duration) }
		// lastFinished is the index of the run that finished last among
		// those ok accepts, or -1.
		lastFinished := func(ok func(cache.RunSummary) bool) int {
			best := -1
			for i, r := range list {
				if r.Status != "running" && ok(r) && (best < 0 || finish(r).After(finish(list[best]))) {
					best = i
				}
			}
			return best
		}
		best := lastFinished(runs.HasStages)
		if best < 0 { // no finished run has stages: the last to finish
			best = lastFinished(func(cache.RunSummary) bool { return true })
		}
		if best < 0 {
			return list[0].ID, fmt.Sprintf("run %d is still running: its tables so far", list[0].ID), nil
		}
		var skipped []cache.RunSummary
		for _, r := range list {
			if !runs.HasStages(r) && r.ID != list[best].ID && finish(r).After(finish(list[best])) {
				skipped = append(skipped, r)
			}
		}
		var why []string
		if list[0].Status == "running" && list[0].ID != list[best].ID {
			why = append(why, fmt.Sprintf("run %d is still running", list[0].ID))
		}
		if len(skipped) > 0 {
			why = append(why, runs.SkippedNote(skipped))
		}
		switch {
		case len(why) == 0:
			return list[best].ID, "", nil
		case len(skipped) == 0:
			return list[best].ID, fmt.Sprintf("latest: run %d, the last to finish (%s)", list[best].ID, why[0]), nil
		case len(why) == 1:
			return list[best].ID, fmt.Sprintf("latest: run %d, the last with stages (%s)", list[best].ID, why[0]), nil
		}
		return list[best].ID, fmt.Sprintf("latest: run %d, the last to finish with stages (%s)", list[best].ID, strings.Join(why, "; ")), nil
	}
	id, err = strconv.ParseInt(which, 10, 64)
	if err != nil || id < 1 {
		return 0, "", &BadRunError{which}
	}
	return id, "", nil
}

// Files is what WriteOutputs wrote, and the outputs it could not write.
type Files struct {
	Paths    []string // the files written, in order
	Problems []error  // one per output missing or not written
}

// WriteOutputs writes each output's files (Artifact.WriteFiles: file
// members as they are, JSON members as NAME.json) into out/DIR, DIR being
// the safe name of the stage address (followed by the output name when
// the stage has several), and prints each table's Markdown (table.md) on
// w under a comment naming the stage and run id. Directory names are
// distinct for distinct stages (safename.Names): addresses that read the
// same once made safe ("a b", "a/b") get a hash suffix instead of
// overwriting each other's files. An output that is missing or cannot be
// written is a problem; the others are written all the same.
func WriteOutputs(w io.Writer, out string, id int64, outputs []Output) Files {
	var res Files
	perStage := map[string]int{}
	for _, t := range outputs {
		perStage[t.Address]++
	}
	names := make([]string, len(outputs))
	for i, t := range outputs {
		names[i] = t.Address
		if perStage[t.Address] > 1 {
			names[i] += "-" + t.Output
		}
	}
	dirs, err := safename.Names(names)
	if err != nil {
		res.Problems = append(res.Problems, fmt.Errorf("run %d: %w", id, err))
		return res
	}
	for i, t := range outputs {
		if t.Err != nil {
			res.Problems = append(res.Problems, fmt.Errorf("run %d: %s: %w", id, t.Address, t.Err))
			continue
		}
		sub := dirs[names[i]]
		files, err := t.Artifact.WriteFiles(filepath.Join(out, sub), artifact.FilesOptions{})
		res.Paths = append(res.Paths, files...)
		if err != nil {
			res.Problems = append(res.Problems, fmt.Errorf("%s: %w", t.Address, err))
			continue
		}
		if t.Kind != schema.KindTable {
			continue
		}
		if md, err := t.Artifact.MemberFile(table.MemberMarkdown); err == nil {
			fmt.Fprintf(w, "<!-- %s (run %d) -->\n", t.Address, id)
			w.Write(md)
			if len(md) > 0 && md[len(md)-1] != '\n' {
				fmt.Fprintln(w)
			}
			fmt.Fprintln(w)
		}
	}
	return res
}

// WriteListing prints what a report wrote: a line naming run id and the
// directory out (shown as shownOut), then the files under it, one a line.
func WriteListing(w io.Writer, out, shownOut string, id int64, files []string) {
	if len(files) == 0 {
		return
	}
	noun := "files"
	if len(files) == 1 {
		noun = "file"
	}
	fmt.Fprintf(w, "wrote %d %s of run %d into %s:\n", len(files), noun, id, shownOut)
	for _, f := range files {
		if rel, err := filepath.Rel(out, f); err == nil {
			f = rel
		}
		fmt.Fprintf(w, "  %s\n", filepath.ToSlash(f))
	}
}

// WriteTablesText prints the tables of run id's evaluate stages that
// finished (in the compact text view of WriteText, each after a blank
// line, and a blank line after the last); an unfinished stage is left out
// (the run's summary names it), and a table that cannot be read is a
// problem returned while the others are printed.
func WriteTablesText(w io.Writer, c *cache.Cache, reg *registry.Registry, id int64) []error {
	tables, err := Collect(c, reg, id, schema.KindTable)
	if err != nil {
		return []error{fmt.Errorf("tables of run %d: %w", id, err)}
	}
	var problems []error
	for _, t := range tables {
		if t.Err != nil {
			continue
		}
		doc, err := t.Artifact.MemberFile(table.MemberJSON)
		if err == nil {
			fmt.Fprintln(w)
			err = WriteText(w, doc)
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", t.Address, err))
		}
	}
	if len(tables) > 0 {
		fmt.Fprintln(w)
	}
	return problems
}
