package stages

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
	"gonum.org/v1/gonum/mat"
)

func hypMetrics(t *testing.T, out map[string]*bundle.Bundle) map[string]any {
	t.Helper()
	var m map[string]any
	if err := out["metrics"].JSON(schema.MemberMetrics, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestHypNodeClassificationStages(t *testing.T) {
	g, sp := gnnGraph(t, true)
	in := map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}
	for _, tc := range []struct {
		typ    string
		params map[string]any
		min    float64
	}{
		{"hgcn", map[string]any{"epochs": 40, "seed": 3, "learn_c": true}, 0.6},
		{"hnn", map[string]any{"epochs": 40, "seed": 3}, 0.5},
		{"lgcn", map[string]any{"epochs": 40, "seed": 3, "learn_c": true}, 0.6},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			var tests []float64
			for _, workers := range []int{1, 2} {
				m := hypMetrics(t, learnRun(t, tc.typ, tc.params, in, 11, workers))
				if m["model"] != tc.typ || m["dataset"] == "" || m["encoder"] != tc.typ {
					t.Fatalf("metrics name model %v (%v) on %v", m["model"], m["encoder"], m["dataset"])
				}
				test, _ := m["test"].(float64)
				if test < tc.min || test > 1 {
					t.Errorf("test accuracy %v on the synthetic Disease graph, want ≥ %v", test, tc.min)
				}
				if c, _ := m["c"].(float64); !(c > 0) || (tc.params["learn_c"] == true && c == 1) {
					t.Errorf("curvature %v (learn_c %v)", c, tc.params["learn_c"])
				}
				tests = append(tests, test)
			}
			if tests[0] != tests[1] {
				t.Errorf("test accuracy %v with 1 worker, %v with 2", tests[0], tests[1])
			}
		})
	}
}

// TestHypLinkPredictionFeedsHGCN runs HGCN's two-step protocol: link
// prediction writes embeddings on the ball, the hgcn stage classifies them.
func TestHypLinkPredictionFeedsHGCN(t *testing.T) {
	// A stochastic block model: edges mostly inside the four classes, so
	// the held-out edges are predictable (the synthetic Disease graph is a
	// tree whose held-out edges are not).
	g := learnRun(t, "dataset", map[string]any{"source": "synthetic", "name": "sbm", "nodes": 300, "edges": 1500,
		"features": 20, "classes": 4}, nil, 1, 2)["graph"]
	lp := learnRun(t, "linkpred", map[string]any{"epochs": 200, "seed": 1, "learn_c": true},
		map[string][]*bundle.Bundle{"graph": {g}}, 5, 1)
	m := hypMetrics(t, lp)
	roc, _ := m["test_roc"].(float64)
	ap, _ := m["test_ap"].(float64)
	if roc < 0.6 || roc > 1 || ap < 0.5 || ap > 1 || m["test"] != m["test_roc"] {
		t.Fatalf("link prediction metrics %v", m)
	}
	z, err := lp["embedding"].Dense(schema.MemberZ)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := m["c"].(float64)
	for i := 0; i < z.RawMatrix().Rows; i++ {
		var s float64
		for _, v := range z.RawRowView(i) {
			s += v * v
		}
		if !(math.Sqrt(s) < 1/math.Sqrt(c)) {
			t.Fatalf("embedding %d has norm %v, outside the ball of curvature %v", i, math.Sqrt(s), c)
		}
	}
	out := learnRun(t, "hgcn", map[string]any{"epochs": 60, "dropout": 0.2, "weight_decay": 0.0005, "seed": 2},
		map[string][]*bundle.Bundle{"graph": {g}, "embeddings": {lp["embedding"]}}, 5, 1) // the SBM graph's own split
	nc := hypMetrics(t, out)
	if nc["encoder"] != "shallow" {
		t.Fatalf("with embeddings the encoder is %v, want shallow", nc["encoder"])
	}
	if test, _ := nc["test"].(float64); test < 0.5 {
		t.Errorf("test accuracy %v on pretrained embeddings", test)
	}
}

// TestHypLinkPredictionLGCN: linkpred with LGCN's encoder learns the
// stochastic block model's held-out edges, writes points of LGCN's
// hyperboloid −x₀² + ‖x_{1:}‖² = −c, and is the same with one or two
// workers.
func TestHypLinkPredictionLGCN(t *testing.T) {
	g := learnRun(t, "dataset", map[string]any{"source": "synthetic", "name": "sbm", "nodes": 300, "edges": 1500,
		"features": 20, "classes": 4}, nil, 1, 2)["graph"]
	var rocs []float64
	for _, workers := range []int{1, 2} {
		lp := learnRun(t, "linkpred", map[string]any{"model": "lgcn", "epochs": 200, "seed": 1, "learn_c": true},
			map[string][]*bundle.Bundle{"graph": {g}}, 5, workers)
		m := hypMetrics(t, lp)
		roc, _ := m["test_roc"].(float64)
		ap, _ := m["test_ap"].(float64)
		if roc < 0.6 || roc > 1 || ap < 0.5 || ap > 1 || m["model"] != "linkpred-lgcn" {
			t.Fatalf("LGCN link prediction metrics %v", m)
		}
		rocs = append(rocs, roc)
		var info map[string]any
		if err := lp["embedding"].JSON(schema.MemberInfo, &info); err != nil {
			t.Fatal(err)
		}
		if info["manifold"] != "lorentz" {
			t.Errorf("embeddings on %v, want lorentz", info["manifold"])
		}
		z, err := lp["embedding"].Dense(schema.MemberZ)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := m["c"].(float64)
		for i := 0; i < z.RawMatrix().Rows; i++ {
			row := z.RawRowView(i)
			q := -row[0] * row[0]
			for _, v := range row[1:] {
				q += v * v
			}
			if !(row[0] > 0) || math.Abs(q+c) > 1e-6*math.Max(1, row[0]*row[0]) {
				t.Fatalf("embedding %d: ⟨x, x⟩_L = %v, want −c = %v", i, q, -c)
			}
		}
	}
	if rocs[0] != rocs[1] {
		t.Errorf("test ROC-AUC %v with 1 worker, %v with 2", rocs[0], rocs[1])
	}
}

func TestHypStageErrors(t *testing.T) {
	g, sp := gnnGraph(t, true)
	in := map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}
	// A diverging run fails naming the stage, the epoch and the parameter;
	// it writes nothing.
	out, err := learnRunErr("hgcn", map[string]any{"lr": 1e6, "learn_c": true, "epochs": 50}, in, 1, 1, nil)
	if err == nil || out != nil {
		t.Fatalf("lr 1e6: outputs %v, error %v; want an error", out, err)
	}
	for _, want := range []string{"hgcn on ", "diverged at epoch", "c (a curvature"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	// Embeddings of another graph.
	lp := learnRun(t, "linkpred", map[string]any{"epochs": 2, "seed": 1}, map[string][]*bundle.Bundle{"graph": {g}}, 5, 1)
	z, err := lp["embedding"].Dense(schema.MemberZ)
	if err != nil {
		t.Fatal(err)
	}
	short := bundle.New(schema.KindEmbedding)
	short.SetDense(schema.MemberZ, mat.DenseCopyOf(z.Slice(0, 10, 0, 16)))
	in["embeddings"] = []*bundle.Bundle{short}
	if _, err := learnRunErr("hgcn", nil, in, 1, 1, nil); err == nil || !strings.Contains(err.Error(), "10 embeddings for the") {
		t.Errorf("10 embeddings: error %v, want one naming the mismatch", err)
	}
}

// A run labelled "hgcn (long)" is compared with the paper's HGCN value and
// the HNN row with the paper's HNN.
func TestHypLabelsTakePaperValues(t *testing.T) {
	g, sp := gnnGraph(t, true)
	in := map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}
	for _, tc := range []struct {
		typ, label string
		want       float64
	}{{"hgcn", "hgcn (long)", 74.5}, {"hnn", "", 41.0}, {"lgcn", "", 81.3}} {
		out := learnRun(t, tc.typ, map[string]any{"epochs": 2, "label": tc.label}, in, 1, 1)
		tab := learnRun(t, "evaluate", map[string]any{"paper_table": "table1"}, map[string][]*bundle.Bundle{"runs": {out["metrics"]}}, 1, 1)["table"]
		raw, err := tab.File(table.MemberJSON)
		if err != nil {
			t.Fatal(err)
		}
		var lt table.Doc
		if err := json.Unmarshal(raw, &lt); err != nil {
			t.Fatal(err)
		}
		if len(lt.Cells) != 1 || lt.Cells[0].PaperMean == nil || *lt.Cells[0].PaperMean != tc.want {
			t.Fatalf("%s: cells %+v, want one cell with the paper's Disease value %v", tc.typ, lt.Cells, tc.want)
		}
	}
}

// TestHypKeyPinned pins the cache key of table1.hcl's
// hgcn.planetoid["dataset=cora,seed=0"] (type version 2, its parameters and
// its graph input as a run stored them, 2026-11-27): a parameter added to
// the hgcn type later (use_att) must leave every existing key, and so every
// cached run, as it is (registry.Param.KeyOmitDefault). Setting use_att
// gives another key.
func TestHypKeyPinned(t *testing.T) {
	st, ok := Default().Lookup("hgcn")
	if !ok {
		t.Fatal("no hgcn stage type")
	}
	key := func(extra registry.Values) string {
		given := registry.Values{"dropout": 0.5, "weight_decay": 0.001, "learn_c": true, "epochs": 100, "seed": 0}
		for k, v := range extra {
			given[k] = v
		}
		vals, err := st.Complete(given)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := registry.EncodeParams(st, vals)
		if err != nil {
			t.Fatal(err)
		}
		// Version 2, the one the runs were stored under: a version bump
		// changes every key on purpose; what is pinned here is that a new
		// parameter at its default leaves the parameters' part alone.
		rec := &cache.KeyRecord{Address: `hgcn.planetoid["dataset=cora,seed=0"]`, StageType: st.Name, Version: "2", Params: enc,
			Inputs: map[string][]string{"graph": {"de28091dc02ae18698a6e8e2267a31f985c082bcb94f7e91a4d542e69a3cc10b/graph"}}}
		return cache.ComputeKey(rec)
	}
	const want = "b2b6b5848e210ef99aef3cbed73a16d8eed2e1d715a76ab83991cee0bc840b54"
	if got := key(nil); got != want {
		t.Errorf("key %s, want %s (the key table1's runs are cached under)", got, want)
	}
	if got := key(registry.Values{"use_att": false}); got != want {
		t.Errorf("use_att = false: key %s, want %s", got, want)
	}
	if got := key(registry.Values{"use_att": true}); got == want {
		t.Errorf("use_att = true has the key of the run without attention")
	}
}

// TestHypAttentionStage: hgcn with use_att learns, is the same with one or
// two workers, says so in its metrics and is labelled apart; it is refused
// with pretrained embeddings.
func TestHypAttentionStage(t *testing.T) {
	g, sp := gnnGraph(t, true)
	in := map[string][]*bundle.Bundle{"graph": {g}, "split": {sp}}
	params := map[string]any{"epochs": 40, "seed": 3, "learn_c": true, "use_att": true}
	var tests []float64
	for _, workers := range []int{1, 2} {
		m := hypMetrics(t, learnRun(t, "hgcn", params, in, 11, workers))
		if m["model"] != "hgcn (att)" || m["encoder"] != "hgcn" || m["attention"] != true {
			t.Fatalf("metrics: model %v, encoder %v, attention %v", m["model"], m["encoder"], m["attention"])
		}
		test, _ := m["test"].(float64)
		if test < 0.6 || test > 1 {
			t.Errorf("test accuracy %v on the synthetic Disease graph, want ≥ 0.6", test)
		}
		tests = append(tests, test)
	}
	if tests[0] != tests[1] {
		t.Errorf("test accuracy %v with 1 worker, %v with 2", tests[0], tests[1])
	}
	plain := hypMetrics(t, learnRun(t, "hgcn", map[string]any{"epochs": 40, "seed": 3, "learn_c": true}, in, 11, 1))
	if _, ok := plain["attention"]; ok || plain["model"] != "hgcn" {
		t.Errorf("without attention the metrics say model %v, attention %v", plain["model"], plain["attention"])
	}
	lp := learnRun(t, "linkpred", map[string]any{"epochs": 2, "seed": 1}, map[string][]*bundle.Bundle{"graph": {g}}, 5, 1)
	in["embeddings"] = []*bundle.Bundle{lp["embedding"]}
	if _, err := learnRunErr("hgcn", map[string]any{"use_att": true}, in, 1, 1, nil); err == nil || !strings.Contains(err.Error(), "Shallow") {
		t.Errorf("use_att with embeddings: error %v, want one naming the Shallow classifier", err)
	}
}
