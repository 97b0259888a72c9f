package datasets

import (
	"slices"
	"testing"
)

// TestMetaOf: the catalogue's presentation of its datasets, the defaults
// of a dataset outside it, and the paper's column order.
func TestMetaOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Meta
	}{
		{"cora", Meta{Display: "Cora", Column: "cora", PaperKey: "cora", Metric: MetricAccuracy, Rank: 5}},
		{"Cora", Meta{Display: "Cora", Column: "cora", PaperKey: "cora", Metric: MetricAccuracy, Rank: 5}},
		// HGCN's file name; the paper's column is "disease".
		{"disease_nc", Meta{Display: "Disease", Column: "disease", PaperKey: "disease", Metric: MetricAccuracy, Rank: 1}},
		// A table's column finds the entry it stands for.
		{"disease", Meta{Display: "Disease", Column: "disease", PaperKey: "disease", Metric: MetricAccuracy, Rank: 1}},
		{"reddit", Meta{Display: "Reddit", Column: "reddit", PaperKey: "reddit", Metric: MetricMicroF1, Rank: 6}},
		{"synthetic_disease", Meta{Display: "synthetic_disease", Column: "synthetic_disease", PaperKey: "disease", Metric: MetricAccuracy}},
		{"synthetic_sbm", Meta{Display: "synthetic_sbm", Column: "synthetic_sbm", PaperKey: "synthetic_sbm", Metric: MetricAccuracy}},
		// A user's graph (files source): its own name, accuracy, unranked.
		{"MyGraph", Meta{Display: "MyGraph", Column: "mygraph", PaperKey: "mygraph", Metric: MetricAccuracy}},
	} {
		if got := MetaOf(tc.name); got != tc.want {
			t.Errorf("MetaOf(%q) = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	want := []string{"disease", "airport", "pubmed", "citeseer", "cora", "reddit", "r8", "r52", "ohsumed", "mr"}
	if got := Columns(); !slices.Equal(got, want) {
		t.Errorf("Columns() = %v, want the paper's order %v", got, want)
	}
}

// TestMetaOfTestSource: a source registered with catalogue entries (as a
// new benchmark would be) presents its datasets through their Meta alone.
func TestMetaOfTestSource(t *testing.T) {
	undo := RegisterForTest(stubSource{name: "fake-meta"}, Entry{Name: "toy_graph", Source: "fake-meta",
		Meta: Meta{Display: "Toy graph", Metric: MetricMicroF1, Rank: 11}})
	defer undo()
	if got := MetaOf("toy_graph"); got.Display != "Toy graph" || got.Metric != MetricMicroF1 || got.Column != "toy_graph" {
		t.Errorf("MetaOf(toy_graph) = %+v", got)
	}
	if cols := Columns(); cols[len(cols)-1] != "toy_graph" {
		t.Errorf("Columns() = %v, want toy_graph last (rank 11)", cols)
	}
}
