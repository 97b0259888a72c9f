package stages

import (
	"math"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

// dataAugmentTestGraph is a 9-node graph: node 0 isolated, node 1 the hub
// of a star over 2..8, plus the edges 2–3, 4–5, 4–6, 4–7, 5–6. Degrees by
// hand: 0, 7, 2, 2, 4, 3, 3, 2, 1. Features: row i = (i, −i/2).
func dataAugmentTestGraph(t *testing.T, weights []float64, sparseFeats bool) *bundle.Bundle {
	t.Helper()
	us := []int{1, 1, 1, 1, 1, 1, 1, 2, 4, 4, 4, 5}
	vs := []int{2, 3, 4, 5, 6, 7, 8, 3, 5, 6, 7, 6}
	var ri, ci []int
	var w []float64
	for k := range us {
		wk := 1.0
		if weights != nil {
			wk = weights[k]
		}
		ri, ci, w = append(ri, us[k], vs[k]), append(ci, vs[k], us[k]), append(w, wk, wk)
	}
	adj, err := sparse.FromCOO(9, 9, ri, ci, w)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(9, 2, nil)
	for i := 0; i < 9; i++ {
		x.Set(i, 0, float64(i))
		x.Set(i, 1, -float64(i)/2)
	}
	g := &datasets.Graph{Name: "augtest", Source: "synthetic", Adj: adj, Labels: []int{0, 1, 0, 1, 0, 1, 0, 1, 0}, Classes: 2}
	if sparseFeats {
		var fr, fc []int
		var fv []float64
		for i := 1; i < 9; i++ { // row 0 is all zero: no stored entries
			fr, fc, fv = append(fr, i, i), append(fc, 0, 1), append(fv, float64(i), -float64(i)/2)
		}
		if g.SparseFeatures, err = sparse.FromCOO(9, 2, fr, fc, fv); err != nil {
			t.Fatal(err)
		}
	} else {
		g.DenseFeatures = x
	}
	a, err := dataGraphArtifact(g)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// dataAugmentWant returns the expected features: (i, −i/2), then the
// one-hot of min(deg, maxDeg), then 1 if constant.
func dataAugmentWant(deg []int, maxDeg int, constant bool) *mat.Dense {
	cols := 2 + maxDeg + 1
	if constant {
		cols++
	}
	y := mat.NewDense(len(deg), cols, nil)
	for i, d := range deg {
		y.Set(i, 0, float64(i))
		y.Set(i, 1, -float64(i)/2)
		y.Set(i, 2+min(d, maxDeg), 1)
		if constant {
			y.Set(i, cols-1, 1)
		}
	}
	return y
}

func dataAugmentFeatures(t *testing.T, g *bundle.Bundle) *mat.Dense {
	t.Helper()
	x, err := dataDenseFeatures(g)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestDataAugment(t *testing.T) {
	handDeg := []int{0, 7, 2, 2, 4, 3, 3, 2, 1}
	// Edge 2–3 weighs 2.5: nodes 2 and 3 have degree 1 + 2.5 = 3.5 → 3
	// (truncated as numpy's astype(int)); 4–5 weighs 0.4: node 4 has
	// 1 + 0.4 + 1 + 1 = 3.4 → 3, node 5 has 1 + 0.4 + 1 = 2.4 → 2.
	weighted := []float64{1, 1, 1, 1, 1, 1, 1, 2.5, 0.4, 1, 1, 1}
	weightedDeg := []int{0, 7, 3, 3, 3, 2, 3, 2, 1}
	for _, tc := range []struct {
		name      string
		weights   []float64
		sparse    bool
		normalize bool
		maxDeg    int
		constant  bool
		deg       []int
	}{
		{"hgcn dense", nil, false, false, 5, true, handDeg},
		{"hgcn sparse", nil, true, false, 5, true, handDeg},
		{"after normalize", nil, false, true, 5, true, handDeg},
		{"cap 2 no constant", nil, false, false, 2, false, handDeg},
		{"cap 0", nil, true, false, 0, true, handDeg},
		{"weighted", weighted, false, false, 5, true, weightedDeg},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := dataAugmentTestGraph(t, tc.weights, tc.sparse)
			if tc.normalize {
				g = dataRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {g}}, 1)["graph"]
			}
			out, err := learnRunErr("augment", map[string]any{"max_degree": tc.maxDeg, "constant": tc.constant},
				map[string][]*bundle.Bundle{"graph": {g}}, 0, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			a := out["graph"]
			got := dataAugmentFeatures(t, a)
			want := dataAugmentWant(tc.deg, tc.maxDeg, tc.constant)
			if !mat.Equal(got, want) {
				t.Fatalf("features\n%v\nwant\n%v", mat.Formatted(got), mat.Formatted(want))
			}
			if _, isSparse := func() (any, bool) { v, _ := a.Member(schema.MemberFeatures); _, ok := v.(*sparse.CSR); return v, ok }(); isSparse != tc.sparse {
				t.Errorf("sparse output %v, want %v (the input's kind)", isSparse, tc.sparse)
			}
			// Everything else passes through unchanged.
			for _, name := range g.Names() {
				if name == schema.MemberFeatures {
					continue
				}
				v1, _ := g.Member(name)
				v2, ok := a.Member(name)
				if !ok {
					t.Fatalf("member %s dropped", name)
				}
				switch m := v1.(type) {
				case *sparse.CSR:
					if v2.(*sparse.CSR) != m {
						t.Errorf("member %s changed", name)
					}
				case []int:
					if len(v2.([]int)) != len(m) {
						t.Errorf("member %s changed", name)
					}
				}
			}
			info, err := dataInfo(a)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{true: "sym_self_loops", false: "none"}[tc.normalize]; info.Normalization != want {
				t.Errorf("normalization %q, want %q", info.Normalization, want)
			}
		})
	}
}

// dataAugmentWithout copies a graph artifact without one member.
func dataAugmentWithout(t *testing.T, a *bundle.Bundle, drop string) *bundle.Bundle {
	t.Helper()
	out := bundle.New(schema.KindGraph)
	for _, n := range a.Names() {
		if n == drop {
			continue
		}
		v, _ := a.Member(n)
		switch m := v.(type) {
		case *mat.Dense:
			out.SetDense(n, m)
		case []int:
			out.SetInts(n, m)
		case *sparse.CSR:
			out.SetSparse(n, m)
		default:
			if err := out.SetJSON(n, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

func TestDataAugmentErrors(t *testing.T) {
	run := func(g *bundle.Bundle, params map[string]any) error {
		_, err := learnRunErr("augment", params, map[string][]*bundle.Bundle{"graph": {g}}, 0, 1, nil)
		return err
	}
	expect := func(name string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one mentioning %q", name, err, want)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
	good := dataAugmentTestGraph(t, nil, false)
	expect("negative max_degree", run(good, map[string]any{"max_degree": -1}), "max_degree = -1")

	nofeat := dataAugmentWithout(t, good, schema.MemberFeatures)
	expect("no features", run(nofeat, nil), "no node features")

	short := dataCopy(good, schema.KindGraph)
	short.SetDense(schema.MemberFeatures, mat.NewDense(8, 2, nil))
	expect("rows mismatch", run(short, nil), "8 rows for 9 nodes")

	shortSparse := dataCopy(good, schema.KindGraph)
	shortSparse.SetSparse(schema.MemberFeatures, &sparse.CSR{Rows: 3, Cols: 2, Indptr: []int{0, 0, 0, 0}})
	expect("sparse rows mismatch", run(shortSparse, nil), "3 rows for 9 nodes")

	for _, w := range []float64{-1, math.NaN(), math.Inf(1)} {
		weights := []float64{1, 1, 1, 1, 1, 1, 1, w, 1, 1, 1, 1}
		expect("bad weight", run(dataAugmentTestGraph(t, weights, false), nil), "adjacency entry (2, 3)")
	}

	normed := dataRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {good}}, 1)["graph"]
	noRaw := dataAugmentWithout(t, normed, dataMemberAdjRaw)
	expect("normalised without adj_raw", run(noRaw, nil), "no raw adjacency")

	badFeat := dataCopy(good, schema.KindGraph)
	badFeat.SetFloats(schema.MemberFeatures, []float64{1, 2})
	expect("features of the wrong kind", run(badFeat, nil), "want a dense or sparse matrix")
}

// TestDataAugmentAirport: on the real Airport graph the degree one-hot
// counts match those computed independently from airport.p with Python's
// pickle module (networkx adjacency, the one self loop included): degree
// 0: 4, 1: 713, 2: 635, 3: 386, 4: 217, ≥ 5: 1233 nodes.
func TestDataAugmentAirport(t *testing.T) {
	root := learnDataRoot(t)
	g := dataRun(t, "dataset", map[string]any{"source": "hgcn", "name": "airport", "root": root}, nil, 2)["graph"]
	g = dataRun(t, "normalize", map[string]any{"features": "row"}, map[string][]*bundle.Bundle{"graph": {g}}, 2)["graph"]
	out, err := learnRunErr("augment", nil, map[string][]*bundle.Bundle{"graph": {g}}, 0, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := dataAugmentFeatures(t, out["graph"])
	r, c := x.Dims()
	if r != 3188 || c != 4+6+1 {
		t.Fatalf("augmented Airport features %d×%d, want 3188×11", r, c)
	}
	counts := make([]int, 6)
	for i := 0; i < r; i++ {
		row := x.RawRowView(i)
		if s := row[0] + row[1] + row[2] + row[3]; math.Abs(s-1) > 1e-12 && s != 0 {
			t.Fatalf("row %d: the first 4 (row-normalised) features sum to %v", i, s)
		}
		ones := 0
		for k := 0; k < 6; k++ {
			if row[4+k] == 1 {
				counts[k]++
				ones++
			} else if row[4+k] != 0 {
				t.Fatalf("row %d: one-hot entry %d is %v", i, k, row[4+k])
			}
		}
		if ones != 1 || row[10] != 1 {
			t.Fatalf("row %d: %d one-hot entries, constant %v", i, ones, row[10])
		}
	}
	if want := []int{4, 713, 635, 386, 217, 1233}; !slicesEqualInts(counts, want) {
		t.Fatalf("degree one-hot counts %v, want %v", counts, want)
	}
}

func slicesEqualInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
