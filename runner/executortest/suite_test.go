package executortest_test

import (
	"testing"

	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
)

func TestLocalConforms(t *testing.T) {
	executortest.Run(t, func(t *testing.T) executortest.Env {
		s := executortest.NewMemStore()
		return executortest.Env{Executor: runner.NewLocal(s), Store: s}
	})
}

func TestSpecExecutorConforms(t *testing.T) {
	executortest.Run(t, func(t *testing.T) executortest.Env {
		s := executortest.NewMemStore()
		return executortest.Env{Executor: &executortest.SpecExecutor{Store: s, Registry: executortest.Types()}, Store: s}
	})
}
