package stages

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

// gnnGraph is the synthetic Disease graph, normalised, with a random split.
func gnnGraph(t *testing.T, normalize bool) (*bundle.Bundle, *bundle.Bundle) {
	t.Helper()
	g := learnRun(t, "dataset", map[string]any{"source": "synthetic", "name": "disease", "nodes": 300}, nil, 1, 2)["graph"]
	if normalize {
		g = learnRun(t, "normalize", map[string]any{"features": "row"}, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["graph"]
	}
	sp := learnRun(t, "split", map[string]any{"rule": "random", "p_val": 0.2, "p_test": 0.3}, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["split"]
	return g, sp
}

func TestGNNStages(t *testing.T) {
	g, sp := gnnGraph(t, true)
	in := map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}
	for _, tc := range []struct {
		typ    string
		params map[string]any
	}{
		{"gcn", map[string]any{"epochs": 60, "seed": 3}},
		{"gat", map[string]any{"epochs": 30, "heads": 2, "hidden": 4, "output_heads": 2, "seed": 3}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			var tests []float64
			for _, workers := range []int{1, 2} {
				out := learnRun(t, tc.typ, tc.params, in, 11, workers)
				var m map[string]any
				if err := out["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
					t.Fatal(err)
				}
				if m["model"] != tc.typ || m["dataset"] == "" {
					t.Fatalf("metrics name model %v on %v", m["model"], m["dataset"])
				}
				test, _ := m["test"].(float64)
				if test < 0.6 || test > 1 {
					t.Errorf("test accuracy %v on the synthetic Disease graph, want ≥ 0.6", test)
				}
				if ep, _ := m["epochs"].(float64); ep < 1 || ep > float64(tc.params["epochs"].(int)) {
					t.Errorf("%v epochs, want 1..%v", ep, tc.params["epochs"])
				}
				tests = append(tests, test)
				// The evaluate stage reads it as a row next to the paper.
				tab := learnRun(t, "evaluate", map[string]any{"paper_table": "table1", "models": []string{tc.typ}},
					map[string][]*bundle.Bundle{"runs": {out["metrics"]}}, 1, 1)["table"]
				md, err := tab.File(table.MemberMarkdown)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(md), tc.typ) {
					t.Errorf("evaluate table has no %s row:\n%s", tc.typ, md)
				}
			}
			if tests[0] != tests[1] {
				t.Errorf("test accuracy %v with 1 worker, %v with 2", tests[0], tests[1])
			}
		})
	}
}

func TestGNNStageErrors(t *testing.T) {
	raw, sp := gnnGraph(t, false)
	_, err := learnRunErr("gcn", nil, map[string][]*bundle.Bundle{"graph": {raw}, "split": {sp}}, 1, 1, nil)
	if err == nil || !strings.Contains(err.Error(), "not normalised") {
		t.Errorf("unnormalised graph: error %v, want one saying it is not normalised", err)
	}
}

// A run labelled "gcn (long)" is compared with the paper's GCN value.
func TestGNNProtocolLabelTakesPaperValue(t *testing.T) {
	g, sp := gnnGraph(t, true)
	out := learnRun(t, "gcn", map[string]any{"epochs": 3, "label": "gcn (long)"}, map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}, 1, 1)
	tab := learnRun(t, "evaluate", map[string]any{"paper_table": "table1"}, map[string][]*bundle.Bundle{"runs": {out["metrics"]}}, 1, 1)["table"]
	raw, err := tab.File(table.MemberJSON)
	if err != nil {
		t.Fatal(err)
	}
	var lt table.Doc
	if err := json.Unmarshal(raw, &lt); err != nil {
		t.Fatal(err)
	}
	if len(lt.Cells) != 1 || lt.Cells[0].Model != "gcn (long)" || lt.Cells[0].PaperMean == nil || *lt.Cells[0].PaperMean != 69.7 {
		t.Fatalf("cells %+v, want one gcn (long) cell with the paper's Disease GCN value 69.7", lt.Cells)
	}
}
