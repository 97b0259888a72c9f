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
}

// WriteText renders one evaluate table (its table.json document) as
// compact Markdown-style text for a terminal: what run prints at its end. The wide layout has a
// row per model and a column per dataset, with a "paper" and a "Δ" row
// under each model when the table compares with the paper; when that is
// wider than TextWidth, the long layout has a row per cell.
func WriteText(w io.Writer, doc []byte) error {
	var t tableJSON
	if err := json.Unmarshal(doc, &t); err != nil {
		return fmt.Errorf("table.json: %w", err)
	}
	var datasets, models []string
	type cellKey struct{ ds, m string }
	cells := map[cellKey]int{}
	paper, runs := false, map[int]bool{}
	for i, c := range t.Cells {
		if !slices.Contains(datasets, c.Dataset) {
			datasets = append(datasets, c.Dataset)
		}
		if !slices.Contains(models, c.Model) {
			models = append(models, c.Model)
		}
		cells[cellKey{c.Dataset, c.Model}] = i
		paper = paper || c.PaperMean != nil
		if c.Runs > 0 {
			runs[c.Runs] = true
		}
	}
	over := "over the runs"
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
			over = "of 1 run"
		case lo == hi:
			over = fmt.Sprintf("over %d runs", lo)
		default:
			over = fmt.Sprintf("over %d–%d runs", lo, hi)
		}
	}
	title := t.Title
	if title == "" {
		title = "Results"
	}
	fmt.Fprintf(w, "%s — %s (%%), mean ± std %s\n", title, t.Metric, over)
	if len(t.Cells) == 0 {
		_, err := fmt.Fprintln(w, "(no cells)")
		return err
	}
	pm := func(mean, std *float64) string {
		switch {
		case mean == nil:
			return ""
		case std == nil:
			return fmt.Sprintf("%.1f", *mean)
		}
		return fmt.Sprintf("%.1f ± %.1f", *mean, *std)
	}
	result := func(i int) string {
		c := t.Cells[i]
		if c.Mean == nil {
			return strings.TrimSuffix(strings.TrimPrefix(c.Status, "missing ("), ")")
		}
		return pm(c.Mean, c.Std)
	}
	delta := func(i int) string {
		c := t.Cells[i]
		if c.Diff == nil {
			return ""
		}
		mark := "✓"
		if c.Within != nil && !*c.Within {
			mark = "✗"
		}
		return fmt.Sprintf("%+.1f %s", *c.Diff, mark)
	}

	// Wide layout.
	rows := [][]string{append([]string{"model"}, datasets...)}
	for _, m := range models {
		row, prow, drow := []string{m}, []string{"  paper"}, []string{"  Δ"}
		for _, ds := range datasets {
			i, ok := cells[cellKey{ds, m}]
			if !ok {
				row, prow, drow = append(row, ""), append(prow, ""), append(drow, "")
				continue
			}
			row = append(row, result(i))
			prow = append(prow, pm(t.Cells[i].PaperMean, t.Cells[i].PaperStd))
			drow = append(drow, delta(i))
		}
		rows = append(rows, row)
		if paper {
			rows = append(rows, prow, drow)
		}
	}
	if textRowWidth(rows) > TextWidth {
		// Long layout.
		head := []string{"dataset", "model", "runs", "result"}
		if paper {
			head = append(head, "paper", "Δ")
		}
		rows = [][]string{head}
		for i, c := range t.Cells {
			row := []string{c.Dataset, c.Model, fmt.Sprint(c.Runs), result(i)}
			if paper {
				p := pm(c.PaperMean, c.PaperStd)
				if p == "" {
					p = "—"
				}
				row = append(row, p, delta(i))
			}
			rows = append(rows, row)
		}
	}
	textRows(w, rows)
	if paper {
		fmt.Fprintln(w, "Δ = result − paper (Yu & De Sa, ICLR 2023): ✓ within max(1.5, 2·std) or above")
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
