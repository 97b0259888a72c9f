package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Interruptible returns a context canceled by Ctrl-C (SIGINT) and, with
// term, by SIGTERM too (what scancel, a time limit or a supervisor sends);
// stop releases the signals.
func Interruptible(term bool) (ctx context.Context, stop context.CancelFunc) {
	sigs := []os.Signal{os.Interrupt}
	if term {
		sigs = append(sigs, syscall.SIGTERM)
	}
	return signal.NotifyContext(context.Background(), sigs...)
}

// Outcome is the error of work run under ctx: nil stays nil; canceled
// (exit 130) when ctx was or err is context.Canceled, else a failure
// (exit 1).
func Outcome(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil || errors.Is(err, context.Canceled):
		return Canceled(err)
	}
	return Failed(err)
}
