package viz

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// FitTitle keeps a title that fits, wraps a longer one at spaces into
// lines that each fit (by the width gonum/plot measures for the title's
// font), and shortens with "…" only what three lines cannot hold.
func TestFitTitle(t *testing.T) {
	style := plot.New().Title.TextStyle
	width := 4 * vg.Inch
	long := "Table 1 (hyperbolic baselines): HGCN, LGCN and HNN, test accuracy (%) of the selected epoch"
	huge := strings.Repeat("word ", 80)
	for _, tc := range []struct {
		name, title string
		lines       int
		whole       bool // every word kept, in order
	}{
		{"empty", "", 1, true},
		{"fits", "Quickstart: synthetic disease tree", 1, true},
		{"two lines", long, 2, true},
		{"too long", huge, MaxTitleLines, false},
		{"one unbreakable word", strings.Repeat("x", 200), 1, false},
		{"unbreakable word after a short one", "Results " + strings.Repeat("y", 200) + " end", 3, false},
	} {
		got := FitTitle(style, tc.title, width)
		lines := strings.Split(got, "\n")
		if len(lines) != tc.lines {
			t.Errorf("%s: %d lines, want %d:\n%s", tc.name, len(lines), tc.lines, got)
		}
		for _, l := range lines {
			if w := style.Width(l); w > width {
				t.Errorf("%s: line %q is %.1f pt wide, more than %.1f", tc.name, l, w, width)
			}
		}
		joined := strings.Join(strings.Fields(got), " ")
		switch {
		case tc.whole && joined != strings.Join(strings.Fields(tc.title), " "):
			t.Errorf("%s: %q lost or changed words of %q", tc.name, got, tc.title)
		case !tc.whole && !strings.Contains(got, "…"):
			t.Errorf("%s: %q is shortened without saying so (no …)", tc.name, got)
		case !tc.whole && !strings.HasPrefix(tc.title, strings.TrimSuffix(strings.Split(got, "\n")[0], "…")):
			t.Errorf("%s: %q does not start as %q does", tc.name, got, tc.title)
		}
	}
	if got := FitTitle(style, long, width); got != "Table 1 (hyperbolic baselines): HGCN, LGCN and HNN,\ntest accuracy (%) of the selected epoch" {
		t.Errorf("wrapped at %q", got)
	}
}
