package stages

import (
	"testing"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// gnnMemCase is one measured stage run: its graph input as the runner
// describes it (stored bytes and array shapes of table1's graphs) and the
// peak RSS of `hylaflow run --force` on it with every input cached
// (docs/performance.md, "Baselines").
type gnnMemCase struct {
	stage   string
	bytes   int64
	n, nnzA int
	x       []int // feature shape
	nnzX    int   // stored feature entries (0: dense features)
	peakMiB int64
}

func (c gnnMemCase) inputs() map[string][]registry.InputSize {
	sh := map[string][]int{schema.MemberAdj: {c.n, c.n}, schema.MemberAdj + ".data": {c.nnzA}, schema.MemberFeatures: c.x}
	if c.nnzX > 0 {
		sh[schema.MemberFeatures+".data"] = []int{c.nnzX}
	}
	return map[string][]registry.InputSize{"graph": {{Kind: schema.KindGraph, Bytes: c.bytes, Shapes: sh}}}
}

// The estimates of gcn, gat and hyla_gcn for table1's graphs are at least
// the measured peak and at most twice it.
func TestMemGNNAgainstMeasuredPeaks(t *testing.T) {
	var (
		disease  = gnnMemCase{bytes: 113197, n: 1044, nnzA: 3130, x: []int{1044, 1044}, nnzX: 1044}
		airport  = gnnMemCase{bytes: 1293152, n: 3188, nnzA: 40448, x: []int{3188, 11}}
		pubmed   = gnnMemCase{bytes: 14869410, n: 19717, nnzA: 108365, x: []int{19717, 500}, nnzX: 988031}
		citeseer = gnnMemCase{bytes: 1646734, n: 3327, nnzA: 12431, x: []int{3327, 3703}, nnzX: 105165}
		cora     = gnnMemCase{bytes: 981626, n: 2708, nnzA: 13264, x: []int{2708, 1433}, nnzX: 49216}
	)
	peak := func(c gnnMemCase, stage string, mib int64) gnnMemCase { c.stage, c.peakMiB = stage, mib; return c }
	gcn := registry.Values{"hidden": 16}
	gat := registry.Values{"heads": 8, "hidden": 8, "output_heads": 1}
	gat8 := registry.Values{"heads": 8, "hidden": 8, "output_heads": 8}
	hyla := registry.Values{"hidden": 16, "level": "features"}
	for _, tc := range []struct {
		c    gnnMemCase
		est  func(registry.Values, map[string][]registry.InputSize) int64
		vals registry.Values
		d    int // HyLa features
	}{
		{peak(disease, "gcn disease", 41), memGCN, gcn, 0},
		{peak(airport, "gcn airport", 53), memGCN, gcn, 0},
		{peak(pubmed, "gcn pubmed", 190), memGCN, gcn, 0},
		{peak(citeseer, "gcn citeseer", 63), memGCN, gcn, 0},
		{peak(cora, "gcn cora", 53), memGCN, gcn, 0},
		{peak(disease, "gat disease", 56), memGAT, gat, 0},
		{peak(airport, "gat airport", 105), memGAT, gat, 0},
		{peak(pubmed, "gat pubmed", 536), memGAT, gat8, 0},
		{peak(citeseer, "gat citeseer", 118), memGAT, gat, 0},
		{peak(cora, "gat cora", 93), memGAT, gat, 0},
		{peak(pubmed, "hyla_gcn pubmed", 210), memHyLaGCN, hyla, 250},
		{peak(cora, "hyla_gcn cora", 89), memHyLaGCN, hyla, 250},
	} {
		in := tc.c.inputs()
		if tc.d > 0 {
			in["samples"] = []registry.InputSize{{Kind: schema.KindSamples, Bytes: 40000, Shapes: map[string][]int{schema.MemberLambda: {tc.d}}}}
		}
		est, peak := tc.est(tc.vals, in), tc.c.peakMiB<<20
		if est < peak || est > 2*peak {
			t.Errorf("%s: estimate %d MiB, measured peak %d MiB: want between 1 and 2 times the peak", tc.c.stage, est>>20, peak>>20)
		}
	}
}

// Without shapes (an input of another format) the estimates fall back on
// the stored size; with them they grow with the graph and the widths.
func TestMemGNNGrows(t *testing.T) {
	c := gnnMemCase{bytes: 1 << 20, n: 1000, nnzA: 5000, x: []int{1000, 100}, nnzX: 10000}
	bigger := c
	bigger.n, bigger.x = 10000, []int{10000, 100}
	noShapes := map[string][]registry.InputSize{"graph": {{Bytes: 1 << 20}}}
	gat := func(heads int) registry.Values {
		return registry.Values{"heads": heads, "hidden": 8, "output_heads": 1}
	}
	if got, want := memGAT(gat(8), noShapes), int64(2<<20)+memBase; got != want {
		t.Errorf("GAT without shapes: %d, want %d", got, want)
	}
	if !(memGAT(gat(8), c.inputs()) < memGAT(gat(8), bigger.inputs()) && memGAT(gat(8), c.inputs()) < memGAT(gat(16), c.inputs())) {
		t.Error("GAT's estimate does not grow with the nodes and the heads")
	}
	if !(memGCN(registry.Values{"hidden": 16}, c.inputs()) < memGCN(registry.Values{"hidden": 64}, c.inputs())) {
		t.Error("GCN's estimate does not grow with the hidden width")
	}
	nodes := registry.Values{"hidden": 16, "level": "nodes"}
	feats := registry.Values{"hidden": 16, "level": "features"}
	in := c.inputs()
	in["samples"] = []registry.InputSize{{Shapes: map[string][]int{schema.MemberLambda: {500}}}}
	if !(memHyLaGCN(feats, in) < memHyLaGCN(nodes, in)) {
		t.Error("HyLa-GCN at level nodes (φ of every node) does not estimate more than at level features")
	}
}
