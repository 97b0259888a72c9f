package cache_test

import (
	"path/filepath"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
)

// The runner's executor conformance suite, on a real cache instead of the
// in-memory store: the local executor and the spec-shipping executor.
func TestExecutorsConformOnCache(t *testing.T) {
	open := func(t *testing.T) *cache.Cache {
		c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Run("local", func(t *testing.T) {
		executortest.Run(t, func(t *testing.T) executortest.Env {
			c := open(t)
			return executortest.Env{Executor: runner.NewLocal(c), Store: c}
		})
	})
	t.Run("spec", func(t *testing.T) {
		executortest.Run(t, func(t *testing.T) executortest.Env {
			c := open(t)
			return executortest.Env{Executor: &executortest.SpecExecutor{Store: c, Registry: executortest.Types()}, Store: c}
		})
	})
}

// *cache.Cache implements the runner's store interfaces.
var (
	_ runner.RunStore    = (*cache.Cache)(nil)
	_ runner.RecordStore = (*cache.Cache)(nil)
)
