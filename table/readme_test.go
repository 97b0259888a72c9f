package table

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeSummaries are the README's generated summary tables: each is
// made of committed result pages (in row order, with the suffix of their
// rows) and sits between the line "<!-- summary NAME: generated … -->"
// and readmeSummaryEnd.
var readmeSummaries = []struct {
	name  string
	pages []struct{ path, suffix string }
}{
	{"table1", []struct{ path, suffix string }{
		{"table1/evaluate.table1/table.json", ""},
		{"table1/evaluate.table1_gnn-on/table.json", ""},
		{"table1/evaluate.table1_hyp-on/table.json", ""},
		{"table1/evaluate.table1_hylagcn-on/table.json", ""},
	}},
	{"table2", []struct{ path, suffix string }{
		{"table2/evaluate.transductive-table/table.json", ""},
		{"table2/evaluate.transductive_textgcn-table/table.json", ""},
		{"table2/evaluate.inductive-table/table.json", " (inductive)"},
		{"table2/evaluate.inductive_textgcn-table/table.json", " (inductive)"},
	}},
}

const readmeSummaryEnd = "<!-- end of summary -->\n"

func readmeSummaryBegin(name string) string {
	return "<!-- summary " + name + ": generated from docs/results by `go test ./table -run TestReadmeSummary -update`; do not edit -->\n"
}

// TestReadmeSummary checks that each of the README's summary tables
// ("hylaflow (paper)" per model and dataset) is what Summary makes of the
// committed result pages, so the README never carries a result typed by
// hand; -update rewrites them.
func TestReadmeSummary(t *testing.T) {
	readme := filepath.Join("..", "README.md")
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	changed := false
	for _, sum := range readmeSummaries {
		var sources []SummarySource
		for _, p := range sum.pages {
			path := filepath.Join("..", "docs", "results", filepath.FromSlash(p.path))
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (the pipelines publish it: see docs/reproduction.md)", err)
			}
			d, err := Parse(raw)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			sources = append(sources, SummarySource{Doc: d, Suffix: p.suffix})
		}
		want := Summary(sources)
		begin := readmeSummaryBegin(sum.name)
		i := bytes.Index(text, []byte(begin))
		j := -1
		if i >= 0 {
			j = bytes.Index(text[i:], []byte(readmeSummaryEnd))
		}
		if j < 0 {
			t.Fatalf("README.md has no summary %s (a line %q, the table, a line %q)",
				sum.name, strings.TrimSpace(begin), strings.TrimSpace(readmeSummaryEnd))
		}
		j += i
		got := text[i+len(begin) : j]
		if bytes.Equal(got, want) {
			continue
		}
		if !*update {
			t.Errorf("README.md's summary %s is not what the committed result pages give (go test ./table -run TestReadmeSummary -update rewrites it); they give:\n%s", sum.name, want)
			continue
		}
		var out bytes.Buffer
		out.Write(text[:i+len(begin)])
		out.Write(want)
		out.Write(text[j:])
		text, changed = out.Bytes(), true
	}
	if changed {
		if err := os.WriteFile(readme, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSummary(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	t1 := &Doc{Datasets: []string{"cora", "citeseer"}, Models: []string{"hyla-sgc", "sgc"}, Cells: []Cell{
		{Dataset: "cora", Model: "hyla-sgc", Runs: 10, Mean: f(81.94), PaperMean: f(82.5)},
		{Dataset: "citeseer", Model: "hyla-sgc", Runs: 10, Mean: f(70.05), PaperMean: f(72.6)},
		{Dataset: "cora", Model: "sgc", Runs: 10, Mean: f(80.6)},
		{Dataset: "citeseer", Model: "sgc", Status: StatusMissing},
	}}
	t2 := &Doc{Datasets: []string{"r8"}, Models: []string{"hyla-sgc", "lr"}, Cells: []Cell{
		{Dataset: "r8", Model: "hyla-sgc", Runs: 10, Mean: f(96.84), PaperMean: f(96.9)},
		{Dataset: "r8", Model: "lr", Runs: 10, Mean: f(93.2), PaperMean: f(93.3)},
	}}
	got := string(Summary([]SummarySource{{Doc: t1}, {Doc: t2, Suffix: " (inductive)"}}))
	want := "| model | cora | citeseer | r8 |\n" +
		"|---|---|---|---|\n" +
		"| hyla-sgc | 81.9 (82.5) | 70.0 (72.6) | |\n" +
		"| sgc | 80.6 (—) | | |\n" +
		"| hyla-sgc (inductive) | | | 96.8 (96.9) |\n" +
		"| lr (inductive) | | | 93.2 (93.3) |\n"
	if got != want {
		t.Errorf("Summary:\n%s\nwant:\n%s", got, want)
	}
	same := string(Summary([]SummarySource{{Doc: t1}, {Doc: t2}}))
	if !strings.Contains(same, "| hyla-sgc | 81.9 (82.5) | 70.0 (72.6) | 96.8 (96.9) |\n") {
		t.Errorf("rows of one model label from two tables are not merged:\n%s", same)
	}
}
