package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// maxFileFuncSize bounds what file() reads: a pipeline is data, not a bulk input.
const maxFileFuncSize = 4 << 20

// pipelineFunctions returns the functions a pipeline's expressions may call:
// the usual cty standard library plus env(NAME, DEFAULT) and file(PATH),
// which reads a file inside dir (the pipeline's directory) only.
func pipelineFunctions(dir string) map[string]function.Function {
	return map[string]function.Function{
		"abs":             stdlib.AbsoluteFunc,
		"ceil":            stdlib.CeilFunc,
		"chomp":           stdlib.ChompFunc,
		"chunklist":       stdlib.ChunklistFunc,
		"coalesce":        stdlib.CoalesceFunc,
		"coalescelist":    stdlib.CoalesceListFunc,
		"compact":         stdlib.CompactFunc,
		"concat":          stdlib.ConcatFunc,
		"contains":        stdlib.ContainsFunc,
		"csvdecode":       stdlib.CSVDecodeFunc,
		"distinct":        stdlib.DistinctFunc,
		"element":         stdlib.ElementFunc,
		"flatten":         stdlib.FlattenFunc,
		"floor":           stdlib.FloorFunc,
		"format":          stdlib.FormatFunc,
		"formatlist":      stdlib.FormatListFunc,
		"indent":          stdlib.IndentFunc,
		"index":           stdlib.IndexFunc,
		"int":             stdlib.IntFunc,
		"join":            stdlib.JoinFunc,
		"jsondecode":      stdlib.JSONDecodeFunc,
		"jsonencode":      stdlib.JSONEncodeFunc,
		"keys":            stdlib.KeysFunc,
		"length":          stdlib.LengthFunc,
		"log":             stdlib.LogFunc,
		"lookup":          stdlib.LookupFunc,
		"lower":           stdlib.LowerFunc,
		"max":             stdlib.MaxFunc,
		"merge":           stdlib.MergeFunc,
		"min":             stdlib.MinFunc,
		"parseint":        stdlib.ParseIntFunc,
		"pow":             stdlib.PowFunc,
		"range":           stdlib.RangeFunc,
		"regex":           stdlib.RegexFunc,
		"regexall":        stdlib.RegexAllFunc,
		"regex_replace":   stdlib.RegexReplaceFunc,
		"replace":         stdlib.ReplaceFunc,
		"reverse":         stdlib.ReverseListFunc,
		"setintersection": stdlib.SetIntersectionFunc,
		"setproduct":      stdlib.SetProductFunc,
		"setsubtract":     stdlib.SetSubtractFunc,
		"setunion":        stdlib.SetUnionFunc,
		"signum":          stdlib.SignumFunc,
		"slice":           stdlib.SliceFunc,
		"sort":            stdlib.SortFunc,
		"split":           stdlib.SplitFunc,
		"strlen":          stdlib.StrlenFunc,
		"strrev":          stdlib.ReverseFunc,
		"substr":          stdlib.SubstrFunc,
		"title":           stdlib.TitleFunc,
		"tobool":          stdlib.MakeToFunc(cty.Bool),
		"tolist":          stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"tomap":           stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
		"tonumber":        stdlib.MakeToFunc(cty.Number),
		"toset":           toSetFunc,
		"tostring":        stdlib.MakeToFunc(cty.String),
		"trim":            stdlib.TrimFunc,
		"trimprefix":      stdlib.TrimPrefixFunc,
		"trimspace":       stdlib.TrimSpaceFunc,
		"trimsuffix":      stdlib.TrimSuffixFunc,
		"upper":           stdlib.UpperFunc,
		"values":          stdlib.ValuesFunc,
		"zipmap":          stdlib.ZipmapFunc,
		"env":             envFunc,
		"file":            makeFileFunc(dir),
	}
}

// toSetFunc is the standard library's toset with a shortcut for its usual
// argument, for_each = toset([...]): a tuple or list of known, non-null
// values of one primitive type becomes the set of those values directly.
// The standard conversion finds the tuple's common element type by sorting
// its element types (O(n log n) comparisons of types, twice: once to type
// the call, once to convert), which made toset the largest cost of loading
// a pipeline that fans out over a few hundred keys. The result is the one
// the standard conversion gives (TestToSetSameAsStdlib); any other
// argument takes the standard path.
var toSetFunc = func() function.Function {
	std := stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType))
	return function.New(&function.Spec{
		Description: std.Description(),
		Params:      std.Params(),
		Type: func(args []cty.Value) (cty.Type, error) {
			if uniformPrimitives(args[0]) {
				return cty.Set(cty.DynamicPseudoType), nil
			}
			return std.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if uniformPrimitives(args[0]) {
				return cty.SetVal(args[0].AsValueSlice()), nil
			}
			return std.Call(args)
		},
	})
}()

// uniformPrimitives reports whether v is a non-empty, known, unmarked tuple
// or list whose elements are known, non-null, unmarked values of one
// primitive type.
func uniformPrimitives(v cty.Value) bool {
	ty := v.Type()
	if !ty.IsTupleType() && !ty.IsListType() || v.IsNull() || !v.IsKnown() || v.IsMarked() || v.LengthInt() == 0 {
		return false
	}
	var elem cty.Type
	if ty.IsListType() {
		elem = ty.ElementType()
	} else {
		types := ty.TupleElementTypes()
		elem = types[0]
		for _, t := range types[1:] {
			if !t.Equals(elem) {
				return false
			}
		}
	}
	if !elem.IsPrimitiveType() {
		return false
	}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() || !e.IsKnown() || e.IsMarked() {
			return false
		}
	}
	return true
}

// envFunc is env(NAME[, DEFAULT]): the environment variable's value, else
// DEFAULT; an unset variable without a default is an error.
var envFunc = function.New(&function.Spec{
	Description: "Returns the value of an environment variable, or the default when it is unset.",
	Params:      []function.Parameter{{Name: "name", Type: cty.String}},
	VarParam:    &function.Parameter{Name: "default", Type: cty.String},
	Type:        function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if len(args) > 2 {
			return cty.NilVal, fmt.Errorf("env takes a name and at most one default, got %d arguments", len(args))
		}
		name := args[0].AsString()
		if v, ok := os.LookupEnv(name); ok {
			return cty.StringVal(v), nil
		}
		if len(args) == 2 {
			return args[1], nil
		}
		return cty.NilVal, fmt.Errorf("environment variable %s is not set and no default was given (env(%q, \"default\"))", name, name)
	},
})

// makeFileFunc returns file(PATH): the UTF-8 contents of PATH, relative to
// dir, which must stay inside dir after resolving symbolic links.
func makeFileFunc(dir string) function.Function {
	return function.New(&function.Spec{
		Description: "Reads a UTF-8 file inside the pipeline's directory.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			b, err := readSandboxed(dir, args[0].AsString())
			if err != nil {
				return cty.NilVal, err
			}
			return cty.StringVal(string(b)), nil
		},
	})
}

func readSandboxed(dir, rel string) ([]byte, error) {
	if rel == "" {
		return nil, fmt.Errorf("file: empty path")
	}
	if filepath.IsAbs(rel) {
		return nil, fmt.Errorf("file(%q): absolute paths are not allowed; give a path relative to the pipeline's directory", rel)
	}
	if c := filepath.Clean(rel); c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("file(%q): the path leaves the pipeline's directory", rel)
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, fmt.Errorf("file(%q): %w", rel, err)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(root, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("file(%q): no such file in the pipeline's directory", rel)
	} else if err != nil {
		return nil, fmt.Errorf("file(%q): %w", rel, err)
	}
	if r, err := filepath.Rel(root, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("file(%q): the path leaves the pipeline's directory", rel)
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("file(%q): %w", rel, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("file(%q): not a regular file", rel)
	}
	if st.Size() > maxFileFuncSize {
		return nil, fmt.Errorf("file(%q): %d bytes, more than the limit of %d", rel, st.Size(), maxFileFuncSize)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("file(%q): %w", rel, err)
	}
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("file(%q): not valid UTF-8", rel)
	}
	return b, nil
}
