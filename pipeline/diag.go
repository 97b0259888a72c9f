package pipeline

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
	"github.com/mitchellh/go-wordwrap"
)

// parseFile parses the HCL file at path with p. A file that cannot be read
// is one diagnostic with the operating system's reason ("open nope.hcl: no
// such file or directory", "read pipelines: is a directory"), where
// hclparse would say only that it could not be read; what names the file
// ("pipeline", "variables").
func parseFile(p *hclparse.Parser, path, what string) (*hcl.File, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Failed to read file",
			Detail:   fmt.Sprintf("The %s file %q could not be read: %v.", what, path, err),
		}}
	}
	if d := CheckNesting(src, path); d.HasErrors() {
		return nil, d
	}
	return p.ParseHCL(src, path)
}

// WriteDiagnostics renders diags as text, one block per diagnostic in the
// file:line:col form editors and CI logs link to, with the source line and
// the subject underlined (re-reading the files they name), then the detail
// wrapped at width columns (0 = no wrapping):
//
//	f.hcl:4:3: error: Unsupported argument
//	    4 |   valuez = [1]
//	      |   ^^^^^^
//	An argument named "valuez" is not expected here.
//
// color adds ANSI colours (callers pass false for NO_COLOR and non-terminals).
func WriteDiagnostics(w io.Writer, diags hcl.Diagnostics, width uint, color bool) error {
	files := map[string][]string{} // file name → its lines (nil: unreadable)
	for _, d := range diags {
		if r := d.Subject; r != nil && r.Filename != "" {
			if _, done := files[r.Filename]; !done {
				if b, err := os.ReadFile(r.Filename); err == nil {
					files[r.Filename] = strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n")
				} else {
					files[r.Filename] = nil
				}
			}
		}
	}
	var b strings.Builder
	for i, d := range diags {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeDiagnostic(&b, d, files, width, color)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// diagStyle wraps s in an ANSI style when color is on.
func diagStyle(s, code string, color bool) string {
	if !color || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// writeDiagnostic renders one diagnostic (see WriteDiagnostics).
func writeDiagnostic(b *strings.Builder, d *hcl.Diagnostic, files map[string][]string, width uint, color bool) {
	sev, code := "error", "1;31"
	if d.Severity == hcl.DiagWarning {
		sev, code = "warning", "1;33"
	}
	r := d.Subject
	if r != nil && r.Filename != "" {
		b.WriteString(diagStyle(fmt.Sprintf("%s:%d:%d:", r.Filename, r.Start.Line, r.Start.Column), "1", color) + " ")
	}
	b.WriteString(diagStyle(sev+":", code, color) + " " + diagStyle(d.Summary, "1", color) + "\n")
	if r != nil {
		if lines := files[r.Filename]; r.Start.Line >= 1 && r.Start.Line <= len(lines) {
			last := min(max(r.End.Line, r.Start.Line), len(lines), r.Start.Line+2)
			numW := len(fmt.Sprint(last))
			for n := r.Start.Line; n <= last; n++ {
				line := strings.TrimRight(lines[n-1], " \t")
				fmt.Fprintf(b, "  %*d | %s\n", numW, n, line)
				if n == r.Start.Line {
					end := len([]rune(line)) + 1
					if r.End.Line == r.Start.Line && r.End.Column > r.Start.Column {
						end = r.End.Column
					}
					fmt.Fprintf(b, "  %*s | %s\n", numW, "", diagStyle(diagMarker(line, r.Start.Column, end), code, color))
				}
			}
		}
	}
	if detail := d.Detail; detail != "" {
		if width > 0 {
			detail = wordwrap.WrapString(detail, width-1)
		}
		b.WriteString(detail + "\n")
	}
}

// diagMarker returns the underline of columns [start, end) of line (1-based,
// in characters): spaces (tabs kept, so it lines up) then carets, at least one.
func diagMarker(line string, start, end int) string {
	r := []rune(line)
	var m strings.Builder
	for i := 0; i < start-1; i++ {
		if i < len(r) && r[i] == '\t' {
			m.WriteByte('\t')
		} else {
			m.WriteByte(' ')
		}
	}
	m.WriteString(strings.Repeat("^", max(end-start, 1)))
	return m.String()
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
