package runreport

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hylaflow/hylaflow/table"
)

// TextWidth is the width the wide layout must fit in; wider tables
// are printed one cell per line.
const TextWidth = 80

// TableView is one evaluate table (its table.json document) as the
// reports show it: the cells' texts and tolerance marks, the datasets and
// models in the table's order (table.Doc). WriteText and the HTML report
// both render it, so the two say the same thing.
type TableView struct {
	Title  string // "Results" when the document has none
	Metric string
	// Protocol is which epoch's model the metric is of (table.Doc.Protocol).
	Protocol string
	// Over says how many runs each mean is over ("over 10 runs", "of 1 run").
	Over     string
	Paper    bool // some cell has a paper value
	Datasets []string
	Models   []string
	Cells    []CellView // in the document's order
	// Notes are the table's remarks (model selection, the best model), printed under it.
	Notes   []string
	caption string
	at      map[[2]string]int
}

// CellView is one (dataset, model) cell of a TableView.
type CellView struct {
	Dataset, Model string
	Runs           int
	Mean           *float64 // nil when the cell has no result
	// Result is "mean ± std" (table.Spread.Text), or why there is none ("no runs").
	Result string
	Paper  string // the paper's "mean ± std", "" when it has none
	// Delta is "Δ" (result − paper) with one decimal and its sign, Mark
	// "✓" (within the tolerance or above) or "✗"; both "" without a paper value.
	Delta, Mark string
}

// ToleranceNote explains the marks of a table with paper values.
const ToleranceNote = table.ToleranceNote

// ParseTable reads an evaluate table's table.json document (table.Parse)
// into the view the reports print.
func ParseTable(doc []byte) (*TableView, error) {
	t, err := table.Parse(doc)
	if err != nil {
		return nil, err
	}
	v := &TableView{Title: t.TitleOr(), Metric: t.Metric, Protocol: t.Protocol, Over: t.Over(), Paper: t.HasPaper(),
		Datasets: t.Datasets, Models: t.Models, Notes: t.Notes, caption: t.Caption(), at: map[[2]string]int{}}
	for i := range t.Cells {
		c := &t.Cells[i]
		v.at[[2]string{c.Dataset, c.Model}] = i
		cv := CellView{Dataset: c.Dataset, Model: c.Model, Runs: c.Runs, Mean: c.Mean, Result: c.Result(), Paper: c.Paper()}
		cv.Delta, cv.Mark = c.Delta()
		v.Cells = append(v.Cells, cv)
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

// Caption is the table's heading: title, metric, the spread convention
// and what the means are over (table.Doc.Caption).
func (v *TableView) Caption() string {
	return v.caption
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
