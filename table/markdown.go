package table

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// Decimals is the number of decimals of a table's percentages.
const Decimals = 1

// ToleranceNote explains the marks of a table with paper values.
const ToleranceNote = "Δ = result − paper (Yu & De Sa, ICLR 2023): ✓ within max(1.5, 2·std) or above"

// Over says how many runs the table's means are over: "over 10 runs",
// "over 2–10 runs", "of 1 run", or "over the runs" for a table without any.
func (d *Doc) Over() string {
	lo, hi := d.RunCounts()
	switch {
	case lo == 0:
		return "over the runs"
	case lo == hi && lo == 1:
		return "of 1 run"
	case lo == hi:
		return fmt.Sprintf("over %d runs", lo)
	}
	return fmt.Sprintf("over %d–%d runs", lo, hi)
}

// TitleOr returns the table's title, "Results" when it has none.
func (d *Doc) TitleOr() string {
	if d.Title == "" {
		return "Results"
	}
	return d.Title
}

// Caption is the table's one-line heading in the reports: its title, its
// metric and what the cells are: "Quickstart — test accuracy (%), mean ±
// sample std over 3 runs". A title that already names the metric
// (MentionsMetric) is not followed by it again: "Table 1: node
// classification, test accuracy (%) — mean ± sample std over 10 runs".
func (d *Doc) Caption() string {
	if MentionsMetric(d.TitleOr(), d.Metric) {
		return fmt.Sprintf("%s — %s %s", d.TitleOr(), MeanStdNote, d.Over())
	}
	return fmt.Sprintf("%s — %s (%%), %s %s", d.TitleOr(), d.Metric, MeanStdNote, d.Over())
}

// MentionsMetric reports whether title already names metric (a Doc's
// Metric, "test accuracy", "val accuracy", "test micro_f1"), ignoring case
// and "_" against "-" ("test micro-F1"), with val and train also spelt
// validation and training. A metric with its protocol in its name
// ("test_best_val accuracy") is mentioned only as such.
func MentionsMetric(title, metric string) bool {
	norm := func(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "-") }
	t, m := norm(title), norm(strings.TrimSpace(metric))
	if m == "" {
		return false
	}
	forms := []string{m}
	if split, measure, ok := strings.Cut(m, " "); ok {
		switch split {
		case "val":
			forms = append(forms, "validation "+measure)
		case "train":
			forms = append(forms, "training "+measure)
		}
	}
	for _, f := range forms {
		if strings.Contains(t, f) {
			return true
		}
	}
	return false
}

// Result is the text of a cell's result: its spread, or why it has none
// ("no runs").
func (c *Cell) Result() string {
	if s, ok := c.Spread(); ok {
		return s.Text(Decimals)
	}
	if c.Status == StatusMissing {
		return "no runs"
	}
	return c.Status
}

// Paper is the text of the cell's paper value, "" when it has none.
func (c *Cell) Paper() string {
	if s, ok := c.PaperSpread(); ok {
		return s.Text(Decimals)
	}
	return ""
}

// Delta is the cell's Δ with its sign and the tolerance mark ("-2.1 ✗"),
// "" without a paper value.
func (c *Cell) Delta() (delta, mark string) {
	if c.Diff == nil {
		return "", ""
	}
	mark = "✓"
	if c.Within != nil && !*c.Within {
		mark = "✗"
	}
	return Signed(*c.Diff, Decimals), mark
}

// Markdown renders the table.md member: a wide table (a row per model, a
// column per dataset, the paper's value and Δ in each cell when the table
// compares with the paper) and a long one with every number of every cell.
// It reads nothing but d, so a published table.json re-renders its page
// (Page).
func Markdown(d *Doc) []byte {
	paper := d.Paper
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", d.TitleOr())
	fmt.Fprintf(&b, "Metric: %s in percent", d.Metric)
	switch d.Protocol {
	case "":
	case ProtocolMixed:
		b.WriteString(" (mixed protocols: each cell's in the long table)")
	default:
		fmt.Fprintf(&b, " (model of the %s)", d.Protocol)
	}
	fmt.Fprintf(&b, ", %s (n−1) over the runs; n = 1: a single run, which has no std", MeanStdNote)
	if paper {
		b.WriteString("; paper: Yu & De Sa, ICLR 2023; Δ = result − paper; ✓ = within max(1.5, 2 × paper std) of the paper or above")
	}
	b.WriteString(".\n\n")
	b.WriteString("| model |")
	for _, ds := range d.Datasets {
		fmt.Fprintf(&b, " %s |", ds)
	}
	b.WriteString("\n|---|")
	for range d.Datasets {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, m := range d.Models {
		fmt.Fprintf(&b, "| %s |", m)
		for _, ds := range d.Datasets {
			c := d.Cell(ds, m)
			switch {
			case c == nil:
				b.WriteString(" |")
			case c.Mean == nil:
				fmt.Fprintf(&b, " %s |", c.Status)
			default:
				fmt.Fprintf(&b, " %s", c.Result())
				if paper && c.PaperMean != nil {
					delta, mark := c.Delta()
					if delta == "" {
						delta = "—"
					}
					fmt.Fprintf(&b, " (paper %s, Δ %s %s)", Num(*c.PaperMean, Decimals), delta, mark)
				}
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\n- %s", n)
	}
	if len(d.Notes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("\n| dataset | model | runs | result | min | max |")
	if paper {
		b.WriteString(" paper | Δ | status |")
	}
	b.WriteString("\n|---|---|---|---|---|---|")
	if paper {
		b.WriteString("---|---|---|")
	}
	b.WriteString("\n")
	for _, c := range d.Cells {
		res := c.Status
		if s, ok := c.Spread(); ok {
			res = s.Text(Decimals)
		}
		lo, hi := "—", "—"
		if c.Min != nil && c.Max != nil {
			lo, hi = Num(*c.Min, Decimals), Num(*c.Max, Decimals)
		}
		model := c.Model
		if c.Protocol != "" {
			model += " (" + c.Protocol + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s |", c.Dataset, model, c.Runs, res, lo, hi)
		if paper {
			pp := c.Paper()
			if pp == "" {
				pp = "not in paper"
			}
			delta, _ := c.Delta()
			if delta == "" {
				delta = "—"
			}
			fmt.Fprintf(&b, " %s | %s | %s |", pp, delta, c.Status)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}

// CSV renders the table.csv member: a row per cell, every number with four
// decimals, std empty where there is none (fewer than two runs).
func CSV(d *Doc) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', 4, 64)
	}
	_ = w.Write([]string{"dataset", "model", "metric", "runs", "mean", "std", "min", "max", "paper_mean", "paper_std", "diff", "within_tolerance", "status"})
	for _, c := range d.Cells {
		within := ""
		if c.Within != nil {
			within = strconv.FormatBool(*c.Within)
		}
		_ = w.Write([]string{c.Dataset, c.Model, d.Metric, strconv.Itoa(c.Runs), num(c.Mean), num(c.Std), num(c.Min), num(c.Max),
			num(c.PaperMean), num(c.PaperStd), num(c.Diff), within, c.Status})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, fmt.Errorf("table.csv: %w", err)
	}
	return b.Bytes(), nil
}
