package table

import (
	"bytes"
	"fmt"
	"slices"
)

// SummarySource is one table of a summary: its document and the suffix
// its rows get ("" or " (inductive)"), so that rows of one model from
// different tables share a row when their labels are equal.
type SummarySource struct {
	Doc    *Doc
	Suffix string
}

// Summary renders the compact cross-table summary the README shows: a
// row per model label, a column per dataset (in the order the sources
// first name them), each cell "mean (paper)" to Decimals digits, "—" for
// a cell the paper has no value for, empty where no source has the
// cell. It reads nothing but the documents, so the README's table is
// regenerated from the committed result pages rather than typed.
func Summary(sources []SummarySource) []byte {
	var datasets, rows []string
	cells := map[[2]string]string{}
	for _, src := range sources {
		for _, ds := range src.Doc.Datasets {
			if !slices.Contains(datasets, ds) {
				datasets = append(datasets, ds)
			}
		}
		for _, m := range src.Doc.Models {
			label := m + src.Suffix
			if !slices.Contains(rows, label) {
				rows = append(rows, label)
			}
			for _, ds := range src.Doc.Datasets {
				c := src.Doc.Cell(ds, m)
				if c == nil || c.Mean == nil {
					continue
				}
				paper := "—"
				if c.PaperMean != nil {
					paper = Num(*c.PaperMean, Decimals)
				}
				cells[[2]string{label, ds}] = fmt.Sprintf("%s (%s)", Num(*c.Mean, Decimals), paper)
			}
		}
	}
	var b bytes.Buffer
	b.WriteString("| model |")
	for _, ds := range datasets {
		fmt.Fprintf(&b, " %s |", ds)
	}
	b.WriteString("\n|---|")
	for range datasets {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |", r)
		for _, ds := range datasets {
			if v, ok := cells[[2]string{r, ds}]; ok {
				fmt.Fprintf(&b, " %s |", v)
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}
