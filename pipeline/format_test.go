package pipeline_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/pipeline"
)

// FormatFile reports and (with write) fixes the layout of a pipeline
// file, keeps its mode, and leaves files that do not parse untouched.
func TestFormatFile(t *testing.T) {
	dir := t.TempDir()
	const ugly = "stage \"value\" \"a\" {\nvalues=[1]\n}\n"
	const pretty = "stage \"value\" \"a\" {\n  values = [1]\n}\n"
	write := func(name, src string) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, []byte(src), 0o640); err != nil {
			t.Fatal(err)
		}
		return file
	}
	read := func(file string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tt := range []struct {
		name, src string
		write     bool
		changed   bool
		after     string
		diag, err string
	}{
		{name: "formatted", src: pretty, write: true, after: pretty},
		{name: "check only", src: ugly, changed: true, after: ugly},
		{name: "rewritten", src: ugly, write: true, changed: true, after: pretty},
		{name: "syntax error", src: "stage \"value\" {\n", write: true, after: "stage \"value\" {\n", diag: "Unclosed configuration block"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			file := write(strings.ReplaceAll(tt.name, " ", "_")+".hcl", tt.src)
			changed, diags, err := pipeline.FormatFile(file, tt.write)
			if err != nil || changed != tt.changed {
				t.Errorf("changed %v, err %v; want %v", changed, err, tt.changed)
			}
			if (tt.diag == "") != !diags.HasErrors() || tt.diag != "" && !strings.Contains(diags.Error(), tt.diag) {
				t.Errorf("diagnostics %v, want %q", diags, tt.diag)
			}
			if got := read(file); got != tt.after {
				t.Errorf("file now %q, want %q", got, tt.after)
			}
			if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("mode %v (%v), want 0640", st.Mode().Perm(), err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*fmt-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
	if _, _, err := pipeline.FormatFile(filepath.Join(dir, "missing.hcl"), true); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
