package runreport

import (
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/internal/textfmt"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runs"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/table"
)

// Page is everything the HTML report of a run shows, read from the
// cache by BuildPage; Render lays it out. Nothing in it depends on when
// the page is made, so a page of the same run renders the same bytes.
type Page struct {
	Run  cache.RunDetail
	Prov *runs.Provenance
	// Tables are the run's evaluate tables, by stage address.
	Tables []PageTable
	// Figures are the charts of the tables and the figure stages' files.
	Figures []PageFigure
	// Blocks and Edges are the DAG collapsed by stage block, with the
	// run's statuses (pipeline.Collapse).
	Blocks []*pipeline.CollapsedBlock
	Edges  []*pipeline.CollapsedEdge
	// NoInputs counts the instances whose inputs are unknown (no key
	// record: they failed or were not reached), so their edges are not drawn.
	NoInputs int
	// Problems say what could not be read (outputs gc removed, a stage
	// that failed); the rest of the page is there all the same.
	Problems []string
	// Compare, when set, is the comparison of an earlier run with Run.
	Compare *runs.Diff
}

// PageTable is one evaluate table of the run.
type PageTable struct {
	Address string
	View    *TableView
}

// PageFigure is one image file an output of the run holds.
type PageFigure struct {
	Address string // stage instance
	Name    string // member file name, e.g. chart.png
	Mime    string // image/png or image/svg+xml
	Data    []byte
}

// BuildPage reads run id from c: its record and provenance, its tables
// and figures (Collect), and its DAG collapsed by stage block, rebuilt
// from the key records of its stages (which hold each instance's inputs)
// so that the page needs neither the pipeline file nor the directory the
// run was started from. An unknown run is an error wrapping
// cache.ErrNotFound.
func BuildPage(c *cache.Cache, reg *registry.Registry, id int64) (*Page, error) {
	run, err := runs.Load(c, id)
	if err != nil {
		return nil, err
	}
	pg := &Page{Run: run.RunDetail, Prov: run.Prov}
	outputs, err := Collect(c, reg, id, Kinds...)
	if err != nil {
		return nil, err
	}
	for _, o := range outputs {
		if o.Err != nil {
			pg.Problems = append(pg.Problems, fmt.Sprintf("%s: %v", o.Address, o.Err))
			continue
		}
		if o.Kind == schema.KindTable {
			doc, err := o.Artifact.MemberFile(table.MemberJSON)
			var v *TableView
			if err == nil {
				v, err = ParseTable(doc)
			}
			if err != nil {
				pg.Problems = append(pg.Problems, fmt.Sprintf("%s: %v", o.Address, err))
				continue
			}
			pg.Tables = append(pg.Tables, PageTable{Address: o.Address, View: v})
		}
		b, err := bundle.From(o.Artifact)
		if err != nil {
			continue // not a bundle: no image members
		}
		pg.Figures = append(pg.Figures, figuresOf(o.Address, b)...)
	}
	pg.Blocks, pg.Edges, pg.NoInputs = runGraph(run, reg)
	return pg, nil
}

// figuresOf returns the images among a bundle's file members: its SVG
// files, and its PNG files that have no SVG of the same name.
func figuresOf(address string, b *bundle.Bundle) []PageFigure {
	var out []PageFigure
	names := b.Names()
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	for _, n := range names {
		ext := strings.ToLower(path.Ext(n))
		mime := map[string]string{".png": "image/png", ".svg": "image/svg+xml"}[ext]
		if mime == "" || ext == ".png" && has[strings.TrimSuffix(n, path.Ext(n))+".svg"] {
			continue
		}
		data, err := b.File(n)
		if err != nil {
			continue
		}
		out = append(out, PageFigure{Address: address, Name: n, Mime: mime, Data: data})
	}
	return out
}

// runGraph collapses a run's stage instances by block. An instance's
// block and type come from its address and key record, its inputs from
// the key record's input refs (KEY/OUTPUT), labelled as graph labels them
// (the slot, "OUTPUT → SLOT" when the producer's type has several
// outputs). noInputs counts the instances without a key record.
func runGraph(run *runs.Run, reg *registry.Registry) (blocks []*pipeline.CollapsedBlock, edges []*pipeline.CollapsedEdge, noInputs int) {
	// By address: the run records stages in completion order, which
	// depends on -j and timing, and the drawing must not.
	stages := slices.Clone(run.Stages)
	sort.SliceStable(stages, func(i, j int) bool { return stages[i].Address < stages[j].Address })
	var insts []pipeline.GraphInstance
	status := map[string]string{}
	byKey := map[string]string{} // key → address of an instance with it
	for _, s := range stages {
		typ := ""
		if rec := run.Records[s.Key]; rec != nil {
			typ = rec.StageType + " v" + rec.Version
		} else {
			typ, _, _ = strings.Cut(blockOf(s.Address), ".")
		}
		insts = append(insts, pipeline.GraphInstance{Address: s.Address, Block: blockOf(s.Address), Type: typ})
		status[s.Address] = s.Status
		if _, ok := byKey[s.Key]; s.Key != "" && !ok {
			byKey[s.Key] = s.Address
		}
	}
	var gedges []pipeline.GraphEdge
	for _, s := range stages {
		rec := run.Records[s.Key]
		if rec == nil {
			noInputs++
			continue
		}
		slots := make([]string, 0, len(rec.Inputs))
		for slot := range rec.Inputs {
			slots = append(slots, slot)
		}
		sort.Strings(slots)
		for _, slot := range slots {
			for _, ref := range rec.Inputs[slot] {
				key, output, _ := strings.Cut(ref, "/")
				from, ok := byKey[key]
				if !ok {
					continue
				}
				label := slot
				if prec := run.Records[key]; prec != nil && reg != nil {
					if t, ok := reg.Lookup(prec.StageType); ok && len(t.Outputs) > 1 {
						label = output + " → " + slot
					}
				}
				gedges = append(gedges, pipeline.GraphEdge{From: from, To: s.Address, Label: label})
			}
		}
	}
	blocks, edges = pipeline.Collapse(insts, gedges, status)
	return blocks, edges, noInputs
}

// blockOf is the TYPE.NAME of an instance address: the address without
// its ["KEY"] suffix.
func blockOf(address string) string {
	if i := strings.IndexByte(address, '['); i > 0 {
		return address[:i]
	}
	return address
}

// DefaultHTML is the file name of a run's HTML report in the report
// directory.
func DefaultHTML(id int64) string { return fmt.Sprintf("run-%d.html", id) }

// DefaultCompareHTML is the file name of the comparison of runs a and b.
func DefaultCompareHTML(a, b int64) string { return fmt.Sprintf("compare-%d-%d.html", a, b) }

// Render writes the page as one self-contained HTML document: inline
// CSS, inline SVG for the timeline and the DAG, images as data: URLs, no
// script and nothing fetched.
func (pg *Page) Render(w io.Writer) error {
	if pg == nil {
		return errors.New("no page")
	}
	return pageTemplate().Execute(w, pg.view())
}

// pageView is what the template reads: the page with its layouts done.
type pageView struct {
	Title    string
	Run      cache.RunDetail
	Command  string
	Started  string
	Took     string
	ProvRows []runs.Field
	ProvNote string
	Tables   []tableView
	Figures  []figureView
	Timeline timelineView
	DAG      dagView
	NoInputs int
	Problems []string
	Compare  *compareView
	Stages   []stageRow
	Legend   []legendItem
}

type legendItem struct{ Status, Fill string }

type stageRow struct {
	Address, Status, Time, Reason string
}

// view lays the page out.
func (pg *Page) view() *pageView {
	v := &pageView{
		Title:    fmt.Sprintf("hylaflow run %d: %s", pg.Run.ID, pg.Run.Pipeline),
		Run:      pg.Run,
		Started:  "-",
		Took:     textfmt.Duration(pg.Run.Duration),
		ProvRows: pg.Prov.Fields(),
		NoInputs: pg.NoInputs,
		Problems: pg.Problems,
	}
	if len(pg.Run.Args) > 0 {
		v.Command = "hylaflow " + strings.Join(pg.Run.Args, " ")
	}
	if !pg.Run.Start.IsZero() {
		v.Started = pg.Run.Start.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if pg.Run.Status == "running" {
		v.Took = "still running"
	}
	if pg.Prov == nil {
		v.ProvNote = runs.NotRecorded + " (the run is older than provenance records)"
	} else if len(pg.Prov.VarFiles) == 0 && len(pg.Prov.Vars) == 0 {
		v.ProvRows = append(v.ProvRows, runs.Field{Name: "vars", Value: "none given (the pipeline's defaults)"})
	}
	for i, t := range pg.Tables {
		tv := newTableView(t)
		tv.ID = fmt.Sprintf("table-%d", i+1)
		v.Tables = append(v.Tables, tv)
	}
	for _, f := range pg.Figures {
		v.Figures = append(v.Figures, figureView{Address: f.Address, Name: f.Name,
			Src: dataURL(f.Mime, f.Data)})
	}
	v.Timeline = layoutTimeline(pg.Run.Stages)
	v.DAG = layoutDAG(pg.Blocks, pg.Edges)
	for _, s := range pg.Run.Stages {
		why := s.Reason
		if s.Error != "" {
			why = "error: " + strings.Join(strings.Fields(s.Error), " ")
		}
		t := textfmt.Duration(s.Duration)
		if s.Status == "cached" || s.Status == "skipped" {
			t = "-"
		}
		v.Stages = append(v.Stages, stageRow{Address: s.Address, Status: s.Status, Time: t, Reason: why})
	}
	for _, s := range pipeline.StatusOrder {
		v.Legend = append(v.Legend, legendItem{Status: s, Fill: pipeline.StatusFill[s]})
	}
	if pg.Compare != nil {
		v.Compare = newCompareView(pg.Compare)
		v.Title = fmt.Sprintf("hylaflow: run %d compared with run %d", pg.Compare.B.ID, pg.Compare.A.ID)
	}
	return v
}

// tableView is a table laid out for HTML: the wide layout of WriteText
// (a row per model, a column per dataset, each cell with its paper value
// and Δ under it).
type tableView struct {
	ID       string // the heading's element id
	Address  string
	Caption  string
	Datasets []string
	Rows     []tableRow
	Paper    bool
	Note     string
}

type tableRow struct {
	Model string
	Cells []tableCell
}

type tableCell struct {
	Present                    bool
	Dataset                    string
	Result, Paper, Delta, Mark string
	Class                      string // "ok", "off" or ""
	Missing                    bool
}

func newTableView(t PageTable) tableView {
	tv := tableView{Address: t.Address, Caption: t.View.Caption(), Datasets: t.View.Datasets, Paper: t.View.Paper}
	if t.View.Paper {
		tv.Note = ToleranceNote
	}
	for _, m := range t.View.Models {
		row := tableRow{Model: m}
		for _, ds := range t.View.Datasets {
			c, ok := t.View.Cell(ds, m)
			tc := tableCell{Present: ok, Dataset: ds}
			if ok {
				tc.Result, tc.Paper, tc.Delta, tc.Mark, tc.Missing = c.Result, c.Paper, c.Delta, c.Mark, c.Mean == nil
				switch c.Mark {
				case "✓":
					tc.Class = "ok"
				case "✗":
					tc.Class = "off"
				}
			}
			row.Cells = append(row.Cells, tc)
		}
		tv.Rows = append(tv.Rows, row)
	}
	return tv
}

type figureView struct {
	Address, Name string
	Src           template.URL
}

// timelineView is the Gantt chart: one bar per stage instance, in order
// of start, on a time axis from the run's first start.
type timelineView struct {
	Width, Height int
	LabelWidth    int
	Bars          []timelineBar
	Ticks         []timelineTick
	AxisY, TickY  int
	LabelX        int
	Open          bool // shown unfolded (few enough rows)
}

type timelineBar struct {
	Address, Status, Fill, Stroke string
	Title                         string
	Label                         string // the address, shortened to fit
	X, Y, W, H                    float64
	TextY, TimeX                  float64
	Time                          string
}

type timelineTick struct {
	X     float64
	Label string
}

// Timeline geometry (px).
const (
	tlRow      = 18
	tlBar      = 12
	tlPlot     = 640
	tlMaxLabel = 340
	tlCharW    = 6.6
	tlOpenRows = 120
)

// strokeOf is the outline of a status's bar: a darker shade of its fill.
var strokeOf = map[string]string{
	"failed": "#cc0000", "canceled": "#e69138", "skipped": "#bf9000", "ran": "#38761d", "cached": "#999999",
}

func layoutTimeline(stages []cache.StageRecord) timelineView {
	ss := make([]cache.StageRecord, len(stages))
	copy(ss, stages)
	sort.SliceStable(ss, func(i, j int) bool {
		if !ss[i].Start.Equal(ss[j].Start) {
			return ss[i].Start.Before(ss[j].Start)
		}
		return ss[i].Address < ss[j].Address
	})
	var t0, t1 time.Time
	longest := 0
	for i, s := range ss {
		if i == 0 || s.Start.Before(t0) {
			t0 = s.Start
		}
		if end := s.Start.Add(s.Duration); i == 0 || end.After(t1) {
			t1 = end
		}
		longest = max(longest, utf8.RuneCountInString(s.Address))
	}
	labelW := min(int(float64(longest)*tlCharW)+12, tlMaxLabel)
	maxChars := longest
	if labelW == tlMaxLabel {
		maxChars = int(float64(labelW-12) / tlCharW)
	}
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		span = 1
	}
	scale := tlPlot / span
	tv := timelineView{LabelWidth: labelW, Width: labelW + tlPlot + 90, Open: len(ss) <= tlOpenRows}
	for i, s := range ss {
		y := float64(i*tlRow + 4)
		x := float64(labelW) + s.Start.Sub(t0).Seconds()*scale
		w := math.Max(s.Duration.Seconds()*scale, 2)
		fill, ok := pipeline.StatusFill[s.Status]
		if !ok {
			fill = "#ffffff"
		}
		label := s.Address
		if utf8.RuneCountInString(label) > maxChars && maxChars > 1 {
			r := []rune(label)
			label = string(r[:maxChars-1]) + "…"
		}
		dur := textfmt.Duration(s.Duration)
		tv.Bars = append(tv.Bars, timelineBar{
			Address: s.Address, Status: s.Status, Fill: fill, Stroke: strokeOf[s.Status],
			Title: fmt.Sprintf("%s: %s, %s, from +%s", s.Address, s.Status, dur, textfmt.Duration(s.Start.Sub(t0))),
			Label: label, X: round1(x), Y: y, W: round1(w), H: tlBar, TextY: y + tlBar - 2,
			TimeX: round1(x + w + 4), Time: dur,
		})
	}
	tv.AxisY = len(ss)*tlRow + 8
	tv.TickY = tv.AxisY + 14
	tv.LabelX = labelW - 6
	tv.Height = tv.AxisY + 22
	step := niceStep(span / 6)
	for s := 0.0; s <= span+1e-9; s += step {
		tv.Ticks = append(tv.Ticks, timelineTick{X: round1(float64(labelW) + s*scale),
			Label: textfmt.Duration(time.Duration(s * float64(time.Second)))})
	}
	return tv
}

// niceStep rounds x up to 1, 2 or 5 times a power of ten.
func niceStep(x float64) float64 {
	if x <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// dagView is the collapsed DAG laid out left to right in layers: a
// block's layer is the length of the longest path to it from a block
// without inputs; within a layer blocks are ordered by the mean position
// of the blocks feeding them.
type dagView struct {
	Width, Height float64
	Nodes         []dagNode
	Edges         []dagEdge
}

type dagNode struct {
	Name, Class, Fill string
	Dashed            bool
	X, Y, W, H        float64
	TextX             float64
	Lines             []dagLine
	Title             string
}

type dagLine struct {
	Text  string
	Y     float64
	Small bool
}

type dagEdge struct {
	From, To, Label string
	Path            string
	LX, LY          float64
}

// DAG geometry (px).
const (
	dagLineH = 15
	dagPadX  = 10
	dagGapX  = 120
	dagGapY  = 22
	dagCharW = 7.8
	dagSmall = 6.4
)

func layoutDAG(blocks []*pipeline.CollapsedBlock, edges []*pipeline.CollapsedEdge) dagView {
	idx := map[string]int{}
	for i, b := range blocks {
		idx[b.Name] = i
	}
	preds := make([][]int, len(blocks))
	for _, e := range edges {
		f, t := idx[e.From], idx[e.To]
		if f != t {
			preds[t] = append(preds[t], f)
		}
	}
	// Longest-path layers; a cycle (not possible in a pipeline's block
	// graph unless a block feeds itself, which is dropped above) stops
	// after len(blocks) rounds.
	layer := make([]int, len(blocks))
	for round := 0; round < len(blocks); round++ {
		changed := false
		for t := range blocks {
			for _, f := range preds[t] {
				if layer[f]+1 > layer[t] {
					layer[t] = layer[f] + 1
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	// A block without inputs moves right, next to its first consumer, so
	// that its edges do not cross the layers in between.
	succs := make([][]int, len(blocks))
	for t, ps := range preds {
		for _, f := range ps {
			succs[f] = append(succs[f], t)
		}
	}
	for i := range blocks {
		if len(preds[i]) > 0 || len(succs[i]) == 0 {
			continue
		}
		first := -1
		for _, t := range succs[i] {
			if first < 0 || layer[t] < first {
				first = layer[t]
			}
		}
		layer[i] = max(first-1, 0)
	}
	nLayers := 0
	for _, l := range layer {
		nLayers = max(nLayers, l+1)
	}
	layers := make([][]int, nLayers)
	for i, l := range layer {
		layers[l] = append(layers[l], i)
	}
	pos := make([]float64, len(blocks))
	for _, ls := range layers {
		for j, i := range ls {
			pos[i] = float64(j)
		}
	}
	// Two barycentre sweeps.
	for sweep := 0; sweep < 2; sweep++ {
		for l := 1; l < nLayers; l++ {
			bary := map[int]float64{}
			for _, i := range layers[l] {
				if len(preds[i]) == 0 {
					bary[i] = pos[i]
					continue
				}
				s := 0.0
				for _, f := range preds[i] {
					s += pos[f]
				}
				bary[i] = s / float64(len(preds[i]))
			}
			sort.SliceStable(layers[l], func(a, b int) bool { return bary[layers[l][a]] < bary[layers[l][b]] })
			for j, i := range layers[l] {
				pos[i] = float64(j)
			}
		}
	}
	nodes := make([]dagNode, len(blocks))
	colW := make([]float64, nLayers)
	for i, b := range blocks {
		lines := b.Label()
		w := 0.0
		n := dagNode{Name: b.Name, Class: b.Class(), Title: strings.Join(lines, "; ")}
		for k, l := range lines {
			cw := dagCharW
			if k > 0 {
				cw = dagSmall
			}
			w = math.Max(w, float64(utf8.RuneCountInString(l))*cw)
			n.Lines = append(n.Lines, dagLine{Text: l, Small: k > 0})
		}
		n.W = math.Ceil(w) + 2*dagPadX
		n.H = float64(len(lines)*dagLineH + 12)
		n.Fill = "#ffffff"
		if c := n.Class; c != "" {
			n.Fill = pipeline.StatusFill[c]
		} else if len(b.Status) > 0 || b.Absent > 0 {
			n.Dashed = true
		}
		colW[layer[i]] = math.Max(colW[layer[i]], n.W)
		nodes[i] = n
	}
	x := 10.0
	colX := make([]float64, nLayers)
	for l := range colX {
		colX[l] = x
		x += colW[l] + dagGapX
	}
	height := 0.0
	for l, ls := range layers {
		y := 10.0
		for _, i := range ls {
			nodes[i].X = colX[l]
			nodes[i].Y = y
			y += nodes[i].H + dagGapY
		}
		height = math.Max(height, y)
	}
	// Centre each column vertically.
	for _, ls := range layers {
		if len(ls) == 0 {
			continue
		}
		last := nodes[ls[len(ls)-1]]
		off := (height - dagGapY - (last.Y + last.H) + 10) / 2
		for _, i := range ls {
			nodes[i].Y = round1(nodes[i].Y + off - 5)
		}
	}
	for i := range nodes {
		for k := range nodes[i].Lines {
			nodes[i].Lines[k].Y = nodes[i].Y + 6 + float64(k+1)*dagLineH - 3
		}
		nodes[i].TextX = nodes[i].X + dagPadX
	}
	dv := dagView{Width: math.Max(x-dagGapX+10, 100), Height: math.Max(height, 40), Nodes: nodes}
	for _, e := range edges {
		f, t := nodes[idx[e.From]], nodes[idx[e.To]]
		x1, y1 := f.X+f.W, f.Y+f.H/2
		x2, y2 := t.X, t.Y+t.H/2
		if idx[e.From] == idx[e.To] {
			continue
		}
		mx := (x1 + x2) / 2
		dv.Edges = append(dv.Edges, dagEdge{From: e.From, To: e.To, Label: e.Label(),
			Path: fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, mx, y1, mx, y2, x2-6, y2),
			LX:   round1(mx), LY: round1((y1+y2)/2 - 4)})
	}
	return dv
}

// compareView is the comparison section: runs.Diff laid out.
type compareView struct {
	A, B       runs.RunRef
	Provenance []runs.FieldChange
	ProvNote   string
	SpreadRule string
	Tables     []compareTable
	Changed    []runs.StageChange
	Same       int
	OnlyA      []string
	OnlyB      []string
	Notes      []string
}

type compareTable struct {
	Stage, Title, Metric, Only string
	Rows                       []compareRow
}

type compareRow struct {
	Dataset, Model, A, B, Delta, Bound, Verdict, Class string
}

func newCompareView(d *runs.Diff) *compareView {
	cv := &compareView{A: d.A, B: d.B, SpreadRule: d.SpreadRule,
		Changed: d.Stages.Changed, Same: d.Stages.Same, OnlyA: d.Stages.OnlyA, OnlyB: d.Stages.OnlyB, Notes: d.Notes}
	for _, f := range d.Provenance.Changed {
		cv.Provenance = append(cv.Provenance, runs.FieldChange{Name: f.Name, A: orDash(f.A), B: orDash(f.B)})
	}
	switch {
	case !d.Provenance.RecordedA && !d.Provenance.RecordedB:
		cv.ProvNote = "neither run recorded its provenance"
	case !d.Provenance.RecordedA:
		cv.ProvNote = fmt.Sprintf("run %d did not record its provenance", d.A.ID)
	case !d.Provenance.RecordedB:
		cv.ProvNote = fmt.Sprintf("run %d did not record its provenance", d.B.ID)
	}
	for _, t := range d.Tables {
		// The numbers as runs diff prints them (same decimals, same
		// sample std, "n = 1" for a single run).
		prec := runs.TablePrecision(t)
		stat := func(s *runs.CellStat) string {
			if s == nil {
				return "—"
			}
			return s.Spread().TextN(prec)
		}
		ct := compareTable{Stage: t.Stage, Title: t.Title, Metric: t.Metric, Only: t.Only}
		for _, c := range t.Cells {
			r := compareRow{Dataset: c.Dataset, Model: c.Model, A: stat(c.A), B: stat(c.B), Verdict: c.Verdict, Delta: "—", Bound: "—"}
			if c.Delta != nil {
				r.Delta = table.Signed(*c.Delta, prec)
			}
			if c.Bound != nil {
				r.Bound = table.Num(*c.Bound, prec)
			}
			switch c.Verdict {
			case runs.Beyond:
				r.Class = "off"
			case runs.Within:
				r.Class = "ok"
			}
			ct.Rows = append(ct.Rows, r)
		}
		cv.Tables = append(cv.Tables, ct)
	}
	return cv
}

func dataURL(mime string, data []byte) template.URL {
	return trustedURL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data))
}
