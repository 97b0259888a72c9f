package stages

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

// TestEvaluateProtocols: every training stage reports test_last, val_last,
// test_best_val and val_best with the same meaning, and its own test's
// protocol; evaluate states the protocol in the table and its JSON, and
// refuses a table of runs whose metric follows different protocols (train's
// test is the last epoch, gcn's the early-stopped model), naming the
// stages and each one's protocol, unless mix_protocols is set.
func TestEvaluateProtocols(t *testing.T) {
	g, sp := gnnGraph(t, true)
	graph := map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}
	feats := learnRun(t, "precompute", map[string]any{"k": 2}, graph, 1, 2)["features"]
	hs := learnRun(t, "sample", map[string]any{"kind": "hyla", "dim": 8, "features": 64, "scale": 0.1}, nil, 4, 1)["samples"]
	hyla := learnRun(t, "train", map[string]any{"epochs": 30}, map[string][]*bundle.Bundle{"features": {feats}, "samples": {hs}}, 1, 1)["metrics"]
	gcn := learnRun(t, "gcn", map[string]any{"epochs": 30}, graph, 1, 1)["metrics"]
	hgcn := learnRun(t, "hgcn", map[string]any{"epochs": 30}, graph, 1, 1)["metrics"]
	for _, tc := range []struct {
		name  string
		m     *bundle.Bundle
		proto string
	}{{"train", hyla, "last"}, {"gcn", gcn, "best_val"}, {"hgcn", hgcn, "best_val"}} {
		var m map[string]any
		if err := tc.m.JSON(schema.MemberMetrics, &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"test_last", "val_last", "test_best_val", "val_best"} {
			if _, ok := m[k].(float64); !ok {
				t.Errorf("%s: metrics lack %s: %v", tc.name, k, learnKeys(m))
			}
		}
		own := "test_last"
		if tc.proto == "best_val" {
			own = "test_best_val"
		}
		if m["protocol"] != tc.proto || m["test"] != m[own] {
			t.Errorf("%s: protocol %v, test %v, %s %v", tc.name, m["protocol"], m["test"], own, m[own])
		}
	}
	evalTable := func(params map[string]any, runs ...*bundle.Bundle) (map[string]any, string, error) {
		params["title"] = "T"
		out, err := learnRunErr("evaluate", params, map[string][]*bundle.Bundle{"runs": runs}, 1, 1, nil)
		if err != nil {
			return nil, "", err
		}
		js, _ := out["table"].File(table.MemberJSON)
		md, _ := out["table"].File(table.MemberMarkdown)
		var tab map[string]any
		if err := json.Unmarshal(js, &tab); err != nil {
			t.Fatal(err)
		}
		return tab, string(md), nil
	}
	// Mixed: refused, naming the stages and their protocols.
	_, _, err := evalTable(map[string]any{}, hyla, gcn, hgcn)
	for _, want := range []string{"the runs' test follows different protocols", "(test = last epoch)", "(test = best validation epoch)",
		`choose metric = "test_last" or "test_best_val"`, "mix_protocols = true"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("mixed protocols: %v, want an error with %q", err, want)
		}
	}
	// One protocol, named in the table and its JSON.
	for _, tc := range []struct {
		params map[string]any
		runs   []*bundle.Bundle
		proto  string
	}{
		{map[string]any{"metric": "test_best_val"}, []*bundle.Bundle{hyla, gcn, hgcn}, "best validation epoch"},
		{map[string]any{"metric": "test_last"}, []*bundle.Bundle{hyla, gcn}, "last epoch"},
		{map[string]any{}, []*bundle.Bundle{hyla}, "last epoch"},
		{map[string]any{}, []*bundle.Bundle{gcn, hgcn}, "best validation epoch"},
		{map[string]any{"mix_protocols": true}, []*bundle.Bundle{hyla, gcn}, "mixed"},
	} {
		tab, md, err := evalTable(tc.params, tc.runs...)
		if err != nil {
			t.Errorf("%v: %v", tc.params, err)
			continue
		}
		if tab["protocol"] != tc.proto {
			t.Errorf("%v: protocol %v, want %q", tc.params, tab["protocol"], tc.proto)
		}
		if tc.proto != "mixed" && !strings.Contains(md, "(model of the "+tc.proto+")") {
			t.Errorf("%v: the markdown does not state the protocol:\n%s", tc.params, md)
		}
		if tc.proto == "mixed" {
			for _, c := range tab["cells"].([]any) {
				if c.(map[string]any)["protocol"] == "" {
					t.Errorf("mixed table: cell without its protocol: %v", c)
				}
			}
		}
	}
}
