package runner

import (
	"io"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/registry"
)

// LoadOptions are the caller's overrides of pipeline variables.
type LoadOptions struct {
	// Vars are -var NAME=VALUE overrides; VALUE is parsed as an HCL
	// expression when it parses, else taken as a string (like terraform).
	Vars map[string]string
	// VarFiles are .hcl files of NAME = VALUE assignments, applied in order before Vars.
	VarFiles []string
}

// Load parses, expands and validates a pipeline file against the stage
// types in reg. It reports every problem it finds as diagnostics with
// source ranges; the Pipeline is nil when diags has errors.
func Load(reg *registry.Registry, file string, opts LoadOptions) (*Pipeline, hcl.Diagnostics) {
	return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "runner.Load is not implemented yet"}}
}

// WriteDiagnostics renders diags as text with source snippets (re-reading
// the files they name), wrapped at width columns (0 = no wrapping).
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, width uint, color bool) error {
	_, err := io.WriteString(w, diags.Error()+"\n")
	return err
}

// WriteDiagnosticsJSON renders diags as a JSON array for tools.
func WriteDiagnosticsJSON(w io.Writer, diags hcl.Diagnostics) error {
	_, err := io.WriteString(w, "[]\n")
	return err
}

// DOT renders the DAG in Graphviz DOT.
func (p *Pipeline) DOT() string { return "" }

// Mermaid renders the DAG as a Mermaid flowchart.
func (p *Pipeline) Mermaid() string { return "" }
