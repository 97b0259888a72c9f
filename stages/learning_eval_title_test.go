package stages

import (
	"bytes"
	"flag"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/table"
	"github.com/hylaflow/hylaflow/viz"
)

var titlesUpdate = flag.Bool("update-titles", false, "rewrite testdata/evaluate_titles.golden")

// Every evaluate stage's title in the shipped pipelines (at their default
// variables) fits its chart: drawn with gonum/plot's own font metrics,
// nothing of the chart.png reaches into its blank border, where a title
// wider than the plot was cut at both ends. The chart is drawn with the
// table's real layout: three datasets, three models, a paper value. The
// tables' captions, as reports print them, name the metric once (golden
// testdata/evaluate_titles.golden).
func TestChartTitlesOfShippedPipelinesFit(t *testing.T) {
	var captions strings.Builder
	files, err := filepath.Glob(filepath.Join("..", "pipelines", "*.hcl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no shipped pipelines: %v", err)
	}
	checked := 0
	for _, f := range files {
		p, diags := pipeline.Load(Default(), f, pipeline.LoadOptions{})
		if diags.HasErrors() {
			t.Errorf("%s: %v", f, diags)
			continue
		}
		seen := map[string]bool{}
		for _, inst := range p.Instances {
			if inst.Type.Name != "evaluate" {
				continue
			}
			title := inst.Params.String("title")
			if seen[title] {
				continue
			}
			seen[title] = true
			checked++
			doc := table.Doc{Title: title, Metric: inst.Params.String("metric") + " " + evalTestMetricName(p, inst),
				Cells: []table.Cell{{Runs: 3}}}
			fmt.Fprintf(&captions, "%s %s\n\t%s\n", filepath.Base(f), inst.Address, doc.Caption())
			if x, ok := chartInkInBorder(t, title); ok {
				t.Errorf("%s %s: the chart title %q is cut: ink at x = %d, in the %d-pixel border", filepath.Base(f), inst.Address, title, x, int(viz.LegendMargin.Dots(viz.PNGDPI)))
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked %d evaluate titles, want the shipped pipelines' (at least 10)", checked)
	}
	golden := filepath.Join("testdata", "evaluate_titles.golden")
	if *titlesUpdate {
		if err := os.WriteFile(golden, []byte(captions.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if captions.String() != string(want) {
		t.Errorf("captions differ from %s (go test ./stages -run TestChartTitlesOfShippedPipelinesFit -update-titles):\n%s", golden, captions.String())
	}
}

// evalTestMetricName is the name of the metric inst's table reports, as
// the evaluate stage finds it in its runs: the metric the training stages
// upstream of inst set, or that of the datasets above those left at "auto"
// (micro_f1 for Reddit, else accuracy); "mixed" for several.
func evalTestMetricName(p *pipeline.Pipeline, inst *pipeline.Instance) string {
	var names []string
	seen := map[string]bool{}
	var walk func(*pipeline.Instance)
	walk = func(in *pipeline.Instance) {
		if seen[in.Address] {
			return
		}
		seen[in.Address] = true
		if m, ok := in.Params["metric"].(string); ok && in != inst && m != "auto" {
			// A training stage's metric that the pipeline sets.
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
			return
		}
		if in.Type.Name == "dataset" {
			m := datasets.MetaOf(in.Params.String("name")).Metric
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
		}
		for _, refs := range in.Inputs {
			for _, r := range refs {
				walk(p.ByAddress[r.Producer])
			}
		}
	}
	walk(inst)
	switch len(names) {
	case 0:
		return "accuracy"
	case 1:
		return names[0]
	}
	return "mixed"
}

// chartInkInBorder draws an evaluate chart titled title and returns the
// first column of its blank border (LegendMargin on the left and right)
// holding a pixel that is not white.
func chartInkInBorder(t *testing.T, title string) (int, bool) {
	t.Helper()
	mean, std, paperMean := 81.5, 0.4, 81.4
	doc := &table.Doc{Title: title, Metric: "test accuracy", Unit: "percent"}
	ds, models := []string{"disease", "airport", "cora"}, []string{"hyla-sgc", "hyla-gcn (long)", "sgc"}
	for _, d := range ds {
		for _, m := range models {
			doc.Cells = append(doc.Cells, table.Cell{Dataset: d, Model: m, Runs: 3, Mean: &mean, Std: &std, PaperMean: &paperMean})
		}
	}
	b, err := learnChart(doc, ds, models)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bb, border := img.Bounds(), int(viz.LegendMargin.Dots(viz.PNGDPI))
	for x := bb.Min.X; x < bb.Max.X; x++ {
		if x >= bb.Min.X+border && x < bb.Max.X-border {
			continue
		}
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r>>8 < 200 || g>>8 < 200 || b>>8 < 200 {
				return x, true
			}
		}
	}
	return 0, false
}
