// Package paper holds the published numbers of "Random Laplacian Features
// for Learning with Hyperbolic Space" (Yu & De Sa, ICLR 2023) and the
// hyper-parameters of the paper's appendix and of the official code's
// nc/hyper_parameters_16d.json, so reports can put a reproduced value beside
// the paper's and pipelines can select either set of hyper-parameters.
//
// Every number here is transcribed from the paper source
// (shared/paper/hyla-iclr2023.tex: Table 1 "table:nc-base", Table 2
// "table:tc-base", Table 6 "table:timing", appendix tables
// "table:nc-hyperparameters" and "table:tc-hyperparameters") or, for the
// JSON values, from the project's DESIGN notes. Nothing here is ever written
// into a result cell; reports use it for the "paper" column only.
package paper

import "fmt"

// Result is one published cell: mean ± std over the paper's runs (Std is
// NaN-free: 0 when the paper gives no std, with HasStd false).
type Result struct {
	Table   string // "table1", "table1-reddit", "table2-transductive", "table2-inductive"
	Dataset string // lower-case dataset name as used by the dataset stage
	Model   string // "hyla-sgc", "rff-sgc", "sgc", "gcn", …
	Mean    float64
	Std     float64
	HasStd  bool
	Metric  string // "accuracy" or "micro-f1" (percent)
}

func r(table, dataset, model string, mean, std float64) Result {
	return Result{Table: table, Dataset: dataset, Model: model, Mean: mean, Std: std, HasStd: true, Metric: "accuracy"}
}

// Results lists the paper's Table 1 and Table 2 cells.
var Results = []Result{
	// Table 1: node classification, test accuracy (%), 10 runs.
	r("table1", "disease", "gcn", 69.7, 0.4), r("table1", "airport", "gcn", 81.4, 0.6), r("table1", "pubmed", "gcn", 78.1, 0.2), r("table1", "citeseer", "gcn", 70.5, 0.8), r("table1", "cora", "gcn", 81.3, 0.3),
	r("table1", "disease", "sgc", 69.5, 0.2), r("table1", "airport", "sgc", 80.6, 0.1), r("table1", "pubmed", "sgc", 78.9, 0.0), r("table1", "citeseer", "sgc", 71.9, 0.1), r("table1", "cora", "sgc", 81.0, 0.0),
	r("table1", "disease", "gat", 70.4, 0.4), r("table1", "airport", "gat", 81.5, 0.3), r("table1", "pubmed", "gat", 79.0, 0.3), r("table1", "citeseer", "gat", 72.5, 0.7), r("table1", "cora", "gat", 83.0, 0.7),
	r("table1", "disease", "hgcn", 74.5, 0.9), r("table1", "airport", "hgcn", 90.6, 0.2), r("table1", "pubmed", "hgcn", 80.3, 0.3), r("table1", "citeseer", "hgcn", 64.0, 0.6), r("table1", "cora", "hgcn", 79.9, 0.2),
	r("table1", "disease", "lgcn", 81.3, 4.0), r("table1", "airport", "lgcn", 57.6, 0.7), r("table1", "pubmed", "lgcn", 77.8, 0.7), r("table1", "citeseer", "lgcn", 65.9, 0.8), r("table1", "cora", "lgcn", 78.0, 0.6),
	r("table1", "disease", "hnn", 41.0, 1.8), r("table1", "airport", "hnn", 80.5, 0.5), r("table1", "pubmed", "hnn", 69.8, 0.4), r("table1", "citeseer", "hnn", 52.0, 1.0), r("table1", "cora", "hnn", 54.6, 0.4),
	r("table1", "disease", "rff-sgc", 83.4, 1.9), r("table1", "airport", "rff-sgc", 94.8, 0.8), r("table1", "pubmed", "rff-sgc", 77.6, 0.1), r("table1", "citeseer", "rff-sgc", 71.3, 0.6), r("table1", "cora", "rff-sgc", 81.6, 0.4),
	r("table1", "disease", "hyla-sgc", 86.8, 2.1), r("table1", "airport", "hyla-sgc", 95.2, 0.5), r("table1", "pubmed", "hyla-sgc", 80.3, 0.9), r("table1", "citeseer", "hyla-sgc", 72.6, 1.0), r("table1", "cora", "hyla-sgc", 82.5, 0.5),
	// Table 1 (right): Reddit, test micro-F1 (%), no std given.
	{Table: "table1-reddit", Dataset: "reddit", Model: "sgc", Mean: 94.9, Metric: "micro-f1"},
	{Table: "table1-reddit", Dataset: "reddit", Model: "rff-sgc", Mean: 93.9, Metric: "micro-f1"},
	{Table: "table1-reddit", Dataset: "reddit", Model: "hyla-sgc", Mean: 94.5, Metric: "micro-f1"},
	// Table 2: text classification, test accuracy (%), 10 runs.
	r("table2-transductive", "r8", "textgcn", 97.1, 0.1), r("table2-transductive", "r52", "textgcn", 93.5, 0.2), r("table2-transductive", "ohsumed", "textgcn", 68.4, 0.6), r("table2-transductive", "mr", "textgcn", 76.7, 0.2),
	r("table2-transductive", "r8", "sgc", 97.2, 0.1), r("table2-transductive", "r52", "sgc", 94.0, 0.2), r("table2-transductive", "ohsumed", "sgc", 68.5, 0.3), r("table2-transductive", "mr", "sgc", 75.9, 0.3),
	r("table2-transductive", "r8", "rff-sgc", 96.5, 0.3), r("table2-transductive", "r52", "rff-sgc", 94.0, 0.5), r("table2-transductive", "ohsumed", "rff-sgc", 67.2, 0.4), r("table2-transductive", "mr", "rff-sgc", 73.1, 0.4),
	r("table2-transductive", "r8", "hyla-sgc", 96.9, 0.4), r("table2-transductive", "r52", "hyla-sgc", 94.1, 0.3), r("table2-transductive", "ohsumed", "hyla-sgc", 67.3, 0.5), r("table2-transductive", "mr", "hyla-sgc", 76.2, 0.3),
	r("table2-inductive", "r8", "textgcn", 95.8, 0.3), r("table2-inductive", "r52", "textgcn", 88.2, 0.7), r("table2-inductive", "ohsumed", "textgcn", 57.7, 0.4), r("table2-inductive", "mr", "textgcn", 74.8, 0.3),
	{Table: "table2-inductive", Dataset: "r8", Model: "lr", Mean: 93.3, Metric: "accuracy"},
	{Table: "table2-inductive", Dataset: "r52", Model: "lr", Mean: 85.6, Metric: "accuracy"},
	{Table: "table2-inductive", Dataset: "ohsumed", Model: "lr", Mean: 56.6, Metric: "accuracy"},
	{Table: "table2-inductive", Dataset: "mr", Model: "lr", Mean: 73.0, Metric: "accuracy"},
	r("table2-inductive", "r8", "hyla-lr", 97.4, 0.2), r("table2-inductive", "r52", "hyla-lr", 93.5, 0.2), r("table2-inductive", "ohsumed", "hyla-lr", 64.9, 0.3), r("table2-inductive", "mr", "hyla-lr", 75.5, 0.3),
	r("table2-inductive", "r8", "rff-lr", 97.0, 0.4), r("table2-inductive", "r52", "rff-lr", 92.2, 0.2), r("table2-inductive", "ohsumed", "rff-lr", 61.6, 0.3), r("table2-inductive", "mr", "rff-lr", 76.0, 0.3),
}

// Lookup returns the paper's cell for (table, dataset, model).
func Lookup(table, dataset, model string) (Result, bool) {
	for _, x := range Results {
		if x.Table == table && x.Dataset == dataset && x.Model == model {
			return x, true
		}
	}
	return Result{}, false
}

// Timing is Table 6: training time on Pubmed (seconds, RTX 2080 Ti GPU).
var Timing = map[string]float64{
	"sgc": 0.37, "gcn": 1.25, "gat": 12.52, "hnn": 2.41, "hgcn": 15.41, "lgcn": 10.93, "hyla-sgc": 3.51,
}

// HyperParams are one dataset's tuned HyLa hyper-parameters.
type HyperParams struct {
	Source   string // "json16d"/"json50d" (official nc/hyper_parameters_16d.json / _50d.json) or "appendix" (the paper's tables)
	Setting  string // "node", "text-transductive", "text-inductive"
	Dataset  string
	Dim      int     // d0
	Features int     // d1 = D
	K        int     // propagation steps
	Scale    float64 // s, std of λ
	LREmbed  float64 // lr1 (RSGD on Z)
	LRHead   float64 // lr2 (Adam on W)
	Epochs   int
}

// Hyper lists the tuned hyper-parameters of every source.
var Hyper = []HyperParams{
	{"json16d", "node", "cora", 16, 100, 2, 0.01, 0.05, 0.01, 100},
	{"json16d", "node", "airport", 16, 1000, 2, 0.01, 0.5, 0.1, 100},
	{"json16d", "node", "disease", 16, 500, 5, 0.1, 0.1, 0.0001, 100},
	{"json16d", "node", "pubmed", 16, 250, 5, 0.01, 0.5, 0.01, 100},
	{"json16d", "node", "citeseer", 16, 500, 5, 0.01, 0.1, 0.001, 100},
	{"json50d", "node", "cora", 50, 250, 2, 0.5, 0.01, 0.01, 100},
	{"json50d", "node", "airport", 50, 100, 2, 0.01, 1.0, 0.01, 100},
	{"json50d", "node", "disease", 50, 500, 5, 0.01, 0.01, 0.0001, 100},
	{"json50d", "node", "pubmed", 50, 500, 10, 0.01, 0.1, 0.01, 100},
	{"json50d", "node", "citeseer", 50, 1000, 5, 0.1, 0.001, 0.001, 100},
	{"appendix", "node", "disease", 16, 100, 5, 1.0, 0.05, 0.0001, 100},
	{"appendix", "node", "airport", 16, 1000, 2, 0.01, 0.5, 0.1, 100},
	{"appendix", "node", "pubmed", 16, 100, 5, 0.1, 0.5, 0.001, 200},
	{"appendix", "node", "citeseer", 16, 500, 5, 1.0, 0.1, 0.001, 100},
	{"appendix", "node", "cora", 16, 100, 2, 1.0, 0.1, 0.01, 100},
	{"appendix", "node", "reddit", 50, 1000, 2, 0.5, 0.1, 0.001, 100},
	{"appendix", "text-transductive", "r8", 50, 500, 2, 0.5, 0.01, 0.0001, 200},
	{"appendix", "text-transductive", "r52", 50, 500, 2, 0.5, 0.1, 0.0001, 200},
	{"appendix", "text-transductive", "ohsumed", 50, 500, 2, 0.5, 0.01, 0.0001, 200},
	{"appendix", "text-transductive", "mr", 30, 500, 2, 0.5, 0.1, 0.0001, 200},
	{"appendix", "text-inductive", "r8", 50, 500, 0, 0.5, 0.001, 0.0001, 200},
	{"appendix", "text-inductive", "r52", 50, 1000, 0, 0.5, 0.008, 0.0001, 200},
	{"appendix", "text-inductive", "ohsumed", 50, 1000, 0, 0.1, 0.001, 0.0001, 200},
	{"appendix", "text-inductive", "mr", 50, 500, 0, 0.5, 0.01, 0.0001, 200},
}

// LookupHyper returns the hyper-parameters of (source, setting, dataset).
func LookupHyper(source, setting, dataset string) (HyperParams, error) {
	for _, h := range Hyper {
		if h.Source == source && h.Setting == setting && h.Dataset == dataset {
			return h, nil
		}
	}
	return HyperParams{}, fmt.Errorf("paper: no %s hyper-parameters for %s (%s)", source, dataset, setting)
}
