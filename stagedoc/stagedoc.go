// Package stagedoc documents stage types (registry.Type): a description
// for people (inputs, parameters with their defaults, allowed values and
// ranges, outputs, each with its documentation wrapped beside it) and a
// JSON form for tools, and the pipeline functions a stage library adds.
package stagedoc

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/registry"
)

// Type is the JSON form of one stage type.
type Type struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Doc     string   `json:"doc,omitempty"`
	Params  []Param  `json:"params"`
	Inputs  []Input  `json:"inputs"`
	Outputs []Output `json:"outputs"`
}

// Input is the JSON form of an input slot.
type Input struct {
	Name     string        `json:"name"`
	Kind     artifact.Kind `json:"kind"`
	Many     bool          `json:"many,omitempty"`
	Optional bool          `json:"optional,omitempty"`
	Doc      string        `json:"doc,omitempty"`
}

// Output is the JSON form of an output.
type Output struct {
	Name string        `json:"name"`
	Kind artifact.Kind `json:"kind"`
	Doc  string        `json:"doc,omitempty"`
}

// Param is the JSON form of a parameter (Default only when not Required).
type Param struct {
	Name     string             `json:"name"`
	Type     registry.ParamType `json:"type"`
	Default  any                `json:"default,omitempty"`
	Required bool               `json:"required,omitempty"`
	Enum     []string           `json:"enum,omitempty"`
	Range    string             `json:"range,omitempty"`
	Doc      string             `json:"doc,omitempty"`
}

// Describe writes one stage type for people.
func Describe(w io.Writer, t *registry.Type) {
	fmt.Fprintf(w, "%s (version %s)\n", t.Name, t.Version)
	for _, line := range wrap(t.Doc, 96) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(t.Inputs) > 0 {
		fmt.Fprintln(tw, "  inputs:")
		for _, in := range t.Inputs {
			kind := string(in.Kind)
			if in.Many {
				kind += ", many"
			}
			if in.Optional {
				kind += ", optional"
			}
			row(tw, in.Doc, in.Name, kind)
		}
	}
	if len(t.Params) > 0 {
		fmt.Fprintln(tw, "  parameters:")
		for _, p := range t.Params {
			def := "(required)"
			if !p.Required {
				def = "= " + value(p.Default)
				if r := []rune(def); len(r) > 32 {
					def = string(r[:28]) + " …" // the full value: --json
				}
			}
			doc := p.Doc
			if len(p.Enum) > 0 {
				doc = strings.TrimSpace("one of " + strings.Join(p.Enum, "|") + ". " + doc)
			}
			if r := p.Range.String(); r != "" {
				doc = strings.TrimSpace(r + ". " + doc)
			}
			row(tw, doc, p.Name, string(p.Type), def)
		}
	}
	fmt.Fprintln(tw, "  outputs:")
	for _, o := range t.Outputs {
		row(tw, o.Doc, o.Name, string(o.Kind))
	}
	tw.Flush()
}

// row writes one table row: the cells, then doc wrapped into a
// last column (continuation lines keep the columns aligned; no trailing blanks).
func row(tw io.Writer, doc string, cells ...string) {
	lines := wrap(doc, 64)
	if len(lines) == 0 {
		lines = []string{""}
	}
	for i, line := range lines {
		row := cells
		if i > 0 {
			row = make([]string, len(cells))
		}
		text := "    " + strings.Join(row, "\t")
		if line != "" {
			text += "\t" + line
		}
		fmt.Fprintln(tw, text)
	}
}

// wrap splits text into lines of at most width bytes at spaces.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// value renders a default value in HCL syntax.
func value(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = fmt.Sprintf("%q", s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case []int, []float64:
		s := fmt.Sprint(x)
		return "[" + strings.ReplaceAll(strings.Trim(s, "[]"), " ", ", ") + "]"
	}
	return fmt.Sprint(v)
}

// JSON returns the JSON form of each type, in order.
func JSON(types []*registry.Type) []Type {
	out := make([]Type, 0, len(types))
	for _, t := range types {
		j := Type{Name: t.Name, Version: t.Version, Doc: t.Doc, Params: []Param{}, Inputs: []Input{}, Outputs: []Output{}}
		for _, in := range t.Inputs {
			j.Inputs = append(j.Inputs, Input{in.Name, in.Kind, in.Many, in.Optional, in.Doc})
		}
		for _, o := range t.Outputs {
			j.Outputs = append(j.Outputs, Output{o.Name, o.Kind, o.Doc})
		}
		for _, p := range t.Params {
			jp := Param{Name: p.Name, Type: p.Type, Required: p.Required, Enum: p.Enum, Range: p.Range.String(), Doc: p.Doc}
			if !p.Required {
				jp.Default = p.Default
			}
			j.Params = append(j.Params, jp)
		}
		out = append(out, j)
	}
	return out
}

// Functions writes the pipeline functions a stage library adds, each
// with its documentation, under a heading; nothing when there are none.
func Functions(w io.Writer, fns []registry.Function) {
	if len(fns) == 0 {
		return
	}
	fmt.Fprintln(w, "\nFunctions of the stage library (beside HCL's standard ones, env and file):")
	for _, f := range fns {
		fmt.Fprintf(w, "  %s\n", f.Name)
		for _, line := range wrap(f.Doc, 94) {
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
}
