package runreport

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/runs"
	"github.com/hylaflow/hylaflow/stages"
)

// normalisePage makes a page of testRun independent of when and where it
// ran: the stages in address order, each started 250ms after the
// previous and taking 200ms (0 when cached), a fixed command line and
// provenance, and the images replaced by a few bytes.
func normalisePage(pg *Page) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	pg.Run.Start = base
	pg.Run.Args = []string{"run", "-j", "2", "p.hcl"}
	sort.Slice(pg.Run.Stages, func(i, j int) bool { return pg.Run.Stages[i].Address < pg.Run.Stages[j].Address })
	for i := range pg.Run.Stages {
		s := &pg.Run.Stages[i]
		s.Start = base.Add(time.Duration(i) * 250 * time.Millisecond)
		s.Duration = 200 * time.Millisecond
		if s.Status == "cached" {
			s.Duration = 0
		}
	}
	pg.Run.Duration = time.Duration(len(pg.Run.Stages)) * 250 * time.Millisecond
	pg.Prov = &runs.Provenance{
		Build: runs.Build{Version: "(devel)", Revision: "0123abcd", Time: "2026-01-01T00:00:00Z"},
		Go:    "go1.26", OS: "linux", Arch: "amd64", Kernel: "generic", BLAS: "gonum", Host: "HOST", Cores: 2,
		Pipeline: runs.File{Path: "p.hcl", SHA256: strings.Repeat("ab", 32)},
		VarFiles: []runs.File{}, Vars: map[string]string{"epochs": "3"},
	}
	for i := range pg.Figures {
		pg.Figures[i].Data = []byte("image bytes of " + pg.Figures[i].Name)
	}
}

// The HTML page of the test run, normalised, is testdata/report.html.golden
// (go test ./runreport -update); it holds the run's tables, a timeline bar
// per stage instance, a DAG node per stage block and nothing fetched.
func TestHTMLPage(t *testing.T) {
	c, id := testRun(t)
	pg, err := BuildPage(c, stages.Default(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Problems) != 0 {
		t.Errorf("problems: %v", pg.Problems)
	}
	normalisePage(pg)
	var b bytes.Buffer
	if err := pg.Render(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	golden := filepath.Join("testdata", "report.html.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if html != string(want) {
		t.Errorf("the page differs from %s (go test ./runreport -update, then review the diff)", golden)
	}

	// What the golden file must show, checked independently of it.
	if n := strings.Count(html, `<g class="bar"`); n != len(pg.Run.Stages) || n != 10 {
		t.Errorf("%d timeline bars for %d stage instances, want 10", n, len(pg.Run.Stages))
	}
	blocks := map[string]bool{}
	for _, s := range pg.Run.Stages {
		blocks[blockOf(s.Address)] = true
	}
	if n := strings.Count(html, `<g class="node"`); n != len(blocks) || n != 8 {
		t.Errorf("%d DAG nodes for %d blocks, want 8", n, len(blocks))
	}
	// train.h ×2 feeds both evaluate blocks; sample.h ×2 feeds train.h.
	for _, want := range []string{
		`<g class="node" data-block="train.h" data-status="ran">`, `train v4 ×2`, `2 ran`,
		`<title>train.h → evaluate.each: metrics → runs ×2</title>`, `<title>sample.h → train.h: samples ×2</title>`,
		`<td>0123abcd (2026-01-01T00:00:00Z)</td>`, `<th scope="row">var epochs</th>`,
		`alt="chart.png of evaluate.all"`, `<title>hylaflow run 1: p</title>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The DAG rebuilt from the run's records is graph --collapse's of the pipeline.
	file := filepath.Join(t.TempDir(), "p.hcl")
	if err := os.WriteFile(file, []byte(testPipeline), 0o644); err != nil {
		t.Fatal(err)
	}
	p, diags := pipeline.Load(stages.Default(), file, pipeline.LoadOptions{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	status := map[string]string{}
	for _, s := range pg.Run.Stages {
		status[s.Address] = s.Status
	}
	wantBlocks, wantEdges := p.Collapsed(status)
	sortBlocks := func(bs []*pipeline.CollapsedBlock) string {
		var out []string
		for _, b := range bs {
			out = append(out, strings.Join(b.Label(), "|"))
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	sortEdges := func(es []*pipeline.CollapsedEdge) string {
		var out []string
		for _, e := range es {
			out = append(out, e.From+" → "+e.To+": "+e.Label())
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	if got, want := sortBlocks(pg.Blocks), sortBlocks(wantBlocks); got != want {
		t.Errorf("blocks from the run:\n%s\nfrom the pipeline:\n%s", got, want)
	}
	if got, want := sortEdges(pg.Edges), sortEdges(wantEdges); got != want {
		t.Errorf("edges from the run:\n%s\nfrom the pipeline:\n%s", got, want)
	}
	for _, tb := range pg.Tables {
		for _, cell := range tb.View.Cells {
			if !strings.Contains(html, `<span class="result">`+cell.Result+`</span>`) {
				t.Errorf("%s: the page lacks the cell %s/%s = %s", tb.Address, cell.Dataset, cell.Model, cell.Result)
			}
		}
	}
	// Self-contained: no script, and every src and href is inline or an anchor.
	if strings.Contains(html, "<script") {
		t.Error("the page has a script")
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(html, -1) {
		if !strings.HasPrefix(m[1], "data:") && !strings.HasPrefix(m[1], "#") {
			t.Errorf("the page refers to %q", m[1])
		}
	}
}

// User text (addresses, titles, labels) is escaped wherever it lands.
func TestHTMLEscapes(t *testing.T) {
	evil := `evaluate.x["<script>alert(1)</script>"]`
	pg := &Page{
		Run: cache.RunDetail{RunSummary: cache.RunSummary{ID: 7, Pipeline: `p"><img src=x>`, Status: "ok"},
			Stages: []cache.StageRecord{{Address: evil, Status: "failed", Error: "<b>boom</b>"}}},
		Tables: []PageTable{{Address: evil, View: &TableView{Title: "<i>t</i>", Datasets: []string{"<d>"}, Models: []string{"<m>"},
			Cells: []CellView{{Dataset: "<d>", Model: "<m>", Result: "<r>"}}, at: map[[2]string]int{{"<d>", "<m>"}: 0}}}},
	}
	pg.Blocks, pg.Edges = pipeline.Collapse([]pipeline.GraphInstance{{Address: evil, Block: "evaluate.x", Type: "<type>"}}, nil,
		map[string]string{evil: "failed"})
	var b bytes.Buffer
	if err := pg.Render(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, bad := range []string{"<script>alert", "<img src=x>", "<b>boom", "<i>t</i>", "<d>", "<m>", "<r>", "<type>"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if !strings.Contains(html, "&lt;b&gt;boom&lt;/b&gt;") || !strings.Contains(html, "&lt;type&gt;") {
		t.Error("the escaped texts are missing")
	}
}

// The DAG's layers follow the edges: every edge goes rightwards, and
// blocks of one layer do not overlap.
func TestLayoutDAG(t *testing.T) {
	var insts []pipeline.GraphInstance
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		insts = append(insts, pipeline.GraphInstance{Address: n, Block: n, Type: "t"})
	}
	var edges []pipeline.GraphEdge
	for _, e := range [][3]string{{"a", "c", "x"}, {"b", "c", "y"}, {"c", "d", "z"}, {"a", "d", "w"}, {"e", "e", "self"}} {
		edges = append(edges, pipeline.GraphEdge{From: e[0], To: e[1], Label: e[2]})
	}
	blocks, bedges := pipeline.Collapse(insts, edges, nil)
	dv := layoutDAG(blocks, bedges)
	at := map[string]dagNode{}
	for _, n := range dv.Nodes {
		at[n.Name] = n
	}
	for _, e := range bedges {
		if e.From == e.To {
			continue
		}
		if f, to := at[e.From], at[e.To]; f.X+f.W >= to.X {
			t.Errorf("edge %s → %s does not go right: %v, %v", e.From, e.To, f, to)
		}
	}
	if at["a"].X != at["b"].X || at["c"].X <= at["a"].X || at["d"].X <= at["c"].X {
		t.Errorf("layers: a %v b %v c %v d %v", at["a"].X, at["b"].X, at["c"].X, at["d"].X)
	}
	for _, n := range dv.Nodes {
		for _, m := range dv.Nodes {
			if n.Name < m.Name && n.X == m.X && n.Y < m.Y+m.H && m.Y < n.Y+n.H {
				t.Errorf("%s and %s overlap", n.Name, m.Name)
			}
		}
		if n.X+n.W > dv.Width || n.Y+n.H > dv.Height {
			t.Errorf("%s lies outside the drawing %vx%v", n.Name, dv.Width, dv.Height)
		}
	}
	if len(dv.Edges) != 4 {
		t.Errorf("%d edges drawn, want 4 (the self loop left out)", len(dv.Edges))
	}
}
