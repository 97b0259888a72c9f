package stages

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/viz"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Members of the evaluate stage's table artifact.
const (
	learnMemberTableMD   = "table.md"
	learnMemberTableCSV  = "table.csv"
	learnMemberTableJSON = "table.json"
	learnMemberChartPNG  = "chart.png"
)

func learnEvaluateType() *registry.Type {
	return &registry.Type{
		Name:    "evaluate",
		Version: "3", // 2: the chart's legend beside the axes, a margin above the title; 3: a y axis of at least two points
		Doc: "Collects the metrics of many train runs into a table: mean ± std (population std, as numpy's " +
			"np.std) over the runs of each dataset × model, in percent, with the paper's published value and the " +
			"difference beside it, and whether the cell is within max(1.5, 2 × the paper's std) of the paper or " +
			"above it. Datasets or models listed in the parameters but without runs appear as missing cells. " +
			"Writes table.md, table.csv, table.json and chart.png.",
		Params: []registry.Param{
			{Name: "metric", Type: registry.String, Default: "test", Enum: []string{"test", "test_best_val", "val", "val_best", "train"},
				Doc: "which metric of the runs: test after the last epoch (the paper's protocol) or at the best-validation epoch, …"},
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

// learnCell is one dataset × model cell of the evaluate table (percent).
type learnCell struct {
	Dataset   string    `json:"dataset"`
	Model     string    `json:"model"`
	Runs      int       `json:"runs"`
	Values    []float64 `json:"values,omitempty"`
	Mean      *float64  `json:"mean"`
	Std       *float64  `json:"std"`
	Min       *float64  `json:"min"`
	Max       *float64  `json:"max"`
	PaperMean *float64  `json:"paper_mean"`
	PaperStd  *float64  `json:"paper_std"`
	PaperRef  string    `json:"paper_table,omitempty"`
	Diff      *float64  `json:"diff"`
	Within    *bool     `json:"within_tolerance"`
	Status    string    `json:"status"` // "ok", "below paper", "missing (no runs)", "no paper value"
}

type learnTable struct {
	Title  string      `json:"title"`
	Metric string      `json:"metric"`
	Unit   string      `json:"unit"`
	Cells  []learnCell `json:"cells"`
	// Notes: the settings select_on chose and the verdict on the best model.
	Notes []string `json:"notes,omitempty"`
}

// learnPaperOrder is the paper's column order of datasets and models.
var (
	learnDatasetOrder = []string{"disease", "disease_nc", "airport", "pubmed", "citeseer", "cora", "reddit", "r8", "r52", "ohsumed", "mr"}
	learnModelOrder   = []string{"hyla-sgc", "rff-sgc", "sgc", "hyla-lr", "rff-lr", "lr", "textsgc"}
)

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

// learnPaperName maps dataset names of the loaders to the paper's.
func learnPaperName(dataset string) string {
	switch dataset {
	case "disease_nc", "synthetic_disease":
		return "disease"
	}
	return dataset
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
			return nil, fmt.Errorf("evaluate: %s: metrics need dataset, model and a number %q (have %v)", where, metric, learnKeys(m))
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
		ds, model = strings.ToLower(ds), strings.ToLower(model)
		if ds == "disease_nc" {
			ds = "disease" // HGCN's file name; the paper's row is "disease"
		}
		seenD[ds], seenM[model] = true, true
		values[[2]string{ds, model}] = append(values[[2]string{ds, model}], 100*v)
	}
	if metricName == "" {
		metricName = "accuracy"
	}
	datasets := learnOrdered(p.Strings("datasets"), seenD, learnDatasetOrder)
	models := learnOrdered(p.Strings("models"), seenM, learnModelOrder)
	tab := learnTable{Title: p.String("title"), Metric: metric + " " + metricName, Unit: "percent"}
	for _, ds := range datasets {
		for _, model := range models {
			c := learnCell{Dataset: ds, Model: model}
			vals := values[[2]string{ds, model}]
			if len(vals) == 0 && !slices.Contains(p.Strings("datasets"), ds) && !slices.Contains(p.Strings("models"), model) {
				continue // neither listed nor run: not part of the table
			}
			c.Runs = len(vals)
			if len(vals) > 0 {
				c.Values = vals
				mean, std := learnMeanStd(vals)
				lo, hi := slices.Min(vals), slices.Max(vals)
				c.Mean, c.Std, c.Min, c.Max = &mean, &std, &lo, &hi
				c.Status = "ok"
			} else {
				c.Status = "missing (no runs)"
			}
			if p.String("compare_to") == "paper" {
				if r, ok := learnPaperLookup(p.String("paper_table"), learnPaperName(ds), model); ok {
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
							c.Status = "below paper"
						}
					}
				} else if c.Mean != nil {
					c.Status = "no paper value"
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
	out.SetFile(learnMemberTableMD, learnMarkdown(&tab, datasets, models, p.String("compare_to") == "paper"))
	csvb, err := learnCSV(&tab)
	if err != nil {
		return nil, err
	}
	out.SetFile(learnMemberTableCSV, csvb)
	js, err := json.MarshalIndent(&tab, "", "  ")
	if err != nil {
		return nil, err
	}
	out.SetFile(learnMemberTableJSON, append(js, '\n'))
	png, err := learnChart(&tab, datasets, models)
	if err != nil {
		return nil, fmt.Errorf("evaluate: chart: %w", err)
	}
	out.SetFile(learnMemberChartPNG, png)
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

// learnMeanStd returns the mean and the population standard deviation.
func learnMeanStd(v []float64) (float64, float64) {
	var s float64
	for _, x := range v {
		s += x
	}
	mean := s / float64(len(v))
	var q float64
	for _, x := range v {
		q += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(q / float64(len(v)))
}

func learnPM(mean, std *float64) string {
	if mean == nil {
		return "—"
	}
	if std == nil {
		return fmt.Sprintf("%.1f", *mean)
	}
	return fmt.Sprintf("%.1f ± %.1f", *mean, *std)
}

func learnSigned(d *float64) string {
	if d == nil {
		return "—"
	}
	return fmt.Sprintf("%+.1f", *d)
}

func learnMarkdown(t *learnTable, datasets, models []string, paperCol bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", t.Title)
	fmt.Fprintf(&b, "Metric: %s in percent, mean ± population std over the runs", t.Metric)
	if paperCol {
		b.WriteString("; paper: Yu & De Sa, ICLR 2023; Δ = result − paper; ✓ = within max(1.5, 2 × paper std) of the paper or above")
	}
	b.WriteString(".\n\n")
	// Wide table: models × datasets.
	b.WriteString("| model |")
	for _, ds := range datasets {
		fmt.Fprintf(&b, " %s |", ds)
	}
	b.WriteString("\n|---|")
	for range datasets {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	cell := map[[2]string]*learnCell{}
	for i := range t.Cells {
		cell[[2]string{t.Cells[i].Dataset, t.Cells[i].Model}] = &t.Cells[i]
	}
	for _, m := range models {
		fmt.Fprintf(&b, "| %s |", m)
		for _, ds := range datasets {
			c := cell[[2]string{ds, m}]
			switch {
			case c == nil:
				b.WriteString(" |")
			case c.Mean == nil:
				fmt.Fprintf(&b, " %s |", c.Status)
			default:
				fmt.Fprintf(&b, " %s", learnPM(c.Mean, c.Std))
				if paperCol && c.PaperMean != nil {
					mark := "✓"
					if c.Within != nil && !*c.Within {
						mark = "✗"
					}
					fmt.Fprintf(&b, " (paper %.1f, Δ %s %s)", *c.PaperMean, learnSigned(c.Diff), mark)
				}
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "\n- %s", n)
	}
	if len(t.Notes) > 0 {
		b.WriteString("\n")
	}
	// Long table with every number.
	b.WriteString("\n| dataset | model | runs | result | min | max |")
	if paperCol {
		b.WriteString(" paper | Δ | status |")
	}
	b.WriteString("\n|---|---|---|---|---|---|")
	if paperCol {
		b.WriteString("---|---|---|")
	}
	b.WriteString("\n")
	for _, c := range t.Cells {
		res := learnPM(c.Mean, c.Std)
		if c.Mean == nil {
			res = c.Status
		}
		lo, hi := "—", "—"
		if c.Min != nil {
			lo, hi = fmt.Sprintf("%.1f", *c.Min), fmt.Sprintf("%.1f", *c.Max)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |", c.Dataset, c.Model, c.Runs, res, lo, hi)
		if paperCol {
			pp := learnPM(c.PaperMean, c.PaperStd)
			if c.PaperMean == nil {
				pp = "not in paper"
			}
			fmt.Fprintf(&b, " %s | %s | %s |", pp, learnSigned(c.Diff), c.Status)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

func learnCSV(t *learnTable) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', 4, 64)
	}
	_ = w.Write([]string{"dataset", "model", "metric", "runs", "mean", "std", "min", "max", "paper_mean", "paper_std", "diff", "within_tolerance", "status"})
	for _, c := range t.Cells {
		within := ""
		if c.Within != nil {
			within = strconv.FormatBool(*c.Within)
		}
		_ = w.Write([]string{c.Dataset, c.Model, t.Metric, strconv.Itoa(c.Runs), num(c.Mean), num(c.Std), num(c.Min), num(c.Max),
			num(c.PaperMean), num(c.PaperStd), num(c.Diff), within, c.Status})
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// learnChart draws each cell's mean with a ±std error bar, one colour per
// model, grouped by dataset, with the paper's values as black crosses.
func learnChart(t *learnTable, datasets, models []string) ([]byte, error) {
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
					pts = append(pts, [2]float64{*c.Std, *c.Std})
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
