package registry

import (
	"fmt"
	"math"
	"strconv"
)

// Range bounds a numeric parameter (int, float or each element of a list
// of them). Build one with AtLeast, Above, Between or their combinations;
// the zero value allows everything.
type Range struct {
	Min, Max         float64
	HasMin, HasMax   bool
	MinOpen, MaxOpen bool // the bound itself is excluded
}

// AtLeast allows x ≥ min.
func AtLeast(min float64) *Range { return &Range{Min: min, HasMin: true} }

// Above allows x > min.
func Above(min float64) *Range { return &Range{Min: min, HasMin: true, MinOpen: true} }

// Between allows min ≤ x ≤ max.
func Between(min, max float64) *Range {
	return &Range{Min: min, Max: max, HasMin: true, HasMax: true}
}

// Below returns a copy of r that also requires x < max.
func (r Range) Below(max float64) *Range {
	r.Max, r.HasMax, r.MaxOpen = max, true, true
	return &r
}

// AtMost returns a copy of r that also requires x ≤ max.
func (r Range) AtMost(max float64) *Range {
	r.Max, r.HasMax, r.MaxOpen = max, true, false
	return &r
}

// Contains reports whether x lies in the range.
func (r *Range) Contains(x float64) bool {
	if r == nil {
		return true
	}
	if math.IsNaN(x) {
		return !r.HasMin && !r.HasMax
	}
	if r.HasMin && (x < r.Min || r.MinOpen && x == r.Min) {
		return false
	}
	if r.HasMax && (x > r.Max || r.MaxOpen && x == r.Max) {
		return false
	}
	return true
}

// String describes the range as `hylaflow stages` shows it: "≥ 1",
// "> 0", "0 … 1", "≥ 0 and < 1"; "" for no bound.
func (r *Range) String() string {
	if r == nil || !r.HasMin && !r.HasMax {
		return ""
	}
	f := FormatNumber
	lo, hi := "≥ ", "≤ "
	if r.MinOpen {
		lo = "> "
	}
	if r.MaxOpen {
		hi = "< "
	}
	switch {
	case r.HasMin && r.HasMax && !r.MinOpen && !r.MaxOpen:
		return f(r.Min) + " … " + f(r.Max)
	case r.HasMin && r.HasMax:
		return lo + f(r.Min) + " and " + hi + f(r.Max)
	case r.HasMin:
		return lo + f(r.Min)
	}
	return hi + f(r.Max)
}

// Requirement phrases the range for a message "must be …": "≥ 1",
// "between 1 and 4096", "≥ 0 and < 1".
func (r *Range) Requirement() string {
	if r != nil && r.HasMin && r.HasMax && !r.MinOpen && !r.MaxOpen {
		return "between " + FormatNumber(r.Min) + " and " + FormatNumber(r.Max)
	}
	return r.String()
}

// FormatNumber writes x as a pipeline author would: whole numbers without
// an exponent (1048576, not 1.048576e+06), others in the shortest form.
func FormatNumber(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func (r *Range) check() error {
	if r == nil {
		return nil
	}
	if r.HasMin && r.HasMax && (r.Min > r.Max || r.Min == r.Max && (r.MinOpen || r.MaxOpen)) {
		return fmt.Errorf("empty range %s", r)
	}
	return nil
}

// Problem is what a stage type's Check or Preflight hook reports about one
// instance's parameters.
type Problem struct {
	// Param names the parameter the problem is about, so the runner can
	// point at its value in the pipeline file; "" means the stage as a whole.
	Param string
	// Warning marks a problem that does not stop the pipeline from loading
	// or running (for example data files that a run would need).
	Warning bool
	// Summary is a short title ("Unknown dataset"); Detail the full message,
	// a sentence ending with a period.
	Summary, Detail string
}

// Problemf returns an error Problem about param.
func Problemf(param, summary, format string, args ...any) Problem {
	return Problem{Param: param, Summary: summary, Detail: fmt.Sprintf(format, args...)}
}

// Warningf returns a warning Problem about param.
func Warningf(param, summary, format string, args ...any) Problem {
	p := Problemf(param, summary, format, args...)
	p.Warning = true
	return p
}
