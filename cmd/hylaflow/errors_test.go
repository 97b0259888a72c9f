package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
)

// exitCodeOf maps each kind of error to its exit status, through
// wrapping, and reportError prints each as README.md shows it.
func TestExitCodeOfAndReportError(t *testing.T) {
	notFound := fmt.Errorf("cache x: no key ffff: %w", cache.ErrNotFound)
	for _, tt := range []struct {
		name string
		err  error
		code int
		out  string
	}{
		{"nil", nil, exitOK, ""},
		{"help", errHelp, exitOK, ""},
		{"plain failure", errors.New("disk full"), exitStageFailed, "hylaflow cmd: disk full\n"},
		{"wrapped failure", fmt.Errorf("open: %w", errors.New("denied")), exitStageFailed, "hylaflow cmd: open: denied\n"},
		{"usage", usagef("-j %d: want at least 1", 0), exitUsage, "hylaflow cmd: -j 0: want at least 1\n"},
		{"usage with hint", usageHint("unexpected argument %q", "x"), exitUsage,
			"hylaflow cmd: unexpected argument \"x\"\n(see hylaflow cmd --help)\n"},
		{"usage with text", usageText("Usage: hylaflow cmd\n", "want one file"), exitUsage,
			"hylaflow cmd: want one file\n\nUsage: hylaflow cmd\n"},
		{"usage text alone", usageText("Usage: hylaflow cmd\n", ""), exitUsage, "Usage: hylaflow cmd\n"},
		{"unknown name", unknownName("unknown dataset %q", "x"), exitUsage, "hylaflow cmd: unknown dataset \"x\"\n"},
		{"runner unknown name", fmt.Errorf("--force a.b: %w", runner.ErrUnknownName), exitUsage, ""},
		{"cache not found", notFound, exitUsage, "hylaflow cmd: cache x: no key ffff: cache: not found\n"},
		{"cache bad key", fmt.Errorf("%w", cache.ErrBadKey), exitUsage, ""},
		{"not found inside work", failed(notFound), exitStageFailed, "hylaflow cmd: cache x: no key ffff: cache: not found\n"},
		{"failed nil", failed(nil), exitOK, ""},
		{"canceled", fmt.Errorf("train: %w", context.Canceled), exitCanceled, "hylaflow cmd: train: context canceled\n"},
		{"canceled wrapper", canceled(errors.New("stage stopped")), exitCanceled, "hylaflow cmd: stage stopped\n"},
		{"invalid pipeline", errInvalid, exitInvalid, ""},
		{"exit status", exitStatus(exitInvalid), exitInvalid, ""},
		{"exit status canceled", exitStatus(exitCanceled), exitCanceled, ""},
		{"named", inCommand("cache ls", errors.New("boom")), exitStageFailed, "hylaflow cache ls: boom\n"},
		{"named usage", inCommand("cache ls", usageHint("unknown flag --x")), exitUsage,
			"hylaflow cache ls: unknown flag --x\n(see hylaflow cache ls --help)\n"},
		{"named nil", inCommand("x", nil), exitOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := exitCodeOf(tt.err); got != tt.code {
				t.Errorf("exitCodeOf(%v) = %d, want %d", tt.err, got, tt.code)
			}
			if tt.out == "" && tt.err != nil && tt.code != exitOK && tt.code != exitInvalid &&
				!errors.As(tt.err, new(exitStatus)) {
				return // message not pinned
			}
			var b bytes.Buffer
			reportError(&b, "cmd", tt.err)
			if b.String() != tt.out {
				t.Errorf("reportError printed %q, want %q", b.String(), tt.out)
			}
		})
	}
}
