package stages

import (
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
	"gonum.org/v1/gonum/mat"
)

func TestHyLaGCNStage(t *testing.T) {
	g, sp := gnnGraph(t, true)
	hs := learnRun(t, "sample", map[string]any{"kind": "hyla", "dim": 8, "features": 64, "scale": 0.5}, nil, 4, 1)["samples"]
	in := map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}, "samples": {hs}}
	for _, level := range []string{"features", "nodes"} {
		t.Run(level, func(t *testing.T) {
			var tests []float64
			var zs []*mat.Dense
			for _, workers := range []int{1, 2} {
				out := learnRun(t, "hyla_gcn", map[string]any{"epochs": 60, "level": level, "lr_embedding": 0.5, "seed": 3}, in, 11, workers)
				var m map[string]any
				if err := out["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
					t.Fatal(err)
				}
				if m["model"] != "hyla-gcn" || m["level"] != level || m["dim"] != 8.0 || m["features"] != 64.0 {
					t.Fatalf("metrics: model %v, level %v, dim %v, features %v", m["model"], m["level"], m["dim"], m["features"])
				}
				test, _ := m["test"].(float64)
				if test < 0.6 || test > 1 {
					t.Errorf("test accuracy %v on the synthetic Disease graph, want ≥ 0.6", test)
				}
				z, err := out["model"].Dense("Z")
				if err != nil {
					t.Fatal(err)
				}
				rows, _ := z.Dims()
				if want := map[string]int{"features": 16, "nodes": 300}[level]; rows != want {
					t.Errorf("Z has %d rows, want %d", rows, want)
				}
				tests, zs = append(tests, test), append(zs, z)
				// The evaluate stage prints it without a paper value.
				tab := learnRun(t, "evaluate", map[string]any{"paper_table": "table1", "models": []string{"hyla-gcn"}},
					map[string][]*bundle.Bundle{"runs": {out["metrics"]}}, 1, 1)["table"]
				md, err := tab.File(table.MemberMarkdown)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(md), "hyla-gcn") || strings.Contains(string(md), "✗") {
					t.Errorf("evaluate table, want a hyla-gcn row without a failed comparison:\n%s", md)
				}
			}
			if tests[0] != tests[1] || !mat.Equal(zs[0], zs[1]) {
				t.Errorf("1 and 2 workers differ: test %v and %v", tests[0], tests[1])
			}
		})
	}
}

func TestHyLaGCNStageErrors(t *testing.T) {
	g, sp := gnnGraph(t, true)
	raw, _ := gnnGraph(t, false)
	hs := learnRun(t, "sample", map[string]any{"kind": "hyla", "dim": 4, "features": 16}, nil, 4, 1)["samples"]
	rs := learnRun(t, "sample", map[string]any{"kind": "rff", "dim": 4, "features": 16}, nil, 4, 1)["samples"]
	for _, tc := range []struct {
		name string
		in   map[string][]*bundle.Bundle
		want string
	}{
		{"no samples", map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}, "connect the samples input"},
		{"rff samples", map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}, "samples": {rs}}, "samples of kind rff, want hyla"},
		{"unnormalised", map[string][]*bundle.Bundle{"graph": {raw}, "split": {sp}, "samples": {hs}}, "not normalised"},
	} {
		_, err := learnRunErr("hyla_gcn", map[string]any{"epochs": 2}, tc.in, 1, 1, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
