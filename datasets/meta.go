package datasets

import (
	"slices"
	"strings"
)

// Metrics a Meta may name: the metric the benchmark's papers report (the
// same strings as package train's).
const (
	MetricAccuracy = "accuracy"
	MetricMicroF1  = "micro_f1"
)

// Meta is how results present a dataset: the evaluate tables, the figures
// and the comparison with the paper read it here (MetaOf) instead of naming
// datasets themselves, so a new dataset or source changes one place. A
// catalogue Entry carries it; a zero field takes its default (MetaOf).
type Meta struct {
	// Display is the name in figure titles and result pages ("Cora");
	// default: the dataset's name.
	Display string
	// Column is the dataset's column in result tables, shared by datasets
	// the paper reports as one (disease_nc → "disease"); default: the name.
	Column string
	// PaperKey is the dataset's name in package paper's tables (the
	// synthetic disease tree is compared with the paper's Disease);
	// default: Column. A key the paper does not have means "no paper value".
	PaperKey string
	// Metric is the metric a training stage reports by default
	// (MetricAccuracy, or MetricMicroF1 for Reddit); default accuracy.
	Metric string
	// Rank is the column's place in result tables, the paper's order
	// (1 first); 0 puts it after the ranked columns, in name order.
	Rank int
}

// MetaOf returns the presentation of dataset name: the Meta of the
// catalogue entry whose Name (or, failing that, whose Column) is name,
// case-insensitive, with its zero fields defaulted. A dataset outside the
// catalogue (a user's graph of the files source) is shown by its own name,
// with accuracy, no paper value and after the paper's columns.
func MetaOf(name string) Meta {
	var m Meta
	found := false
	for _, e := range Catalog() {
		if strings.EqualFold(e.Name, name) {
			m, name, found = e.Meta, e.Name, true
			break
		}
	}
	if !found {
		for _, e := range Catalog() {
			if e.Meta.Column != "" && strings.EqualFold(e.Meta.Column, name) {
				m, name = e.Meta, e.Meta.Column
				break
			}
		}
	}
	if m.Display == "" {
		m.Display = name
	}
	if m.Column == "" {
		m.Column = strings.ToLower(name)
	}
	if m.PaperKey == "" {
		m.PaperKey = m.Column
	}
	if m.Metric == "" {
		m.Metric = MetricAccuracy
	}
	return m
}

// Columns returns the ranked result-table columns in their order (the
// paper's: Disease, Airport, Pubmed, Citeseer, Cora, Reddit, then the text
// corpora), each once.
func Columns() []string {
	type col struct {
		name string
		rank int
	}
	var cols []col
	for _, e := range Catalog() {
		if e.Meta.Rank <= 0 {
			continue
		}
		c := MetaOf(e.Name).Column
		if !slices.ContainsFunc(cols, func(x col) bool { return x.name == c }) {
			cols = append(cols, col{c, e.Meta.Rank})
		}
	}
	slices.SortStableFunc(cols, func(a, b col) int { return a.rank - b.rank })
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.name
	}
	return out
}
