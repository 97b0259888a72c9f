package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/registry"
)

func init() {
	registerCommand(&command{
		Name:    "stages",
		Summary: "list the registered stage types: parameters, inputs, outputs, docs",
		Run:     stagesCmdRun,
	})
}

const stagesCmdUsage = `Usage: hylaflow stages [flags] [NAME...]

Describes the stage types a pipeline can use in stage "TYPE" "NAME" blocks:
version, documentation, input slots (artifact kind; "many" slots take a list
or a whole for_each stage), parameters (type, default or "required", allowed
values) and outputs (referenced as stage.TYPE.NAME.OUTPUT; the first output
is the default of stage.TYPE.NAME). Without NAME, every type is described,
followed by the pipeline functions the stage library adds (dataset_present).

Flags:
  --json   print the descriptions as a JSON array

Exit status: 0 printed, 2 usage error or unknown NAME.
`

// stagesCmdJSON is the --json shape of one stage type.
type stagesCmdJSON struct {
	Name    string            `json:"name"`
	Version string            `json:"version"`
	Doc     string            `json:"doc,omitempty"`
	Params  []stagesCmdParam  `json:"params"`
	Inputs  []stagesCmdInput  `json:"inputs"`
	Outputs []stagesCmdOutput `json:"outputs"`
}

type stagesCmdInput struct {
	Name     string        `json:"name"`
	Kind     artifact.Kind `json:"kind"`
	Many     bool          `json:"many,omitempty"`
	Optional bool          `json:"optional,omitempty"`
	Doc      string        `json:"doc,omitempty"`
}

type stagesCmdOutput struct {
	Name string        `json:"name"`
	Kind artifact.Kind `json:"kind"`
	Doc  string        `json:"doc,omitempty"`
}

type stagesCmdParam struct {
	Name     string             `json:"name"`
	Type     registry.ParamType `json:"type"`
	Default  any                `json:"default,omitempty"`
	Required bool               `json:"required,omitempty"`
	Enum     []string           `json:"enum,omitempty"`
	Range    string             `json:"range,omitempty"`
	Doc      string             `json:"doc,omitempty"`
}

func stagesCmdRun(args []string, stdout, _ io.Writer) error {
	fs := cliFlagSet("stages")
	jsonOut := fs.Bool("json", false, "print JSON")
	names, err := cliFlags(fs, args, stdout, stagesCmdUsage)
	if err != nil {
		return err
	}
	reg := cliRegistry()
	all := len(names) == 0
	if all {
		names = reg.Names()
	}
	var types []*registry.Type
	for _, n := range names {
		t, ok := reg.Lookup(n)
		if !ok {
			msg := fmt.Sprintf("no stage type %q", n)
			if s := registry.DidYouMean(n, reg.Names()); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return unknownName("%s\nRegistered types: %s", msg, strings.Join(reg.Names(), ", "))
		}
		types = append(types, t)
	}
	if *jsonOut {
		out := make([]stagesCmdJSON, 0, len(types))
		for _, t := range types {
			j := stagesCmdJSON{Name: t.Name, Version: t.Version, Doc: t.Doc,
				Params: []stagesCmdParam{}, Inputs: []stagesCmdInput{}, Outputs: []stagesCmdOutput{}}
			for _, in := range t.Inputs {
				j.Inputs = append(j.Inputs, stagesCmdInput{in.Name, in.Kind, in.Many, in.Optional, in.Doc})
			}
			for _, o := range t.Outputs {
				j.Outputs = append(j.Outputs, stagesCmdOutput{o.Name, o.Kind, o.Doc})
			}
			for _, p := range t.Params {
				jp := stagesCmdParam{Name: p.Name, Type: p.Type, Required: p.Required, Enum: p.Enum, Range: p.Range.String(), Doc: p.Doc}
				if !p.Required {
					jp.Default = p.Default
				}
				j.Params = append(j.Params, jp)
			}
			out = append(out, j)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return failed(enc.Encode(out))
	}
	for i, t := range types {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		stagesCmdDescribe(stdout, t)
	}
	if fns := reg.Functions(); all && len(fns) > 0 {
		fmt.Fprintln(stdout, "\nFunctions of the stage library (beside HCL's standard ones, env and file):")
		for _, f := range fns {
			fmt.Fprintf(stdout, "  %s\n", f.Name)
			for _, line := range stagesCmdWrap(f.Doc, 94) {
				fmt.Fprintf(stdout, "    %s\n", line)
			}
		}
	}
	return nil
}

// stagesCmdDescribe prints one stage type for people.
func stagesCmdDescribe(w io.Writer, t *registry.Type) {
	fmt.Fprintf(w, "%s (version %s)\n", t.Name, t.Version)
	for _, line := range stagesCmdWrap(t.Doc, 96) {
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
			stagesCmdRow(tw, in.Doc, in.Name, kind)
		}
	}
	if len(t.Params) > 0 {
		fmt.Fprintln(tw, "  parameters:")
		for _, p := range t.Params {
			def := "(required)"
			if !p.Required {
				def = "= " + stagesCmdValue(p.Default)
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
			stagesCmdRow(tw, doc, p.Name, string(p.Type), def)
		}
	}
	fmt.Fprintln(tw, "  outputs:")
	for _, o := range t.Outputs {
		stagesCmdRow(tw, o.Doc, o.Name, string(o.Kind))
	}
	tw.Flush()
}

// stagesCmdRow writes one table row: the cells, then doc wrapped into a
// last column (continuation lines keep the columns aligned; no trailing blanks).
func stagesCmdRow(tw io.Writer, doc string, cells ...string) {
	lines := stagesCmdWrap(doc, 64)
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

// stagesCmdWrap splits text into lines of at most width bytes at spaces.
func stagesCmdWrap(text string, width int) []string {
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

// stagesCmdValue renders a default value in HCL syntax.
func stagesCmdValue(v any) string {
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
