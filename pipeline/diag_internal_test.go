package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// The text form of diagnostics: file:line:col, the severity, the source
// line with the subject underlined (tabs kept), the detail; colours only
// when asked for; no snippet for a file that cannot be read.
func TestWriteDiagnosticsText(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f.hcl")
	if err := os.WriteFile(file, []byte("stage \"a\" \"b\" {\n\tvaluez = [1]\n  x = {\n    y = 1\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rng := func(l1, c1, l2, c2 int) *hcl.Range {
		return &hcl.Range{Filename: file, Start: hcl.Pos{Line: l1, Column: c1}, End: hcl.Pos{Line: l2, Column: c2}}
	}
	for _, tt := range []struct {
		name  string
		diag  *hcl.Diagnostic
		width uint
		color bool
		want  string
	}{
		{name: "error with a tab", diag: &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument",
			Detail: `An argument named "valuez" is not expected here.`, Subject: rng(2, 2, 2, 8)},
			want: file + ":2:2: error: Unsupported argument\n  2 | \tvaluez = [1]\n    | \t^^^^^^\nAn argument named \"valuez\" is not expected here.\n"},
		{name: "warning over three lines", diag: &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Odd", Subject: rng(3, 3, 5, 4)},
			want: file + ":3:3: warning: Odd\n  3 |   x = {\n    |   ^^^^^\n  4 |     y = 1\n  5 |   }\n"},
		{name: "no subject, wrapped", diag: &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Failed to read file",
			Detail: "The pipeline file could not be read: is a directory."}, width: 30,
			want: "error: Failed to read file\nThe pipeline file could not\nbe read: is a directory.\n"},
		{name: "unreadable file", diag: &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "S",
			Subject: &hcl.Range{Filename: filepath.Join(dir, "gone.hcl"), Start: hcl.Pos{Line: 4, Column: 3}, End: hcl.Pos{Line: 4, Column: 5}}},
			want: filepath.Join(dir, "gone.hcl") + ":4:3: error: S\n"},
		{name: "colour", diag: &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "S", Subject: rng(1, 1, 1, 6)}, color: true,
			want: "\x1b[1m" + file + ":1:1:\x1b[0m \x1b[1;31merror:\x1b[0m \x1b[1mS\x1b[0m\n  1 | stage \"a\" \"b\" {\n    | \x1b[1;31m^^^^^\x1b[0m\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteDiagnostics(&b, hcl.Diagnostics{tt.diag}, tt.width, tt.color); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tt.want)
			}
		})
	}
}
