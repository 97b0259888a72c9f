package registry

import (
	"fmt"
	"sort"

	"github.com/zclconf/go-cty/cty/function"
)

// Function is a pipeline function a stage library offers beside the
// runner's built-in ones, e.g. dataset_present(NAME, ROOT), which lets a
// pipeline choose between a benchmark's files and a built-in stand-in at
// plan time. Make builds it for one pipeline: dir is the pipeline file's
// directory, which anchors relative paths as for Path parameters.
type Function struct {
	Name string
	Doc  string
	Make func(dir string) function.Function
}

// AddFunction registers f. It returns an error for an empty name, a
// missing Make or a name registered twice; the runner reports a clash with
// one of its built-in functions when it loads a pipeline.
func (r *Registry) AddFunction(f Function) error {
	if f.Name == "" || f.Make == nil {
		return fmt.Errorf("registry: function %q needs a name and a Make function", f.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.funcs == nil {
		r.funcs = map[string]Function{}
	}
	if _, dup := r.funcs[f.Name]; dup {
		return fmt.Errorf("registry: function %q registered twice", f.Name)
	}
	r.funcs[f.Name] = f
	return nil
}

// Functions returns the registered functions, sorted by name.
func (r *Registry) Functions() []Function {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Function, 0, len(r.funcs))
	for _, f := range r.funcs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
