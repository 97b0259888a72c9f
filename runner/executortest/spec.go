package executortest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
)

// SpecExecutor is a fake remote executor: it serialises each task to
// TaskSpec JSON and runs it from the decoded spec with runner.ExecSpec, as
// `hylaflow exec-stage --task FILE` on another machine would, without
// sharing any memory with the caller (Result.Artifacts stays nil).
type SpecExecutor struct {
	Store    runner.Store
	Registry *registry.Registry
	// Specs counts the tasks shipped.
	Specs atomic.Int64
}

// Execute implements runner.Executor.
func (e *SpecExecutor) Execute(ctx context.Context, task *runner.Task, hooks runner.Hooks) (*runner.Result, error) {
	b, err := task.MarshalSpec()
	if err != nil {
		return nil, fmt.Errorf("encode task %s: %w", task.Address(), err)
	}
	e.Specs.Add(1)
	var spec runner.TaskSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, fmt.Errorf("decode task %s: %w", task.Address(), err)
	}
	res, err := runner.ExecSpec(ctx, e.Store, e.Registry, &spec, hooks)
	if err != nil {
		return nil, err
	}
	res.Artifacts = nil
	return res, nil
}
