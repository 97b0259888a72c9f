package stages

import (
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/train"
)

// TestDatasetMetaMatchesPaper: every column of the paper's tables that the
// catalogue ranks has published values under its PaperKey, with the metric
// its Meta names (Reddit's micro-F1), and the metric names are the ones
// package train reports.
func TestDatasetMetaMatchesPaper(t *testing.T) {
	if datasets.MetricAccuracy != train.MetricAccuracy || datasets.MetricMicroF1 != train.MetricMicroF1 {
		t.Fatalf("datasets' metric names %q/%q differ from train's %q/%q",
			datasets.MetricAccuracy, datasets.MetricMicroF1, train.MetricAccuracy, train.MetricMicroF1)
	}
	paperMetric := map[string]string{"accuracy": datasets.MetricAccuracy, "micro-f1": datasets.MetricMicroF1}
	for _, col := range datasets.Columns() {
		m := datasets.MetaOf(col)
		n := 0
		for _, r := range paper.Results {
			if r.Dataset != m.PaperKey {
				continue
			}
			n++
			if paperMetric[r.Metric] != m.Metric {
				t.Errorf("%s: the paper reports %s (%s %s), its Meta says %s", col, r.Metric, r.Table, r.Model, m.Metric)
			}
		}
		if n == 0 {
			t.Errorf("column %s (paper key %q) has no value in package paper", col, m.PaperKey)
		}
	}
}
