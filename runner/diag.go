package runner

import (
	"encoding/json"
	"io"
	"os"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/registry"
)

// WriteDiagnostics renders diags as text with source snippets (re-reading
// the files they name), wrapped at width columns (0 = no wrapping).
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, width uint, color bool) error {
	files := map[string]*hcl.File{}
	for _, d := range diags {
		for _, r := range []*hcl.Range{d.Subject, d.Context} {
			if r == nil || r.Filename == "" {
				continue
			}
			if _, done := files[r.Filename]; done {
				continue
			}
			if b, err := os.ReadFile(r.Filename); err == nil {
				files[r.Filename] = &hcl.File{Bytes: b}
			} else {
				files[r.Filename] = nil
			}
		}
	}
	for name, f := range files {
		if f == nil {
			delete(files, name)
		}
	}
	return hcl.NewDiagnosticTextWriter(w, files, width, color).WriteDiagnostics(diags)
}

// jsonDiagnostic is the shape of one diagnostic in WriteDiagnosticsJSON.
type jsonDiagnostic struct {
	Severity string     `json:"severity"` // "error" or "warning"
	Summary  string     `json:"summary"`
	Detail   string     `json:"detail,omitempty"`
	Range    *jsonRange `json:"range,omitempty"`
}

type jsonRange struct {
	Filename string  `json:"filename"`
	Start    jsonPos `json:"start"`
	End      jsonPos `json:"end"`
}

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// WriteDiagnosticsJSON renders diags as a JSON array for tools: objects
// with severity, summary, detail and range {filename, start, end}, where
// positions have a 1-based line and column and a 0-based byte offset.
func WriteDiagnosticsJSON(w io.Writer, diags hcl.Diagnostics) error {
	out := make([]jsonDiagnostic, 0, len(diags))
	for _, d := range diags {
		jd := jsonDiagnostic{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			jd.Severity = "warning"
		}
		if r := d.Subject; r != nil {
			jd.Range = &jsonRange{
				Filename: r.Filename,
				Start:    jsonPos{r.Start.Line, r.Start.Column, r.Start.Byte},
				End:      jsonPos{r.End.Line, r.End.Column, r.End.Byte},
			}
		}
		out = append(out, jd)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// didYouMean returns the candidate closest to name by edit distance when
// it is close enough to be a likely typo, else "" (registry.DidYouMean).
func didYouMean(name string, candidates []string) string {
	return registry.DidYouMean(name, candidates)
}

// DidYouMean returns the candidate that name is most likely a typo of, or
// "" when none is close; commands use it for their own suggestions.
func DidYouMean(name string, candidates []string) string { return didYouMean(name, candidates) }
