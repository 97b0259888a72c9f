package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/runner"
)

// Exit codes shared by every subcommand (README.md, "Exit status").
const (
	exitOK          = 0
	exitStageFailed = 1 // a stage (or the command's own work) failed
	exitUsage       = 2 // bad flags or arguments, or a name that names nothing
	exitInvalid     = 3 // the pipeline file is invalid
	exitCanceled    = 130
)

// Commands return errors; dispatch prints them ("hylaflow CMD: message")
// and exits with exitCodeOf's code. The error types below say which code
// and how the message is shown.

// cliUsageError is a bad flag, argument or combination of them: exit 2.
type cliUsageError struct {
	msg   string
	usage string // when set, printed after the message and a blank line
	hint  bool   // when set, "(see hylaflow CMD --help)" follows the message
}

func (e *cliUsageError) Error() string { return e.msg }

// usagef returns a usage error with a formatted message.
func usagef(format string, a ...any) error {
	return &cliUsageError{msg: fmt.Sprintf(format, a...)}
}

// usageHint is usagef followed by a pointer to the command's --help.
func usageHint(format string, a ...any) error {
	return &cliUsageError{msg: fmt.Sprintf(format, a...), hint: true}
}

// usageText is usagef followed by a blank line and the command's usage
// text; an empty message prints the usage text alone.
func usageText(usage, format string, a ...any) error {
	return &cliUsageError{msg: fmt.Sprintf(format, a...), usage: usage}
}

// errUnknownName marks an error about a name given on the command line
// that names nothing: a dataset, run, cache key, stage or stage type.
var errUnknownName = errors.New("unknown name")

// unknownNameError is an error about a name that names nothing.
type unknownNameError struct{ msg string }

func (e *unknownNameError) Error() string        { return e.msg }
func (e *unknownNameError) Is(target error) bool { return target == errUnknownName }

// unknownName returns an error that is errUnknownName, with its own message.
func unknownName(format string, a ...any) error {
	return &unknownNameError{msg: fmt.Sprintf(format, a...)}
}

// errInvalid is an invalid pipeline whose diagnostics are printed: exit 3.
var errInvalid = errors.New("invalid pipeline")

// errHelp is a --help whose usage text is printed: exit 0.
var errHelp = flag.ErrHelp

// exitStatus is the exit code of a command that has said everything
// already: one whose code is its result (fmt --check, cache verify), or
// one that reported its failure or cancellation itself.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// failedError is work that failed, exit 1 whatever the error it wraps
// (a payload gone from under a run is a failure, not an unknown name).
type failedError struct{ err error }

func (e *failedError) Error() string { return e.err.Error() }
func (e *failedError) Unwrap() error { return e.err }

// failed marks err (nil stays nil) as a failure of the command's work.
func failed(err error) error {
	if err == nil {
		return nil
	}
	return &failedError{err}
}

// canceledError is work stopped by Ctrl-C or SIGTERM: exit 130, with
// the message of the error the work returned.
type canceledError struct{ err error }

func (e *canceledError) Error() string        { return e.err.Error() }
func (e *canceledError) Unwrap() error        { return e.err }
func (e *canceledError) Is(target error) bool { return target == context.Canceled }

// canceled marks err as the outcome of a cancellation.
func canceled(err error) error { return &canceledError{err} }

// namedError names the command an error belongs to when it is not the
// dispatched one ("cache ls", "slurm-job KEY"), for the message's prefix.
type namedError struct {
	name string
	err  error
}

func (e *namedError) Error() string { return e.err.Error() }
func (e *namedError) Unwrap() error { return e.err }

// inCommand returns err (nil stays nil) printed as coming from command name.
func inCommand(name string, err error) error {
	if err == nil {
		return nil
	}
	return &namedError{name, err}
}

// exitCodeOf is the one table from a command's error to its exit status:
//
//	nil, errHelp                                    0
//	exitStatus(N)                                   N
//	*failedError (the work failed, whatever the cause) 1
//	context.Canceled, canceled(err) (Ctrl-C, SIGTERM) 130
//	errInvalid (an invalid pipeline)                3
//	a bad flag or argument (*cliUsageError,
//	  *cacheops.RefError)                           2
//	an unknown name (errUnknownName,
//	  runner.ErrUnknownName, cache.ErrNotFound,
//	  cache.ErrBadKey)                              2
//	anything else (a stage or the work failed)      1
//
// Commands return cache.ErrNotFound errors only where the key, run or
// output came from the user (a missing payload inside a run is a failure).
func exitCodeOf(err error) int {
	var status exitStatus
	var fail *failedError
	var usage *cliUsageError
	var ref *cacheops.RefError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &fail):
		return exitStageFailed
	case errors.Is(err, context.Canceled):
		return exitCanceled
	case errors.Is(err, errInvalid):
		return exitInvalid
	case errors.As(err, &usage), errors.As(err, &ref), errors.Is(err, errUnknownName), errors.Is(err, runner.ErrUnknownName),
		errors.Is(err, cache.ErrNotFound), errors.Is(err, cache.ErrBadKey):
		return exitUsage
	}
	return exitStageFailed
}

// reportError prints what err says about command name on w, as
// "hylaflow NAME: message" (a usage error with its hint or usage text);
// help, an invalid pipeline (its diagnostics are printed) and exit
// statuses print nothing.
func reportError(w io.Writer, name string, err error) {
	var status exitStatus
	if err == nil || errors.Is(err, errHelp) || errors.Is(err, errInvalid) || errors.As(err, &status) {
		return
	}
	var named *namedError
	if errors.As(err, &named) {
		name = named.name
	}
	var usage *cliUsageError
	if !errors.As(err, &usage) {
		fmt.Fprintf(w, "hylaflow %s: %v\n", name, err)
		return
	}
	msg := err.Error()
	if msg != "" {
		fmt.Fprintf(w, "hylaflow %s: %s\n", name, msg)
	}
	if usage.hint {
		fmt.Fprintf(w, "(see hylaflow %s --help)\n", name)
	}
	if usage.usage != "" {
		if msg != "" {
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, usage.usage)
	}
}
