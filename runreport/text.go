package runreport

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// TextWidth is the width the wide layout must fit in; wider tables
// are printed one cell per line.
const TextWidth = 80

// tableJSON is the part of the evaluate stage's table.json that the text
// view needs (stages/learning_eval.go writes it).
type tableJSON struct {
	Title  string `json:"title"`
	Metric string `json:"metric"`
	Cells  []struct {
		Dataset   string   `json:"dataset"`
		Model     string   `json:"model"`
		Runs      int      `json:"runs"`
		Mean      *float64 `json:"mean"`
		Std       *float64 `json:"std"`
		PaperMean *float64 `json:"paper_mean"`
		PaperStd  *float64 `json:"paper_std"`
		Diff      *float64 `json:"diff"`
		Within    *bool    `json:"within_tolerance"`
		Status    string   `json:"status"`
	} `json:"cells"`
	Notes []string `json:"notes"`
}

// TableView is one evaluate table (its table.json document) as the
// reports show it: the cells' texts and tolerance marks, the datasets and
// models in the order they first appear. WriteText and the HTML report
// both render it, so the two say the same thing.
type TableView struct {
	Title  string // "Results" when the document has none
	Metric string
	// Over says how many runs each mean is over ("over 10 runs", "of 1 run").
	Over     string
	Paper    bool // some cell has a paper value
	Datasets []string
	Models   []string
	Cells    []CellView // in the document's order
	// Notes are the table's remarks (model selection, the best model), printed under it.
	Notes []string
	at    map[[2]string]int
}

// CellView is one (dataset, model) cell of a TableView.
type CellView struct {
	Dataset, Model string
	Runs           int
	Mean           *float64 // nil when the cell has no result
	// Result is "mean ± std", or why there is none ("no runs").
	Result string
	Paper  string // the paper's "mean ± std", "" when it has none
	// Delta is "Δ" (result − paper) with one decimal and its sign, Mark
	// "✓" (within the tolerance or above) or "✗"; both "" without a paper value.
	Delta, Mark string
}

// ToleranceNote explains the marks of a table with paper values.
const ToleranceNote = "Δ = result − paper (Yu & De Sa, ICLR 2023): ✓ within max(1.5, 2·std) or above"

// ParseTable reads an evaluate table's table.json document.
func ParseTable(doc []byte) (*TableView, error) {
	var t tableJSON
	if err := json.Unmarshal(doc, &t); err != nil {
		return nil, fmt.Errorf("table.json: %w", err)
	}
	v := &TableView{Title: t.Title, Metric: t.Metric, Notes: t.Notes, at: map[[2]string]int{}}
	if v.Title == "" {
		v.Title = "Results"
	}
	runs := map[int]bool{}
	pm := func(mean, std *float64) string {
		switch {
		case mean == nil:
			return ""
		case std == nil:
			return fmt.Sprintf("%.1f", *mean)
		}
		return fmt.Sprintf("%.1f ± %.1f", *mean, *std)
	}
	for i, c := range t.Cells {
		if !slices.Contains(v.Datasets, c.Dataset) {
			v.Datasets = append(v.Datasets, c.Dataset)
		}
		if !slices.Contains(v.Models, c.Model) {
			v.Models = append(v.Models, c.Model)
		}
		v.at[[2]string{c.Dataset, c.Model}] = i
		v.Paper = v.Paper || c.PaperMean != nil
		if c.Runs > 0 {
			runs[c.Runs] = true
		}
		cv := CellView{Dataset: c.Dataset, Model: c.Model, Runs: c.Runs, Mean: c.Mean,
			Result: pm(c.Mean, c.Std), Paper: pm(c.PaperMean, c.PaperStd)}
		if c.Mean == nil {
			cv.Result = strings.TrimSuffix(strings.TrimPrefix(c.Status, "missing ("), ")")
		}
		if c.Diff != nil {
			cv.Mark = "✓"
			if c.Within != nil && !*c.Within {
				cv.Mark = "✗"
			}
			cv.Delta = fmt.Sprintf("%+.1f", *c.Diff)
		}
		v.Cells = append(v.Cells, cv)
	}
	v.Over = "over the runs"
	if len(runs) > 0 {
		lo, hi := -1, 0
		for n := range runs {
			if lo < 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
		switch {
		case lo == hi && lo == 1:
			v.Over = "of 1 run"
		case lo == hi:
			v.Over = fmt.Sprintf("over %d runs", lo)
		default:
			v.Over = fmt.Sprintf("over %d–%d runs", lo, hi)
		}
	}
	return v, nil
}

// Cell returns the cell of dataset ds and model m.
func (v *TableView) Cell(ds, m string) (CellView, bool) {
	i, ok := v.at[[2]string{ds, m}]
	if !ok {
		return CellView{}, false
	}
	return v.Cells[i], true
}

// Caption is the table's heading: title, metric and what the means are over.
func (v *TableView) Caption() string {
	return fmt.Sprintf("%s — %s (%%), mean ± std %s", v.Title, v.Metric, v.Over)
}

// WriteText renders one evaluate table (its table.json document) as
// compact Markdown-style text for a terminal: what run prints at its end. The wide layout has a
// row per model and a column per dataset, with a "paper" and a "Δ" row
// under each model when the table compares with the paper; when that is
// wider than TextWidth, the long layout has a row per cell.
func WriteText(w io.Writer, doc []byte) error {
	v, err := ParseTable(doc)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, v.Caption())
	if len(v.Cells) == 0 {
		_, err := fmt.Fprintln(w, "(no cells)")
		return err
	}
	delta := func(c CellView) string {
		if c.Delta == "" {
			return ""
		}
		return c.Delta + " " + c.Mark
	}

	// Wide layout.
	rows := [][]string{append([]string{"model"}, v.Datasets...)}
	for _, m := range v.Models {
		row, prow, drow := []string{m}, []string{"  paper"}, []string{"  Δ"}
		for _, ds := range v.Datasets {
			c, ok := v.Cell(ds, m)
			if !ok {
				row, prow, drow = append(row, ""), append(prow, ""), append(drow, "")
				continue
			}
			row = append(row, c.Result)
			prow = append(prow, c.Paper)
			drow = append(drow, delta(c))
		}
		rows = append(rows, row)
		if v.Paper {
			rows = append(rows, prow, drow)
		}
	}
	if textRowWidth(rows) > TextWidth {
		// Long layout.
		head := []string{"dataset", "model", "runs", "result"}
		if v.Paper {
			head = append(head, "paper", "Δ")
		}
		rows = [][]string{head}
		for _, c := range v.Cells {
			row := []string{c.Dataset, c.Model, fmt.Sprint(c.Runs), c.Result}
			if v.Paper {
				p := c.Paper
				if p == "" {
					p = "—"
				}
				row = append(row, p, delta(c))
			}
			rows = append(rows, row)
		}
	}
	textRows(w, rows)
	if v.Paper {
		fmt.Fprintln(w, ToleranceNote)
	}
	for _, n := range v.Notes {
		fmt.Fprintln(w, "- "+n)
	}
	return nil
}

// textRowWidth is the printed width of the widest row.
func textRowWidth(rows [][]string) int {
	widths := textWidths(rows)
	n := 1
	for _, wd := range widths {
		n += wd + 3
	}
	return n
}

func textWidths(rows [][]string) []int {
	var widths []int
	for _, r := range rows {
		for j, s := range r {
			if j >= len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], utf8.RuneCountInString(s))
		}
	}
	return widths
}

// textRows writes rows as an aligned Markdown table, the first row
// being the header.
func textRows(w io.Writer, rows [][]string) {
	widths := textWidths(rows)
	line := func(r []string) {
		var b strings.Builder
		b.WriteString("|")
		for j, wd := range widths {
			s := ""
			if j < len(r) {
				s = r[j]
			}
			b.WriteString(" " + s + strings.Repeat(" ", wd-utf8.RuneCountInString(s)) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(rows[0])
	var b strings.Builder
	b.WriteString("|")
	for _, wd := range widths {
		b.WriteString(strings.Repeat("-", wd+2) + "|")
	}
	fmt.Fprintln(w, b.String())
	for _, r := range rows[1:] {
		line(r)
	}
}
