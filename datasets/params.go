package datasets

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// ParamKind is the type of a load parameter.
type ParamKind int

// The kinds of load parameters: what Params reads them with.
const (
	ParamString ParamKind = iota + 1 // Params.String
	ParamInt                         // Params.Int
	ParamFloat                       // Params.Float
	ParamBool                        // Params.Bool
	// ParamPath is a file or directory named by a pipeline, resolved
	// against the pipeline's directory; read with Params.String.
	ParamPath
)

// ParamSpec declares one parameter a source's loader reads from
// Request.Params. The dataset stage takes the union of the parameters of
// every registered source (SourceParams): a parameter a new source
// declares is valid in pipelines with no other change.
type ParamSpec struct {
	Name    string
	Kind    ParamKind
	Default any      // string, int, float64 or bool, as Kind
	Enum    []string // allowed values of a string parameter, if restricted
	// Min and Below bound an int or float parameter: Min ≤ x (when Min is
	// set) and x < Below (when Below is set).
	Min, Below *float64
	Doc        string // what the source does with it
	// OmitDefaultFromKey leaves the parameter out of the dataset stage's
	// cache key while it holds its default, so that declaring it keeps
	// the keys (and the cached results) of every existing pipeline.
	OmitDefaultFromKey bool
}

// Bound returns a pointer to x, for ParamSpec.Min and Below.
func Bound(x float64) *float64 { return &x }

// check reports a spec that cannot be a parameter.
func (p ParamSpec) check() error {
	want := map[ParamKind]reflect.Kind{ParamString: reflect.String, ParamPath: reflect.String, ParamInt: reflect.Int, ParamFloat: reflect.Float64, ParamBool: reflect.Bool}[p.Kind]
	switch {
	case p.Name == "":
		return errors.New("a parameter without a name")
	case want == reflect.Invalid:
		return fmt.Errorf("parameter %s: unknown kind %d", p.Name, p.Kind)
	case p.Default == nil || reflect.TypeOf(p.Default).Kind() != want:
		return fmt.Errorf("parameter %s: default %#v is not a %v", p.Name, p.Default, want)
	case len(p.Enum) > 0 && ((p.Kind != ParamString && p.Kind != ParamPath) || !slices.Contains(p.Enum, p.Default.(string))):
		return fmt.Errorf("parameter %s: an enum is for a string parameter and holds its default", p.Name)
	case (p.Min != nil || p.Below != nil) && p.Kind != ParamInt && p.Kind != ParamFloat:
		return fmt.Errorf("parameter %s: bounds are for a number", p.Name)
	}
	return nil
}

// sameAs reports whether q declares what p does, but for its Doc.
func (p ParamSpec) sameAs(q ParamSpec) bool {
	bound := func(a, b *float64) bool {
		return (a == nil) == (b == nil) && (a == nil || *a == *b || math.IsNaN(*a) && math.IsNaN(*b))
	}
	return p.Kind == q.Kind && p.OmitDefaultFromKey == q.OmitDefaultFromKey && p.Default == q.Default && slices.Equal(p.Enum, q.Enum) && bound(p.Min, q.Min) && bound(p.Below, q.Below)
}

// SourceParams returns the union of the parameters the registered sources
// declare (Source.Params): sources in name order, each one's parameters in
// its order, a parameter two sources declare listed once where it first
// appears, its Doc the declaring sources' docs as "SOURCE: doc; …". Two
// sources that declare one name differently (kind, default, enum or
// bounds), or a malformed declaration, are an error naming them.
func SourceParams() ([]ParamSpec, error) {
	var out []ParamSpec
	where := map[string]int{}
	var docs [][]string
	owner := map[string]string{}
	var errs []error
	for _, name := range Sources() {
		src, _ := SourceOf(name)
		for _, p := range src.Params() {
			if err := p.check(); err != nil {
				errs = append(errs, fmt.Errorf("dataset source %s: %w", name, err))
				continue
			}
			i, seen := where[p.Name]
			if !seen {
				where[p.Name], owner[p.Name] = len(out), name
				out = append(out, p)
				docs = append(docs, nil)
				i = len(out) - 1
			} else if !out[i].sameAs(p) {
				errs = append(errs, fmt.Errorf("dataset sources %s and %s declare parameter %s differently", owner[p.Name], name, p.Name))
				continue
			}
			if p.Doc != "" {
				docs[i] = append(docs[i], name+": "+p.Doc)
			}
		}
	}
	for i := range out {
		out[i].Doc = strings.Join(docs[i], "; ")
	}
	return out, errors.Join(errs...)
}
