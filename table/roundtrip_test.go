package table_test

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runreport"
	"github.com/hylaflow/hylaflow/runs"
	"github.com/hylaflow/hylaflow/stages"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

type nopProgress struct{}

func (nopProgress) Report(int, int, string) {}

// evaluate runs the evaluate stage of the built-in registry on one
// metrics artifact per (dataset, model, test accuracy) triple.
func evaluate(t *testing.T, params map[string]any, runsIn [][3]any) artifact.Artifact {
	t.Helper()
	st, ok := stages.Default().Lookup("evaluate")
	if !ok {
		t.Fatal("no evaluate stage type")
	}
	vals := registry.Values{}
	for _, p := range st.Params {
		vals[p.Name] = p.Default
		if v, ok := params[p.Name]; ok {
			vals[p.Name] = v
		}
	}
	var in []artifact.Artifact
	var labels []string
	for i, r := range runsIn {
		m := bundle.New(schema.KindMetrics)
		if err := m.SetJSON(schema.MemberMetrics, map[string]any{"dataset": r[0], "model": r[1], "test": r[2], "metric": "accuracy", "protocol": "best_val"}); err != nil {
			t.Fatal(err)
		}
		in = append(in, m)
		labels = append(labels, "train.x["+string(rune('0'+i))+"]")
	}
	job := &registry.Job{Address: "evaluate.t", Key: "k", Params: vals, Inputs: map[string][]artifact.Artifact{"runs": in},
		InputLabels: map[string][]string{"runs": labels}, RNG: rand.New(rand.NewPCG(1, 2)), Progress: nopProgress{},
		Logf: func(string, ...any) {}, Workers: 1}
	out, err := st.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	return out["table"]
}

// TestEvaluateToReaders writes a table through the evaluate stage and
// reads it back through the two readers of the layout, runreport (the
// text and HTML reports) and runs (runs diff, report --compare), through a
// real cache: each sees the same cells, the sample std and the column
// order the stage chose. A field renamed on one side fails here.
func TestEvaluateToReaders(t *testing.T) {
	tab := evaluate(t, map[string]any{"title": "Round trip", "models": []string{"sgc", "hyla-sgc"}}, [][3]any{
		{"cora", "hyla-sgc", 0.80}, {"cora", "hyla-sgc", 0.82}, {"cora", "hyla-sgc", 0.84},
		{"cora", "sgc", 0.81}, {"pubmed", "hyla-sgc", 0.79},
	})
	doc, err := tab.MemberFile(table.MemberJSON)
	if err != nil {
		t.Fatal(err)
	}
	d, err := table.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Round trip" || d.Metric != "test accuracy" || strings.Join(d.Models, ",") != "sgc,hyla-sgc" ||
		strings.Join(d.Datasets, ",") != "pubmed,cora" {
		t.Fatalf("evaluate wrote title %q metric %q models %v datasets %v", d.Title, d.Metric, d.Models, d.Datasets)
	}
	// The runs' test is the best validation epoch's model: the table says so.
	if d.Protocol != "best validation epoch" {
		t.Fatalf("evaluate wrote protocol %q, want the best validation epoch", d.Protocol)
	}
	// 80, 82, 84: mean 82, sample std 2 (the population std would be 1.63).
	hc := d.Cell("cora", "hyla-sgc")
	if hc == nil || math.Abs(*hc.Mean-82) > 1e-9 || hc.Std == nil || math.Abs(*hc.Std-2) > 1e-9 || hc.Runs != 3 {
		t.Fatalf("cora hyla-sgc cell %+v, want 82 ± 2 over 3 runs", hc)
	}
	if c := d.Cell("cora", "sgc"); c == nil || c.Std != nil || c.Runs != 1 {
		t.Fatalf("cora sgc cell %+v, want one run without a std", c)
	}

	// runreport: the text view prints the stage's cells and order.
	var text bytes.Buffer
	if err := runreport.WriteText(&text, doc); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Round trip — test accuracy (%), mean ± sample std over 1–3 runs",
		"| model    | pubmed       | cora         |",
		"| sgc      | no runs      | 81.0 (n = 1) |",
		"| hyla-sgc | 79.0 (n = 1) | 82.0 ± 2.0   |",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("runreport.WriteText lacks %q:\n%s", want, text.String())
		}
	}
	v, err := runreport.ParseTable(doc)
	if err != nil {
		t.Fatal(err)
	}
	if v.Protocol != d.Protocol {
		t.Errorf("runreport protocol %q, want %q", v.Protocol, d.Protocol)
	}
	if c, ok := v.Cell("cora", "hyla-sgc"); !ok || c.Result != "82.0 ± 2.0" || c.Paper != "82.5 ± 0.5" || c.Delta != "-0.5" || c.Mark != "✓" {
		t.Errorf("runreport cell %+v", c)
	}

	// runs: the table as runs diff loads it from a run in the cache.
	c, err := cache.Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec := &cache.KeyRecord{Address: "evaluate.t", StageType: "evaluate", Version: "5", Params: map[string]string{}, Inputs: map[string][]string{}}
	cache.ComputeKey(rec)
	if _, err := c.Store(rec, map[string]artifact.Artifact{"table": tab}); err != nil {
		t.Fatal(err)
	}
	id, err := c.BeginRun("p", []string{"run", "p.hcl"})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RecordStage(id, cache.StageRecord{Address: "evaluate.t", Key: rec.Key, Status: "ran"}); err != nil {
		t.Fatal(err)
	}
	if err := c.FinishRun(id, "ok"); err != nil {
		t.Fatal(err)
	}
	r, err := runs.Load(c, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tables) != 1 || r.Tables[0].Title != "Round trip" || len(r.Tables[0].Cells) != len(d.Cells) {
		t.Fatalf("runs.Load tables %+v", r.Tables)
	}
	if r.Tables[0].Protocol != d.Protocol {
		t.Errorf("runs.Load protocol %q, want %q", r.Tables[0].Protocol, d.Protocol)
	}
	diff := runs.Compare(r, r)
	var got *runs.CellDiff
	for i, cd := range diff.Tables[0].Cells {
		if cd.Dataset == "cora" && cd.Model == "hyla-sgc" {
			got = &diff.Tables[0].Cells[i]
		}
	}
	if got == nil || got.A.Runs != 3 || math.Abs(got.A.Mean-82) > 1e-9 || math.Abs(got.A.SD-2) > 1e-9 || got.Verdict != runs.Within {
		t.Fatalf("runs diff cell %+v", got)
	}
	var out bytes.Buffer
	if err := runs.WriteDiff(&out, diff); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "82.00 ± 2.00 (n = 3)") || !strings.Contains(out.String(), "81.00 (n = 1)") {
		t.Errorf("runs diff prints another spread than the table:\n%s", out.String())
	}
}
