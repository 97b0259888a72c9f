package runreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestTableText renders table.json documents (written like the evaluate
// stage's before version 4, with the population std that table.Parse turns
// into the sample std) and compares with testdata/tables/NAME.golden: the wide layout
// with paper and Δ rows, the long layout when the wide one is too wide for
// 80 columns, missing cells, mixed run counts, an empty table.
func TestTableText(t *testing.T) {
	for _, tc := range []struct {
		name     string
		wide     bool // the wide (model × dataset) layout is expected
		contains []string
	}{
		{"quickstart", true, []string{"| hyla-sgc | 84.3 ± 1.6", "mean ± sample std over 3 runs"}},
		{"table1", true, []string{"|   paper  | 91.3 ± 0.6", "| -3.2 ✗", "| no runs", "Δ = result − paper"}},
		{"wide", false, []string{"| reddit   | hyla-sgc | 2    | 80.1 ± 1.5 | 81.0 ± 0.5 | -0.9 ✓ |", "| r52      | sgc      | 2    | 80.1 ± 1.5 | —"}},
		{"search", true, []string{"val accuracy (%), mean ± sample std over 1–2 runs", "| s=1 lr_e=1 lr_c=0.3   | 76.4 ± 1.4   |", "| 74.0 (n = 1) |"}},
		{"empty", false, []string{"Results — test accuracy", "(no cells)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := os.ReadFile(filepath.Join("testdata", "tables", tc.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteText(&b, doc); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			golden := filepath.Join("testdata", "tables", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update once)", err)
			}
			if got != string(want) {
				t.Errorf("differs from %s; got:\n%s\nwant:\n%s", golden, got, want)
			}
			for _, s := range tc.contains {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
			if isWide := strings.Contains(got, "\n| model "); isWide != tc.wide {
				t.Errorf("wide layout %v, want %v:\n%s", isWide, tc.wide, got)
			}
			for i, line := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
				if n := utf8.RuneCountInString(line); n > TextWidth && i > 0 {
					t.Errorf("line %d has %d columns, more than %d: %q", i+1, n, TextWidth, line)
				}
			}
		})
	}
	if err := WriteText(&bytes.Buffer{}, []byte(`{"cells": 3}`)); err == nil || !strings.Contains(err.Error(), "table.json") {
		t.Errorf("malformed table.json: error %v, want one naming table.json", err)
	}
}
