package stages

import (
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

func selRun(t *testing.T, model string, val, test float64) *bundle.Bundle {
	t.Helper()
	b := bundle.New(schema.KindMetrics)
	if err := b.SetJSON(schema.MemberMetrics, map[string]any{"dataset": "mine", "model": model, "val": val, "test": test}); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEvaluateSelectOn: select_on keeps, per family, the setting with the
// best mean validation accuracy (not the best test accuracy), reports its
// test runs, and says whether the best model is best beyond the spread.
func TestEvaluateSelectOn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		runs  [][3]any // model, val, test
		cells map[string]string
		notes []string
	}{
		{"validation decides, not test", [][3]any{
			{"hyla-sgc K=1", 0.80, 0.95}, {"hyla-sgc K=1", 0.80, 0.93}, // best test, worse val
			{"hyla-sgc K=2", 0.90, 0.70}, {"hyla-sgc K=2", 0.88, 0.72},
			{"sgc K=1", 0.70, 0.60}, {"sgc K=1", 0.70, 0.62},
		}, map[string]string{"hyla-sgc": "71.0 ± 1.4", "sgc": "61.0 ± 1.4"}, []string{
			"hyla-sgc on mine: K=2, chosen from 2 settings, mean val 89.0%",
			"sgc on mine: K=1, the only setting, mean val 70.0%",
			"mine: hyla-sgc is best beyond the seeds' spread (71.0 ± 1.4 against sgc's 61.0 ± 1.4, the runner-up; mean ± sample std)",
		}},
		{"within the spread", [][3]any{
			{"gcn hidden=16", 0.5, 0.70}, {"gcn hidden=16", 0.5, 0.74},
			{"rff-sgc K=1 s=1", 0.5, 0.71}, {"rff-sgc K=1 s=1", 0.5, 0.71},
		}, map[string]string{"gcn": "72.0 ± 2.8", "rff-sgc": "71.0 ± 0.0"}, []string{
			"mine: no model is best beyond the seeds' spread: gcn leads with 72.0 ± 2.8, rff-sgc has 71.0 ± 0.0 (the intervals mean ± sample std overlap)",
		}},
		{"one run has no spread", [][3]any{
			{"hyla-sgc K=1", 0.8, 0.827}, {"sgc K=1", 0.8, 0.826},
		}, map[string]string{"hyla-sgc": "82.7 (n = 1)", "sgc": "82.6 (n = 1)"}, []string{
			"mine: hyla-sgc has the best mean, but a model with one run has no spread to judge by: run more seeds",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in []*bundle.Bundle
			for _, r := range tc.runs {
				in = append(in, selRun(t, r[0].(string), r[1].(float64), r[2].(float64)))
			}
			tab := learnRun(t, "evaluate", map[string]any{"select_on": "val", "compare_to": "none"}, map[string][]*bundle.Bundle{"runs": in}, 1, 1)["table"]
			doc, err := tab.MemberFile(table.MemberJSON)
			if err != nil {
				t.Fatal(err)
			}
			got, err := table.Parse(doc)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Cells) != len(tc.cells) {
				t.Fatalf("cells %+v, want %v", got.Cells, tc.cells)
			}
			for _, c := range got.Cells {
				if want := tc.cells[c.Model]; c.Result() != want {
					t.Errorf("%s: %s, want %s", c.Model, c.Result(), want)
				}
			}
			notes := strings.Join(got.Notes, "\n")
			for _, want := range append(tc.notes, "no paper value: the paper has no results on this graph") {
				if !strings.Contains(notes, want) {
					t.Errorf("notes lack %q:\n%s", want, notes)
				}
			}
		})
	}
}
