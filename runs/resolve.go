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

// ResolveID resolves a run argument: a number (optionally "#N"), or
// "last" (also "latest"), the run started last. A malformed argument is a
// *BadIDError; a cache without runs is an error.
func ResolveID(c Lister, arg string) (int64, error) {
	if arg == "last" || arg == "latest" {
		runs, err := c.Runs(1)
		if err != nil {
			return 0, err
		}
		if len(runs) == 0 {
			return 0, fmt.Errorf("no runs recorded in %s", c.Dir())
		}
		return runs[0].ID, nil
	}
	v, err := strconv.ParseInt(strings.TrimPrefix(arg, "#"), 10, 64)
	if err != nil || v <= 0 {
		return 0, &BadIDError{arg}
	}
	return v, nil
}

// LoadDiff loads and compares two runs (Compare): args holds A and B
// (ResolveID's arguments), or nothing for the run before the last with the
// last. An unknown run is an error wrapping cache.ErrNotFound.
func LoadDiff(c interface {
	Reader
	Lister
}, args []string) (*Diff, error) {
	var ids [2]int64
	switch len(args) {
	case 0:
		last, err := c.Runs(2)
		if err != nil {
			return nil, err
		}
		if len(last) < 2 {
			return nil, fmt.Errorf("%d runs recorded in %s: want two to compare", len(last), c.Dir())
		}
		ids = [2]int64{last[1].ID, last[0].ID}
	case 2:
		for i, arg := range args {
			id, err := ResolveID(c, arg)
			if err != nil {
				return nil, err
			}
			ids[i] = id
		}
	default:
		return nil, fmt.Errorf("want two runs to compare, got %d", len(args))
	}
	var loaded [2]*Run
	for i, id := range ids {
		r, err := Load(c, id)
		if err != nil {
			return nil, err
		}
		loaded[i] = r
	}
	return Compare(loaded[0], loaded[1]), nil
}
