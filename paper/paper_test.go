package paper

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/testenv"
)

// TestResultsAppearInPaperSource checks every transcribed cell against the
// paper's LaTeX source: each "mean\pm std" (or bare mean) must occur in it.
func TestResultsAppearInPaperSource(t *testing.T) {
	b, err := os.ReadFile(testenv.Shared(t, "paper", "hyla-iclr2023.tex"))
	if err != nil {
		t.Fatalf("paper source: %v", err)
	}
	tex := strings.NewReplacer(" ", "", "\\mathbf{", "", "\\underline{", "", "}", "", "{", "").Replace(string(b))
	for _, x := range Results {
		cell := strings.TrimRight(strings.TrimRight(fmtFloat(x.Mean), "0"), ".")
		if x.HasStd {
			cell = fmtFloat(x.Mean) + "\\pm" + fmtFloat(x.Std)
		}
		if !strings.Contains(tex, "$"+cell+"$") && !strings.Contains(tex, cell) {
			t.Errorf("%s %s %s: %q not found in the paper source", x.Table, x.Dataset, x.Model, cell)
		}
	}
}

// TestLookup needs no paper source: the transcribed tables answer by name.
func TestLookup(t *testing.T) {
	if _, ok := Lookup("table1", "cora", "hyla-sgc"); !ok {
		t.Fatal("Lookup(table1, cora, hyla-sgc) missing")
	}
	if h, err := LookupHyper("json16d", "node", "cora"); err != nil || h.Features != 100 || h.Scale != 0.01 {
		t.Fatalf("LookupHyper(json16d, cora) = %+v, %v", h, err)
	}
	if _, err := LookupHyper("json16d", "node", "nope"); err == nil {
		t.Fatal("LookupHyper of an unknown dataset gave no error")
	}
}

func fmtFloat(f float64) string {
	s := strings.TrimRight(strings.TrimRight(sprintf1(f), "0"), ".")
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

func sprintf1(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
