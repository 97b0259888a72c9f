package main

import (
	"errors"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runreport"
	"github.com/hylaflow/hylaflow/runs"
)

// isUsageError completes cli.App.ExitCode's table with the libraries'
// errors that mean a bad argument or a name that names nothing (exit 2):
// a bad KEY[/OUTPUT] (*cacheops.RefError) or run argument
// (*runreport.BadRunError, *runs.BadIDError), a --force naming no stage
// (runner.ErrUnknownName), command stages without --allow-commands
// (runner.ErrCommandsNotAllowed), a key, run or output the user named that the
// cache lacks (cache.ErrNotFound) or a malformed key (cache.ErrBadKey).
// Commands return cache.ErrNotFound errors only where the key, run or
// output came from the user (a missing payload inside a run is
// cli.Failed).
func isUsageError(err error) bool {
	var ref *cacheops.RefError
	var badRun *runreport.BadRunError
	var badID *runs.BadIDError
	return errors.As(err, &ref) || errors.As(err, &badRun) || errors.As(err, &badID) || errors.Is(err, runner.ErrUnknownName) ||
		errors.Is(err, runner.ErrCommandsNotAllowed) ||
		errors.Is(err, cache.ErrNotFound) || errors.Is(err, cache.ErrBadKey)
}
