package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/zclconf/go-cty/cty"
)

// The parameter codec: everything that depends on a parameter's type lives
// in the table below, one entry per ParamType. A value travels
//
//	HCL (cty.Value) --FromCty--> Go value (Values) --EncodeParams--> canonical JSON (the cache key)
//	canonical JSON --DecodeParams--> Go value
//
// so adding a parameter type is one entry here; the loader, the planner,
// the executors and the schema check all go through it.

// paramCodec is what the registry knows about one parameter type.
type paramCodec struct {
	// cty is the type an HCL value is converted to before FromCty reads it.
	cty cty.Type
	// friendly names the type for a pipeline author ("a list of numbers").
	friendly string
	// is reports whether a Go value has the type's Go type.
	is func(v any) bool
	// fromCty reads a converted, non-null, wholly known value (list
	// elements non-null) and checks enums and ranges.
	fromCty func(p *Param, v cty.Value) (any, error)
	// decode reads the canonical JSON of a value.
	decode func(raw string) (any, error)
	// canonical returns the value as it is encoded: nil lists as empty
	// ones; an error for a value JSON cannot hold (NaN, ±Inf).
	canonical func(v any) (any, error)
	// clone copies a value so that no two holders share its storage.
	clone func(v any) any
}

var codecs = map[ParamType]*paramCodec{
	String: {
		cty: cty.String, friendly: "a string", is: isType[string],
		fromCty: func(p *Param, v cty.Value) (any, error) {
			s := v.AsString()
			if len(p.Enum) > 0 && !slices.Contains(p.Enum, s) {
				msg := fmt.Sprintf("must be one of %s; got %q", QuoteList(p.Enum, 50), s)
				if d := DidYouMean(s, p.Enum); d != "" {
					msg += fmt.Sprintf(". Did you mean %q?", d)
				}
				return nil, fmt.Errorf("%s", msg)
			}
			return s, nil
		},
		decode: decodeAs[string], canonical: same, clone: same1,
	},
	Path: {
		cty: cty.String, friendly: "a path (string)", is: isType[string],
		fromCty: func(_ *Param, v cty.Value) (any, error) { return v.AsString(), nil },
		decode:  decodeAs[string], canonical: same, clone: same1,
	},
	Bool: {
		cty: cty.Bool, friendly: "a bool", is: isType[bool],
		fromCty: func(_ *Param, v cty.Value) (any, error) { return v.True(), nil },
		decode:  decodeAs[bool], canonical: same, clone: same1,
	},
	Int: {
		cty: cty.Number, friendly: "a whole number", is: isType[int],
		fromCty: func(p *Param, v cty.Value) (any, error) {
			n, err := ctyInt(v)
			if err != nil {
				return nil, err
			}
			if !p.Range.Contains(float64(n)) {
				return nil, fmt.Errorf("must be %s, got %d", p.Range.Requirement(), n)
			}
			return n, nil
		},
		decode: decodeAs[int], canonical: same, clone: same1,
	},
	Float: {
		cty: cty.Number, friendly: "a number", is: isType[float64],
		fromCty: func(p *Param, v cty.Value) (any, error) {
			f, err := ctyFloat(v)
			if err != nil {
				return nil, err
			}
			if !p.Range.Contains(f) {
				return nil, fmt.Errorf("must be %s, got %s", p.Range.Requirement(), FormatNumber(f))
			}
			return f, nil
		},
		decode: decodeAs[float64],
		canonical: func(v any) (any, error) {
			f := v.(float64)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("%v is not a finite number", f)
			}
			return f, nil
		},
		clone: same1,
	},
	Strings: {
		cty: cty.List(cty.String), friendly: "a list of strings", is: isType[[]string],
		fromCty: func(_ *Param, v cty.Value) (any, error) {
			elems := v.AsValueSlice()
			out := make([]string, len(elems))
			for i, e := range elems {
				out[i] = e.AsString()
			}
			return out, nil
		},
		decode: decodeAs[[]string], canonical: nonNil[string], clone: cloneSlice[string],
	},
	Ints: {
		cty: cty.List(cty.Number), friendly: "a list of whole numbers", is: isType[[]int],
		fromCty: func(p *Param, v cty.Value) (any, error) {
			elems := v.AsValueSlice()
			out := make([]int, len(elems))
			for i, e := range elems {
				n, err := ctyInt(e)
				if err != nil {
					return nil, fmt.Errorf("element %d %w", i, err)
				}
				if !p.Range.Contains(float64(n)) {
					return nil, fmt.Errorf("element %d must be %s, got %d", i, p.Range.Requirement(), n)
				}
				out[i] = n
			}
			return out, nil
		},
		decode: decodeAs[[]int], canonical: nonNil[int], clone: cloneSlice[int],
	},
	Floats: {
		cty: cty.List(cty.Number), friendly: "a list of numbers", is: isType[[]float64],
		fromCty: func(p *Param, v cty.Value) (any, error) {
			elems := v.AsValueSlice()
			out := make([]float64, len(elems))
			for i, e := range elems {
				f, err := ctyFloat(e)
				if err != nil {
					return nil, fmt.Errorf("element %d %w", i, err)
				}
				if !p.Range.Contains(f) {
					return nil, fmt.Errorf("element %d must be %s, got %s", i, p.Range.Requirement(), FormatNumber(f))
				}
				out[i] = f
			}
			return out, nil
		},
		decode: decodeAs[[]float64],
		canonical: func(v any) (any, error) {
			fs := v.([]float64)
			for i, f := range fs {
				if math.IsNaN(f) || math.IsInf(f, 0) {
					return nil, fmt.Errorf("element %d (%v) is not a finite number", i, f)
				}
			}
			if fs == nil {
				return []float64{}, nil
			}
			return fs, nil
		},
		clone: cloneSlice[float64],
	},
	Blocks: {
		// Declared by nested blocks (the runner builds the value), never
		// by an attribute.
		cty: cty.DynamicPseudoType, friendly: "blocks", is: isType[[]map[string]string],
		fromCty: func(p *Param, _ cty.Value) (any, error) {
			return nil, fmt.Errorf("is declared with %s blocks, not an attribute", p.Block)
		},
		decode:    decodeAs[[]map[string]string],
		canonical: nonNil[map[string]string],
		clone: func(v any) any {
			src := v.([]map[string]string)
			if src == nil {
				return src
			}
			out := make([]map[string]string, len(src))
			for i, m := range src {
				out[i] = maps.Clone(m)
			}
			return out
		},
	},
}

func isType[T any](v any) bool { _, ok := v.(T); return ok }

func same(v any) (any, error) { return v, nil }

func same1(v any) any { return v }

func nonNil[T any](v any) (any, error) {
	if s := v.([]T); s != nil {
		return s, nil
	}
	return []T{}, nil
}

func cloneSlice[T any](v any) any { return slices.Clone(v.([]T)) }

func decodeAs[T any](raw string) (any, error) {
	var x T
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the value")
	}
	return x, nil
}

// ctyInt reads a whole cty number that fits an int.
func ctyInt(v cty.Value) (int, error) {
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return 0, fmt.Errorf("must be a whole number, got %s", bf.Text('g', -1))
	}
	i, acc := bf.Int64()
	if acc != 0 || i > math.MaxInt || i < math.MinInt {
		return 0, fmt.Errorf("is out of range: %s", bf.Text('g', -1))
	}
	return int(i), nil
}

// ctyFloat reads a cty number that fits a finite float64 (rounded to nearest).
func ctyFloat(v cty.Value) (float64, error) {
	bf := v.AsBigFloat()
	f, _ := bf.Float64()
	if math.IsInf(f, 0) {
		return 0, fmt.Errorf("is out of range: %s", bf.Text('g', -1))
	}
	return f, nil
}

// QuoteList quotes xs and joins them with commas, listing at most limit
// of them ("… (N in all)" after); "(none)" when xs is empty.
func QuoteList(xs []string, limit int) string {
	var q []string
	for i, x := range xs {
		if i == limit {
			q = append(q, fmt.Sprintf("… (%d in all)", len(xs)))
			break
		}
		q = append(q, fmt.Sprintf("%q", x))
	}
	if len(q) == 0 {
		return "(none)"
	}
	return strings.Join(q, ", ")
}

// Known reports whether pt is a parameter type the registry knows.
func (pt ParamType) Known() bool { return codecs[pt] != nil }

// CtyType returns the HCL (cty) type a value of pt is converted to before
// FromCty reads it, or cty.NilType for an unknown type.
func (pt ParamType) CtyType() cty.Type {
	if c := codecs[pt]; c != nil {
		return c.cty
	}
	return cty.NilType
}

// Friendly names pt as a pipeline author reads it: "a list of numbers".
func (pt ParamType) Friendly() string {
	if c := codecs[pt]; c != nil {
		return c.friendly
	}
	return string(pt)
}

// FromCty returns the Go value of parameter p from an HCL value already
// converted to p.Type.CtyType(), wholly known, not null and with no null
// element. It checks p's enum and range; the error completes the sentence
// "Parameter NAME of stage type TYPE …" ("must be at least 1, got 0").
// A Path is returned as written (the runner resolves it).
func (p *Param) FromCty(v cty.Value) (any, error) {
	c := codecs[p.Type]
	if c == nil {
		return nil, fmt.Errorf("has an unsupported type %q", p.Type)
	}
	return c.fromCty(p, v)
}

// CloneValue copies a parameter value's lists, so that no two instances
// (nor an instance and a type's defaults) share a slice a stage might modify.
func CloneValue(v any) any {
	switch v.(type) {
	case []string:
		return codecs[Strings].clone(v)
	case []int:
		return codecs[Ints].clone(v)
	case []float64:
		return codecs[Floats].clone(v)
	case []map[string]string:
		return codecs[Blocks].clone(v)
	}
	return v
}

// EncodeParams returns the canonical JSON of every declared parameter of t
// (values missing from v are an error): strings and paths as JSON strings
// (HTML characters not escaped), numbers in Go's shortest round-trip form,
// lists as JSON arrays ([] for empty). A parameter marked KeyOmitDefault
// is left out while its value encodes as its default does. This is what
// cache keys are computed from: it must never change for an existing value.
func EncodeParams(t *Type, v Values) (map[string]string, error) {
	out := make(map[string]string, len(t.Params))
	for _, p := range t.Params {
		x, ok := v[p.Name]
		if !ok {
			return nil, fmt.Errorf("parameter %q of stage type %q has no value", p.Name, t.Name)
		}
		s, err := encodeParam(p, x)
		if err != nil {
			return nil, fmt.Errorf("parameter %q of stage type %q: %w", p.Name, t.Name, err)
		}
		if p.KeyOmitDefault {
			d, err := encodeParam(p, p.Default)
			if err != nil {
				return nil, fmt.Errorf("parameter %q of stage type %q: default: %w", p.Name, t.Name, err)
			}
			if s == d {
				continue
			}
		}
		out[p.Name] = s
	}
	for name := range v {
		if _, ok := t.Param(name); !ok {
			return nil, fmt.Errorf("stage type %q has no parameter %q", t.Name, name)
		}
	}
	return out, nil
}

// encodeParam returns the canonical JSON of one value of parameter p.
func encodeParam(p Param, x any) (string, error) {
	if err := checkValue(p.Type, x); err != nil {
		return "", err
	}
	x, err := codecs[p.Type].canonical(x)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// DecodeParams is the inverse of EncodeParams: it decodes each parameter's
// canonical JSON by t's schema (a KeyOmitDefault parameter the record
// leaves out has its default).
func DecodeParams(t *Type, enc map[string]string) (Values, error) {
	v := make(Values, len(t.Params))
	for _, p := range t.Params {
		raw, ok := enc[p.Name]
		if !ok && p.KeyOmitDefault {
			v[p.Name] = CloneValue(p.Default)
			continue
		}
		if !ok {
			return nil, fmt.Errorf("parameter %q of stage type %q is missing from the key record", p.Name, t.Name)
		}
		c := codecs[p.Type]
		var err error
		if c == nil {
			err = fmt.Errorf("unknown parameter type %q", p.Type)
		} else {
			v[p.Name], err = c.decode(raw)
		}
		if err != nil {
			return nil, fmt.Errorf("parameter %q (%s) of stage type %q: value %s: %w", p.Name, p.Type, t.Name, raw, err)
		}
	}
	for name := range enc {
		if _, ok := t.Param(name); !ok {
			return nil, fmt.Errorf("the key record has parameter %q, which stage type %q does not declare", name, t.Name)
		}
	}
	return v, nil
}

// Complete returns every declared parameter of t: the value in params when
// given, else the parameter's default (copied). A required parameter
// missing from params, or a name t does not declare, is an error.
func (t *Type) Complete(params Values) (Values, error) {
	full := make(Values, len(t.Params))
	for _, p := range t.Params {
		if v, ok := params[p.Name]; ok {
			full[p.Name] = v
		} else if p.Required {
			return nil, fmt.Errorf("parameter %q of stage type %q is required", p.Name, t.Name)
		} else {
			full[p.Name] = CloneValue(p.Default)
		}
	}
	for name := range params {
		if _, ok := t.Param(name); !ok {
			return nil, fmt.Errorf("stage type %q has no parameter %q", t.Name, name)
		}
	}
	return full, nil
}

func checkValue(pt ParamType, v any) error {
	c := codecs[pt]
	if c == nil {
		return fmt.Errorf("unknown parameter type %q", pt)
	}
	if !c.is(v) {
		return fmt.Errorf("value %v (%T) is not a %s", v, v, pt)
	}
	return nil
}
