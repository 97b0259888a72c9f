package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
)

// Exit statuses shared by every command of an App.
const (
	ExitOK       = 0
	ExitFailed   = 1 // a stage (or the command's own work) failed
	ExitUsage    = 2 // bad flags or arguments, or a name that names nothing
	ExitInvalid  = 3 // the input file (a pipeline) is invalid
	ExitCanceled = 130
)

// Commands return errors; Dispatch prints them ("PROG CMD: message") and
// exits with ExitCode's status. The error kinds below say which status
// and how the message is shown.

// usageError is a bad flag, argument or combination of them: exit 2.
type usageError struct {
	msg   string
	usage string // when set, printed after the message and a blank line
	hint  bool   // when set, "(see PROG CMD --help)" follows the message
}

func (e *usageError) Error() string { return e.msg }

// Usagef returns a usage error (exit 2) with a formatted message.
func Usagef(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// UsageHint is Usagef followed by a pointer to the command's --help.
func UsageHint(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), hint: true}
}

// UsageText is Usagef followed by a blank line and the command's usage
// text; an empty message prints the usage text alone.
func UsageText(usage, format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...), usage: usage}
}

// ErrUnknownName marks an error about a name given on the command line
// that names nothing: a dataset, run, cache key, stage or stage type.
var ErrUnknownName = errors.New("unknown name")

// unknownNameError is an error about a name that names nothing.
type unknownNameError struct{ msg string }

func (e *unknownNameError) Error() string        { return e.msg }
func (e *unknownNameError) Is(target error) bool { return target == ErrUnknownName }

// UnknownName returns an error that is ErrUnknownName (exit 2), with its
// own message.
func UnknownName(format string, a ...any) error {
	return &unknownNameError{msg: fmt.Sprintf(format, a...)}
}

// ErrInvalid is an invalid input whose diagnostics the command printed:
// exit 3, nothing more printed.
var ErrInvalid = errors.New("invalid pipeline")

// ErrHelp is a --help whose usage text was printed: exit 0.
var ErrHelp = flag.ErrHelp

// ExitStatus is the exit status of a command that has said everything
// already: one whose status is its result (fmt --check, cache verify), or
// one that reported its failure or cancellation itself.
type ExitStatus int

func (e ExitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// failedError is work that failed, exit 1 whatever the error it wraps.
type failedError struct{ err error }

func (e *failedError) Error() string { return e.err.Error() }
func (e *failedError) Unwrap() error { return e.err }

// Failed marks err (nil stays nil) as a failure of the command's work:
// exit 1 whatever it wraps (a payload gone from under a run is a failure,
// not an unknown name).
func Failed(err error) error {
	if err == nil {
		return nil
	}
	return &failedError{err}
}

// canceledError is work stopped by Ctrl-C or SIGTERM: exit 130, with the
// message of the error the work returned.
type canceledError struct{ err error }

func (e *canceledError) Error() string        { return e.err.Error() }
func (e *canceledError) Unwrap() error        { return e.err }
func (e *canceledError) Is(target error) bool { return target == context.Canceled }

// Canceled marks err as the outcome of a cancellation (exit 130).
func Canceled(err error) error { return &canceledError{err} }

// namedError names the command an error belongs to when it is not the
// dispatched one ("cache ls", "exec-stage KEY"), for the message's prefix.
type namedError struct {
	name string
	err  error
}

func (e *namedError) Error() string { return e.err.Error() }
func (e *namedError) Unwrap() error { return e.err }

// InCommand returns err (nil stays nil) printed as coming from command
// name ("cache ls") instead of the dispatched one.
func InCommand(name string, err error) error {
	if err == nil {
		return nil
	}
	return &namedError{name, err}
}

// ExitCode is the one table from a command's error to its exit status:
//
//	nil, ErrHelp                                      0
//	ExitStatus(N)                                     N
//	Failed(err) (the work failed, whatever the cause) 1
//	context.Canceled, Canceled(err) (Ctrl-C, SIGTERM) 130
//	ErrInvalid (an invalid pipeline)                  3
//	a bad flag or argument (Usagef, UsageHint,
//	  UsageText)                                      2
//	an unknown name (ErrUnknownName), or an error
//	  a.IsUsage reports (the libraries' own)          2
//	anything else (a stage or the work failed)        1
func (a *App) ExitCode(err error) int {
	var status ExitStatus
	var fail *failedError
	var usage *usageError
	switch {
	case err == nil, errors.Is(err, ErrHelp):
		return ExitOK
	case errors.As(err, &status):
		return int(status)
	case errors.As(err, &fail):
		return ExitFailed
	case errors.Is(err, context.Canceled):
		return ExitCanceled
	case errors.Is(err, ErrInvalid):
		return ExitInvalid
	case errors.As(err, &usage), errors.Is(err, ErrUnknownName), a.IsUsage != nil && a.IsUsage(err):
		return ExitUsage
	}
	return ExitFailed
}

// ReportError prints what err says about command name on w, as "PROG
// NAME: message" (a usage error with its hint or usage text); help, an
// invalid pipeline (its diagnostics are printed) and exit statuses print
// nothing.
func (a *App) ReportError(w io.Writer, name string, err error) {
	var status ExitStatus
	if err == nil || errors.Is(err, ErrHelp) || errors.Is(err, ErrInvalid) || errors.As(err, &status) {
		return
	}
	var named *namedError
	if errors.As(err, &named) {
		name = named.name
	}
	var usage *usageError
	if !errors.As(err, &usage) {
		fmt.Fprintf(w, "%s %s: %v\n", a.Name, name, err)
		return
	}
	msg := err.Error()
	if msg != "" {
		fmt.Fprintf(w, "%s %s: %s\n", a.Name, name, msg)
	}
	if usage.hint {
		fmt.Fprintf(w, "(see %s %s --help)\n", a.Name, name)
	}
	if usage.usage != "" {
		if msg != "" {
			fmt.Fprintln(w)
		}
		fmt.Fprint(w, usage.usage)
	}
}
