package stages

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
	"github.com/hylaflow/hylaflow/viz"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

func learnEvaluateType() *registry.Type {
	return &registry.Type{
		Name: "evaluate",
		// 2: the chart's legend beside the axes, a margin above the title; 3: a y axis of at least two points;
		// 4: the sample std (n−1; none for one run), the column order and whether it compares with the paper in table.json (package table);
		// 5: the protocol the metric follows (table.json's protocol, stated in table.md);
		// 6: a chart title wider than the plot is wrapped (viz.FitTitle), not cut at both ends
		Version: "6",
		Doc: "Collects the metrics of many train runs into a table: mean ± sample std (n−1; a single run shows " +
			"n = 1) over the runs of each dataset × model, in percent, with the paper's published value and the " +
			"difference beside it, and whether the cell is within max(1.5, 2 × the paper's std) of the paper or " +
			"above it. Datasets or models listed in the parameters but without runs appear as missing cells. " +
			"Writes table.md, table.csv, table.json and chart.png.",
		Params: []registry.Param{
			{Name: "metric", Type: registry.String, Default: "test", Enum: []string{"test", "test_last", "test_best_val", "val", "val_last", "val_best", "train"},
				Doc: "which metric of the runs: test, val and train follow each stage's own protocol (train: the last epoch, the paper's; " +
					"the GNN baselines: the early-stopped model); test_last, val_last (the last epoch) and test_best_val, val_best " +
					"(the best validation epoch) mean the same for every training stage"},
			{Name: "mix_protocols", Type: registry.Bool, Default: false, KeyOmitDefault: true,
				Doc: "allow runs whose metric follows different protocols in one table (each cell then says its protocol)"},
			{Name: "compare_to", Type: registry.String, Default: "paper", Enum: []string{"paper", "none"}, Doc: "put the paper's values beside the results"},
			{Name: "paper_table", Type: registry.String, Default: "auto",
				Enum: []string{"auto", "table1", "table1-reddit", "table2-transductive", "table2-inductive"},
				Doc:  "which table of the paper to compare with (auto: the first that has the dataset and model)"},
			{Name: "datasets", Type: registry.Strings, Default: []string{}, Doc: "row order; listed datasets without runs show as missing"},
			{Name: "models", Type: registry.Strings, Default: []string{}, Doc: "model order; listed models without runs show as missing"},
			{Name: "title", Type: registry.String, Default: "Results", Doc: "title of the table and chart"},
			{Name: "select_on", Type: registry.String, Default: "", Enum: []string{"", "val", "val_best"}, KeyOmitDefault: true,
				Doc: "model selection: runs labelled \"FAMILY SETTING…\" (e.g. \"hyla-sgc K=2 s=0.1\") make one cell per family, " +
					"from the setting with the highest mean of this metric over its runs (never the test metric); the table's notes name " +
					"each choice and which model is best beyond the seeds' spread (mean − std above every other's mean + std)"},
		},
		Inputs:  []registry.Input{{Name: "runs", Kind: schema.KindMetrics, Many: true, Doc: "metrics outputs of train stages (e.g. every seed of a for_each)"}},
		Outputs: []registry.Output{{Name: learnOutTable, Kind: schema.KindTable, Doc: "table.md, table.csv, table.json, chart.png"}},
		Run:     learnRunEvaluate,
	}
}

// learnModelOrder is the paper's row order of models; the datasets'
// column order is their catalogue entries' (datasets.Columns).
var learnModelOrder = []string{"hyla-sgc", "rff-sgc", "sgc", "hyla-lr", "rff-lr", "lr", "textsgc"}

// learnProtocolNames are the tables' words for the protocols.
var learnProtocolNames = map[string]string{learnProtocolLast: "last epoch", learnProtocolBestVal: "best validation epoch"}

// learnMetricProtocol returns the protocol metric follows in the metrics
// m of one run: fixed for the protocol-named metrics, the run's own
// ("protocol", or for runs stored before it was recorded, best_epoch for
// train and stop_epoch for the early-stopped stages) for test, val and
// train; "" when it cannot tell.
func learnMetricProtocol(metric string, m map[string]any) string {
	switch metric {
	case "test_last", "val_last":
		return learnProtocolLast
	case "test_best_val", "val_best":
		return learnProtocolBestVal
	}
	if p, _ := m["protocol"].(string); p != "" {
		return p
	}
	if _, ok := m["best_epoch"]; ok {
		return learnProtocolLast
	}
	if _, ok := m["stop_epoch"]; ok {
		return learnProtocolBestVal
	}
	return ""
}

func learnOrdered(listed []string, seen map[string]bool, canonical []string) []string {
	var out []string
	add := func(s string) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range listed {
		add(strings.ToLower(s))
	}
	for _, s := range canonical {
		if seen[s] {
			add(s)
		}
	}
	var rest []string
	for s := range seen {
		if !slices.Contains(out, s) {
			rest = append(rest, s)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func learnRunEvaluate(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	metric := p.String("metric")
	runs, err := inputBundles(job, "runs")
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	labels := job.InputLabels["runs"]
	var sel *learnSelection
	if on := p.String("select_on"); on != "" {
		if sel, err = learnSelect(runs, labels, on); err != nil {
			return nil, err
		}
	}
	values := map[[2]string][]float64{}
	seenD, seenM := map[string]bool{}, map[string]bool{}
	metricName := ""
	// protocols: per protocol, the stage blocks whose runs follow it;
	// cellProtocol: each cell's.
	protocols := map[string][]string{}
	cellProtocol := map[[2]string]string{}
	for i, a := range runs {
		where := fmt.Sprintf("run %d", i)
		if i < len(labels) {
			where = labels[i]
		}
		var m map[string]any
		if err := a.JSON(schema.MemberMetrics, &m); err != nil {
			return nil, fmt.Errorf("evaluate: %s: %w", where, err)
		}
		ds, _ := m["dataset"].(string)
		model, _ := m["model"].(string)
		v, ok := m[metric].(float64)
		if ds == "" || model == "" || !ok {
			return nil, fmt.Errorf("evaluate: %s: metrics need dataset, model and a number %q (have %v); test_last, val_last, "+
				"test_best_val and val_best mean the same for every training stage (a stage stored before they existed runs again)",
				where, metric, learnKeys(m))
		}
		proto := learnMetricProtocol(metric, m)
		block := where
		if i := strings.Index(block, "["); i > 0 {
			block = block[:i]
		}
		if !slices.Contains(protocols[proto], block) {
			protocols[proto] = append(protocols[proto], block)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("evaluate: %s: %s is %v", where, metric, v)
		}
		if name, _ := m["metric"].(string); name != "" {
			if metricName != "" && metricName != name {
				metricName = "mixed"
			} else if metricName == "" {
				metricName = name
			}
		}
		if sel != nil {
			fam, set := learnSplitLabel(model)
			if sel.chosen[[2]string{strings.ToLower(ds), fam}] != set {
				continue
			}
			model = fam
		}
		// The dataset's column (disease_nc is the paper's "disease").
		ds, model = datasets.MetaOf(ds).Column, strings.ToLower(model)
		seenD[ds], seenM[model] = true, true
		values[[2]string{ds, model}] = append(values[[2]string{ds, model}], 100*v)
		if old, ok := cellProtocol[[2]string{ds, model}]; ok && old != proto {
			proto = table.ProtocolMixed
		}
		cellProtocol[[2]string{ds, model}] = proto
	}
	if metricName == "" {
		metricName = "accuracy"
	}
	protocol := ""
	for proto := range protocols {
		protocol = learnProtocolNames[proto]
		if protocol == "" {
			protocol = "unknown"
		}
	}
	if len(protocols) > 1 {
		if !p.Bool("mix_protocols") {
			var parts []string
			for _, proto := range []string{learnProtocolLast, learnProtocolBestVal, ""} {
				if blocks := protocols[proto]; len(blocks) > 0 {
					what := learnProtocolNames[proto]
					if what == "" {
						what = "protocol not recorded"
					}
					parts = append(parts, fmt.Sprintf("%s (%s = %s)", strings.Join(blocks, ", "), metric, what))
				}
			}
			return nil, fmt.Errorf("evaluate: the runs' %s follows different protocols: %s; choose metric = \"test_last\" or "+
				"\"test_best_val\" (the same meaning for every training stage), or set mix_protocols = true",
				metric, strings.Join(parts, "; "))
		}
		protocol = table.ProtocolMixed
	}
	columns := learnOrdered(p.Strings("datasets"), seenD, datasets.Columns())
	models := learnOrdered(p.Strings("models"), seenM, learnModelOrder)
	tab := table.Doc{Title: p.String("title"), Metric: metric + " " + metricName, Protocol: protocol, Unit: "percent", Datasets: columns, Models: models,
		Paper: p.String("compare_to") == "paper"}
	for _, ds := range columns {
		for _, model := range models {
			c := table.Cell{Dataset: ds, Model: model}
			if protocol == table.ProtocolMixed {
				c.Protocol = learnProtocolNames[cellProtocol[[2]string{ds, model}]]
			}
			vals := values[[2]string{ds, model}]
			if len(vals) == 0 && !slices.Contains(p.Strings("datasets"), ds) && !slices.Contains(p.Strings("models"), model) {
				continue // neither listed nor run: not part of the table
			}
			c.Runs = len(vals)
			if len(vals) > 0 {
				c.Values = vals
				sp := table.Summarize(vals)
				lo, hi := slices.Min(vals), slices.Max(vals)
				c.Mean, c.Std, c.Min, c.Max = &sp.Mean, sp.Std, &lo, &hi
				c.Status = table.StatusOK
			} else {
				c.Status = table.StatusMissing
			}
			if p.String("compare_to") == "paper" {
				if r, ok := learnPaperLookup(p.String("paper_table"), datasets.MetaOf(ds).PaperKey, model); ok {
					pm := r.Mean
					c.PaperMean, c.PaperRef = &pm, r.Table
					if r.HasStd {
						ps := r.Std
						c.PaperStd = &ps
					}
					if c.Mean != nil {
						d := *c.Mean - pm
						within := d >= -math.Max(1.5, 2*r.Std)
						c.Diff, c.Within = &d, &within
						if !within {
							c.Status = table.StatusBelow
						}
					}
				} else if c.Mean != nil {
					c.Status = table.StatusNoPaper
				}
			}
			tab.Cells = append(tab.Cells, c)
		}
	}
	if sel != nil {
		tab.Notes = append(sel.notes, learnVerdict(tab.Cells)...)
		if p.String("compare_to") == "none" {
			tab.Notes = append(tab.Notes, "no paper value: the paper has no results on this graph")
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := bundle.New(schema.KindTable)
	out.SetFile(table.MemberMarkdown, table.Markdown(&tab))
	csvb, err := table.CSV(&tab)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	out.SetFile(table.MemberCSV, csvb)
	js, err := table.Marshal(&tab)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	out.SetFile(table.MemberJSON, js)
	png, err := learnChart(&tab, columns, models)
	if err != nil {
		return nil, fmt.Errorf("evaluate: chart: %w", err)
	}
	out.SetFile(table.MemberChart, png)
	job.Logf("evaluate: %d runs, %d cells", len(runs), len(tab.Cells))
	return map[string]artifact.Artifact{learnOutTable: out}, nil
}

func learnKeys(m map[string]any) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	slices.Sort(k)
	return k
}

func learnPaperLookup(table, dataset, model string) (paper.Result, bool) {
	// A model run under another protocol, labelled "gcn (long)", is
	// compared with the paper's value of its model.
	if i := strings.Index(model, " ("); i > 0 && strings.HasSuffix(model, ")") {
		model = model[:i]
	}
	if table != "auto" {
		return paper.Lookup(table, dataset, model)
	}
	for _, t := range []string{"table1", "table1-reddit", "table2-transductive", "table2-inductive"} {
		if r, ok := paper.Lookup(t, dataset, model); ok {
			return r, true
		}
	}
	return paper.Result{}, false
}

// learnChart draws each cell's mean with a ±std error bar, one colour per
// model, grouped by dataset, with the paper's values as black crosses.
func learnChart(t *table.Doc, datasets, models []string) ([]byte, error) {
	p := plot.New()
	legend := plot.NewLegend()
	p.Title.Text = t.Title
	p.Title.Padding = vg.Points(6)
	p.Y.Label.Text = t.Metric + " (%)"
	p.NominalX(datasets...)
	p.X.Min, p.X.Max = -0.6, float64(len(datasets))-0.4
	width := 0.7 / math.Max(1, float64(len(models)))
	var paperPts plotter.XYs
	for j, m := range models {
		var pts learnYErrors
		var xys plotter.XYs
		for i, ds := range datasets {
			x := float64(i) + (float64(j)-float64(len(models)-1)/2)*width
			for _, c := range t.Cells {
				if c.Dataset != ds || c.Model != m {
					continue
				}
				if c.Mean != nil {
					xys = append(xys, plotter.XY{X: x, Y: *c.Mean})
					sd := 0.0 // one run: no error bar
					if c.Std != nil {
						sd = *c.Std
					}
					pts = append(pts, [2]float64{sd, sd})
				}
				if c.PaperMean != nil {
					paperPts = append(paperPts, plotter.XY{X: x, Y: *c.PaperMean})
				}
			}
		}
		if len(xys) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = plotutil.Color(j)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(3.5)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYer
			plotter.YErrorer
		}{xys, pts})
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color = plotutil.Color(j)
		p.Add(s, eb)
		legend.Add(m, s)
	}
	if len(paperPts) > 0 {
		s, err := plotter.NewScatter(paperPts)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = color.Black
		s.GlyphStyle.Shape = draw.CrossGlyph{}
		s.GlyphStyle.Radius = vg.Points(4)
		p.Add(s)
		legend.Add("paper", s)
	}
	p.Add(plotter.NewGrid())
	// Room above and below the points and error bars, so that none sits on
	// the frame; at least two percentage points, so that equal values
	// (a 100.0 ± 0.0 cell) get a readable axis instead of one whose ticks
	// all print the same number around a rounding error.
	p.Y.Min, p.Y.Max = chartYRange(p.Y.Min, p.Y.Max)
	// The legend in a column right of the axes: inside them it covered
	// the points of the last dataset.
	return viz.RenderLegendRight(p, legend, 6*vg.Inch, 4*vg.Inch, "png")
}

// chartYRange pads [lo, hi] by 6 % on each side and widens it to at least
// two units (percentage points) around its middle.
func chartYRange(lo, hi float64) (float64, float64) {
	span := hi - lo
	lo, hi = lo-0.06*span, hi+0.06*span
	if hi-lo < 2 {
		mid := lo/2 + hi/2
		lo, hi = mid-1, mid+1
	}
	return lo, hi
}

// learnYErrors are symmetric error bars (low, high) for plotter.YErrorBars.
type learnYErrors [][2]float64

func (e learnYErrors) YError(i int) (float64, float64) { return e[i][0], e[i][1] }
