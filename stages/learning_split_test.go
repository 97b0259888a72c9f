package stages

import (
	"context"
	"slices"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// learnSplitCounts counts how often each node occurs in a list.
func learnSplitCounts(v []int) map[int]int {
	c := map[int]int{}
	for _, i := range v {
		c[i]++
	}
	return c
}

func TestLearnHGCNCodeSplit(t *testing.T) {
	// Four classes as Airport: 0 ×6, 1 ×10, 2 ×8, 3 ×4, and two unlabelled.
	var labels []int
	for c, n := range []int{6, 10, 8, 4} {
		for i := 0; i < n; i++ {
			labels = append(labels, c)
		}
	}
	labels = append(labels, -1, -1)
	tests := []struct {
		name         string
		pVal, pTest  float64
		nVal, nTest  int // per list
		wantPos, neg int // list sizes: label != 0, label != 1
	}{
		{"airport", 0.15, 0.15, 3, 3, 22, 18},
		{"disease", 0.10, 0.60, 2, 11, 22, 18},
		{"no val", 0, 0.5, 0, 9, 22, 18},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			train, val, test, err := learnHGCNCodeSplit(labels, tt.pVal, tt.pTest, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(val) != 2*tt.nVal || len(test) != 2*tt.nTest {
				t.Fatalf("val %d, test %d entries; want %d, %d", len(val), len(test), 2*tt.nVal, 2*tt.nTest)
			}
			if got, want := len(train)+len(val)+len(test), tt.wantPos+tt.neg; got != want {
				t.Fatalf("%d entries in all, want |pos|+|neg| = %d", got, want)
			}
			all := learnSplitCounts(slices.Concat(train, val, test))
			for i, l := range labels {
				want := 0
				if l >= 0 && l != 0 {
					want++
				}
				if l >= 0 && l != 1 {
					want++
				}
				if all[i] != want {
					t.Errorf("node %d (label %d) occurs %d times, want %d", i, l, all[i], want)
				}
			}
			// The first half of val and test are positives (label != 0),
			// the second half negatives (label != 1).
			for _, set := range [][]int{val, test} {
				h := len(set) / 2
				for k, i := range set {
					if (k < h && labels[i] == 0) || (k >= h && labels[i] == 1) {
						t.Errorf("entry %d (node %d, label %d) in the wrong half", k, i, labels[i])
					}
				}
			}
		})
	}
	if _, _, _, err := learnHGCNCodeSplit(labels, 0.7, 0.5, 0); err == nil {
		t.Error("proportions summing to more than 1 accepted")
	}
}

// For binary labels the code's rule is the intended one: the same sets as
// datasets.HGCNSplit for every seed.
func TestLearnHGCNCodeSplitBinary(t *testing.T) {
	labels := make([]int, 101)
	for i := range labels {
		labels[i] = (i * 7 % 13) % 2
	}
	for seed := uint64(0); seed < 5; seed++ {
		a1, b1, c1, err1 := learnHGCNCodeSplit(labels, 0.1, 0.6, seed)
		a2, b2, c2, err2 := datasets.HGCNSplit(labels, 0.1, 0.6, seed)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !slices.Equal(a1, a2) || !slices.Equal(b1, b2) || !slices.Equal(c1, c2) {
			t.Errorf("seed %d: code split differs from HGCNSplit on binary labels", seed)
		}
	}
}

// On the real Airport graph the code variant's test entries overlap its
// training entries (the leak behind the paper's Airport numbers); the
// disjoint variant's do not.
func TestLearnHGCNSplitAirport(t *testing.T) {
	root := learnDataRoot(t)
	g := learnRun(t, "dataset", map[string]any{"source": "hgcn", "name": "airport", "root": root}, nil, 1, 2)["graph"]
	for _, tt := range []struct {
		variant    string
		minOverlap int
		maxOverlap int
	}{{"code", 150, 300}, {"disjoint", 0, 0}} {
		sp := learnRun(t, "hgcn_split", map[string]any{"variant": tt.variant, "seed": 1},
			map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["split"]
		train, _ := sp.Ints(schema.MemberTrain)
		test, _ := sp.Ints(schema.MemberTest)
		val, _ := sp.Ints(schema.MemberVal)
		inTrain := learnSplitCounts(train)
		overlap := 0
		for _, i := range test {
			if inTrain[i] > 0 {
				overlap++
			}
		}
		t.Logf("%s: %d train, %d val, %d test entries, %d test entries also in train", tt.variant, len(train), len(val), len(test), overlap)
		// Airport: 521 nodes of class 0, 1443 of class 1 → m = 521 (code:
		// min(2667, 1745) = 1745), 15% each.
		wantVT := map[string]int{"code": 2 * 262, "disjoint": 2 * 78}[tt.variant]
		if len(val) != wantVT || len(test) != wantVT {
			t.Errorf("%s: val %d, test %d entries, want %d each", tt.variant, len(val), len(test), wantVT)
		}
		if overlap < tt.minOverlap || overlap > tt.maxOverlap {
			t.Errorf("%s: %d test entries in train, want %d..%d", tt.variant, overlap, tt.minOverlap, tt.maxOverlap)
		}
	}
}

// learnNodeK reads K from the precompute's record and, for artifacts
// without one, recovers it from S and SK with the probe.
func TestLearnNodeK(t *testing.T) {
	g := learnRun(t, "dataset", map[string]any{"source": "synthetic", "name": "disease", "nodes": 120, "seed": 2}, nil, 1, 2)["graph"]
	g = learnRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["graph"]
	for _, k := range []int{0, 1, 3, 5} {
		feats := learnRun(t, "precompute", map[string]any{"k": k, "level": "nodes"}, map[string][]*bundle.Bundle{"graph": {g}}, 1, 2)["features"]
		s, err := feats.Sparse(schema.MemberS)
		if err != nil {
			t.Fatal(err)
		}
		got, err := learnNodeK(context.Background(), feats, s, -1)
		if err != nil || got != k {
			t.Errorf("K from the record: %d, %v; want %d", got, err, k)
		}
		// The same artifact without its record: the probe finds K.
		old := bundle.New(feats.Kind())
		for _, name := range feats.Names() {
			if name == dataMemberPrecompute {
				continue
			}
			v, _ := feats.Member(name)
			switch v := v.(type) {
			case *sparse.CSR:
				old.SetSparse(name, v)
			}
		}
		got, err = learnNodeK(context.Background(), old, s, -1)
		if err != nil || got != k {
			t.Errorf("K by probe: %d, %v; want %d", got, err, k)
		}
		if got, _ := learnNodeK(context.Background(), feats, s, 7); got != 7 {
			t.Errorf("explicit k = 7 gave %d", got)
		}
	}
}
