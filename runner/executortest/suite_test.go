package executortest_test

import (
	"testing"

	"github.com/hylaflow/hylaflow/runner"
	"github.com/hylaflow/hylaflow/runner/executortest"
	"github.com/hylaflow/hylaflow/stages"
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

// The command stage runs through the local executor and through a task
// spec (as a Slurm job's process rebuilds it) alike.
func TestLocalRunsCommands(t *testing.T) {
	executortest.RunCommand(t, func(t *testing.T) executortest.Env {
		s := executortest.NewMemStore()
		return executortest.Env{Executor: runner.NewLocal(s), Store: s, Registry: stages.Default()}
	})
}

func TestSpecExecutorRunsCommands(t *testing.T) {
	executortest.RunCommand(t, func(t *testing.T) executortest.Env {
		s := executortest.NewMemStore()
		return executortest.Env{Executor: &executortest.SpecExecutor{Store: s, Registry: stages.Default()}, Store: s, Registry: stages.Default()}
	})
}
