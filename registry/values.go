package registry

import "fmt"

// Values are a stage instance's parameter values, keyed by name, with the Go
// types listed at ParamType. The getters panic only on a programming error
// (asking for an undeclared parameter or the wrong type), which the runner's
// schema check makes impossible for declared parameters.
type Values map[string]any

func value[T any](v Values, name string) T {
	x, ok := v[name]
	if !ok {
		panic(fmt.Sprintf("registry: parameter %q not set", name))
	}
	t, ok := x.(T)
	if !ok {
		panic(fmt.Sprintf("registry: parameter %q is %T", name, x))
	}
	return t
}

// String returns a string or path parameter.
func (v Values) String(name string) string { return value[string](v, name) }

// Int returns an int parameter.
func (v Values) Int(name string) int { return value[int](v, name) }

// Float returns a float parameter.
func (v Values) Float(name string) float64 { return value[float64](v, name) }

// Bool returns a bool parameter.
func (v Values) Bool(name string) bool { return value[bool](v, name) }

// Strings returns a list(string) parameter.
func (v Values) Strings(name string) []string { return value[[]string](v, name) }

// Ints returns a list(int) parameter.
func (v Values) Ints(name string) []int { return value[[]int](v, name) }

// Floats returns a list(float) parameter.
func (v Values) Floats(name string) []float64 { return value[[]float64](v, name) }
