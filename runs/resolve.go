package runs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
)

// Lister is what ResolveID and LoadDiff read besides Reader: the runs,
// newest first (*cache.Cache).
type Lister interface {
	Runs(limit int) ([]cache.RunSummary, error)
	Dir() string
}

// BadIDError is a run argument that is neither a positive number nor
// "last".
type BadIDError struct{ Arg string }

func (e *BadIDError) Error() string {
	return fmt.Sprintf("run id %q: want a positive number or \"last\"", e.Arg)
}

// latestWindow is how many of the most recent runs "last" looks through
// for one that recorded a stage.
const latestWindow = 100

// HasStages reports whether a run has anything to show: it recorded at
// least one stage, or it is still running. A run canceled or failed before
// any stage ended (an interrupted plan, a missing data root) has none.
func HasStages(r cache.RunSummary) bool {
	return r.Status == "running" || r.Stages > 0
}

// SkippedNote says why the runs skipped (newest first), which recorded no
// stage, were passed over: "run 3 was canceled before recording any
// stage", "runs 4, 3 ended before recording any stage". Empty for none.
func SkippedNote(skipped []cache.RunSummary) string {
	switch len(skipped) {
	case 0:
		return ""
	case 1:
		verb := "ended"
		switch skipped[0].Status {
		case "canceled":
			verb = "was canceled"
		case "failed":
			verb = "failed"
		}
		return fmt.Sprintf("run %d %s before recording any stage", skipped[0].ID, verb)
	}
	ids := make([]string, len(skipped))
	for i, r := range skipped {
		ids[i] = strconv.FormatInt(r.ID, 10)
	}
	return fmt.Sprintf("runs %s ended before recording any stage", strings.Join(ids, ", "))
}

// ResolveID resolves a run argument: a number (optionally "#N"), or
// "last" (also "latest"), the run started last that has stages to show
// (HasStages) — the newest run when none has. note says which run "last"
// took when it passed over newer ones, and why; it is empty otherwise. A
// malformed argument is a *BadIDError; a cache without runs is an error.
func ResolveID(c Lister, arg string) (id int64, note string, err error) {
	if arg == "last" || arg == "latest" {
		runs, err := c.Runs(latestWindow)
		if err != nil {
			return 0, "", err
		}
		if len(runs) == 0 {
			return 0, "", fmt.Errorf("no runs recorded in %s", c.Dir())
		}
		for i, r := range runs {
			if HasStages(r) {
				if i == 0 {
					return r.ID, "", nil
				}
				return r.ID, fmt.Sprintf("last: run %d, the last with stages (%s)", r.ID, SkippedNote(runs[:i])), nil
			}
		}
		return runs[0].ID, "", nil
	}
	v, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || v <= 0 {
		return 0, "", &BadIDError{arg}
	}
	return v, "", nil
}

// LoadDiff loads and compares two runs (Compare): args holds A and B
// (ResolveID's arguments), or nothing for the last two runs with stages
// to show (HasStages; the newest two when fewer have). note says which
// runs were passed over and why, as ResolveID's does; it is empty
// otherwise. An unknown run is an error wrapping cache.ErrNotFound.
func LoadDiff(c interface {
	Reader
	Lister
}, args []string) (d *Diff, note string, err error) {
	var ids [2]int64
	switch len(args) {
	case 0:
		recent, err := c.Runs(latestWindow)
		if err != nil {
			return nil, "", err
		}
		if len(recent) < 2 {
			return nil, "", fmt.Errorf("%d runs recorded in %s: want two to compare", len(recent), c.Dir())
		}
		var with, skipped []cache.RunSummary
		for _, r := range recent {
			if len(with) == 2 {
				break
			}
			if HasStages(r) {
				with = append(with, r)
			} else {
				skipped = append(skipped, r)
			}
		}
		if len(with) < 2 {
			with, skipped = recent[:2], nil
		}
		ids = [2]int64{with[1].ID, with[0].ID}
		if len(skipped) > 0 {
			note = fmt.Sprintf("runs %d and %d, the last two with stages (%s)", with[1].ID, with[0].ID, SkippedNote(skipped))
		}
	case 2:
		for i, arg := range args {
			id, _, err := ResolveID(c, arg)
			if err != nil {
				return nil, "", err
			}
			ids[i] = id
		}
	default:
		return nil, "", fmt.Errorf("want two runs to compare, got %d", len(args))
	}
	var loaded [2]*Run
	for i, id := range ids {
		r, err := Load(c, id)
		if err != nil {
			return nil, "", err
		}
		loaded[i] = r
	}
	return Compare(loaded[0], loaded[1]), note, nil
}
