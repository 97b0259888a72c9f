package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/runner"
)

// The libraries' errors that name nothing or are malformed arguments exit
// 2 (isUsageError completes cli's table), through wrapping; the same
// errors inside work the command marked as failed exit 1.
func TestExitCodeOfLibraryErrors(t *testing.T) {
	notFound := fmt.Errorf("cache x: no key ffff: %w", cache.ErrNotFound)
	for _, tt := range []struct {
		name string
		err  error
		code int
	}{
		{"runner unknown name", fmt.Errorf("--force a.b: %w", runner.ErrUnknownName), cli.ExitUsage},
		{"cache not found", notFound, cli.ExitUsage},
		{"cache bad key", fmt.Errorf("%w", cache.ErrBadKey), cli.ExitUsage},
		{"bad reference", fmt.Errorf("export: %w", &cacheops.RefError{}), cli.ExitUsage},
		{"not found inside work", cli.Failed(notFound), cli.ExitFailed},
		{"something else", errors.New("disk full"), cli.ExitFailed},
	} {
		if got := app.ExitCode(tt.err); got != tt.code {
			t.Errorf("%s: ExitCode(%v) = %d, want %d", tt.name, tt.err, got, tt.code)
		}
	}
}
