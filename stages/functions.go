package stages

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// registerFunctions adds the pipeline functions of the stage library.
func registerFunctions(r *registry.Registry) error {
	return r.AddFunction(registry.Function{
		Name: "dataset_present",
		Doc: "dataset_present(NAME[, ROOT]): true when the files of the catalogue's dataset NAME (hylaflow datasets list) " +
			"are found — under ROOT (relative to the pipeline's directory) if given and not empty, else where a dataset " +
			"stage without root looks ($HYLAFLOW_DATA, ../shared/datasets, the user cache). Optional files are not required. " +
			"It only looks at file names and sizes; e.g. table1.hcl runs Reddit from its files when present, else the " +
			"Reddit-scale synthetic graph.",
		Make: datasetPresentFunc,
	})
}

// datasetPresentFunc is dataset_present for the pipeline in dir.
func datasetPresentFunc(dir string) function.Function {
	return function.New(&function.Spec{
		Description: "Reports whether a catalogued dataset's files are present.",
		Params:      []function.Parameter{{Name: "name", Type: cty.String}},
		VarParam:    &function.Parameter{Name: "root", Type: cty.String},
		Type:        function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if len(args) > 2 {
				return cty.NilVal, fmt.Errorf("dataset_present takes a name and at most one root, got %d arguments", len(args))
			}
			name := args[0].AsString()
			e, ok := datasets.Lookup(name)
			if !ok {
				return cty.NilVal, fmt.Errorf("dataset_present(%q): unknown dataset (known: %s)", name, strings.Join(datasets.Names(), ", "))
			}
			if len(e.Files) == 0 {
				return cty.True, nil // generated, always available
			}
			root := ""
			if len(args) == 2 {
				root = args[1].AsString()
			}
			if root == "" {
				return cty.BoolVal(e.FindRoot() != ""), nil
			}
			if !filepath.IsAbs(root) {
				root = filepath.Join(dir, root)
			}
			return cty.BoolVal(e.Complete(root)), nil
		},
	})
}
