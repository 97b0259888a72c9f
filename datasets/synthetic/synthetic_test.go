package synthetic

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestDiseaseIsSeededTreeWithSignal(t *testing.T) {
	g, err := GenerateDisease(DiseaseOptions{Nodes: 3000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if g.Nodes() != 3000 || g.Edges() != 2999 {
		t.Fatalf("%d nodes %d edges, want a tree", g.Nodes(), g.Edges())
	}
	// Connected: a BFS from 0 reaches every node.
	seen := make([]bool, 3000)
	queue := []int{0}
	seen[0] = true
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for p := g.Adj.Indptr[u]; p < g.Adj.Indptr[u+1]; p++ {
			if v := int(g.Adj.Indices[p]); !seen[v] {
				seen[v] = true
				queue = append(queue, v)
			}
		}
	}
	for i, s := range seen {
		if !s {
			t.Fatalf("node %d unreachable", i)
		}
	}
	// Infected fraction near HGCN Disease's 20%, and infected nodes are more susceptible.
	var inf, healthy []float64
	for i, l := range g.Labels {
		if l == 1 {
			inf = append(inf, g.DenseFeatures.At(i, 0))
		} else {
			healthy = append(healthy, g.DenseFeatures.At(i, 0))
		}
	}
	frac := float64(len(inf)) / 3000
	if frac < 0.08 || frac > 0.45 {
		t.Errorf("infected fraction %.3f", frac)
	}
	if stat.Mean(inf, nil) <= stat.Mean(healthy, nil)+0.05 {
		t.Errorf("susceptibility feature does not separate the classes: %.3f vs %.3f", stat.Mean(inf, nil), stat.Mean(healthy, nil))
	}
	h, err := GenerateDisease(DiseaseOptions{Nodes: 3000, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !sparse.Equal(g.Adj, h.Adj) || !mat.Equal(g.DenseFeatures, h.DenseFeatures) {
		t.Fatal("same seed, different graph")
	}
	o, _ := GenerateDisease(DiseaseOptions{Nodes: 3000, Seed: 8})
	if sparse.Equal(g.Adj, o.Adj) {
		t.Fatal("different seeds, same graph")
	}
	if _, err := GenerateDisease(DiseaseOptions{Nodes: 1}); err == nil {
		t.Error("1 node: no error")
	}
}

// TestDiseaseHeredityAndEpidemic checks the two properties the quickstart
// relies on, over several seeds: susceptibility is inherited along the tree
// (the parent–child correlation of the susceptibility column is near
// (6/π)·asin(ρ/2), the correlation of Φ(z) for latent Gaussians of
// correlation ρ = Heredity, times 0.89 for the feature noise (1/12 against
// 1/12 + 0.1²): 0.79 for ρ = 0.9, 0.43 for 0.5, 0 when independent), and the epidemic
// infects a HGCN-Disease-like share of the nodes (disease_nc: 20 %), chiefly
// the susceptible ones.
func TestDiseaseHeredityAndEpidemic(t *testing.T) {
	for _, tc := range []struct {
		name           string
		heredity       float64
		corrLo, corrHi float64
	}{
		{"default", 0, 0.62, 0.88},
		{"weak", 0.5, 0.3, 0.56},
		{"independent", -1, -0.1, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fracs []float64
			for seed := uint64(1); seed <= 8; seed++ {
				g, err := GenerateDisease(DiseaseOptions{Nodes: 3000, Seed: seed, Heredity: tc.heredity})
				if err != nil {
					t.Fatal(err)
				}
				// Node i > 0's parent is its smallest neighbour (parents precede children).
				var child, par []float64
				infected, infSus, healthySus := 0, 0.0, 0.0
				for i := 0; i < g.Nodes(); i++ {
					s := g.DenseFeatures.At(i, 0)
					if i > 0 {
						child = append(child, s)
						par = append(par, g.DenseFeatures.At(int(g.Adj.Indices[g.Adj.Indptr[i]]), 0))
					}
					if g.Labels[i] == 1 {
						infected++
						infSus += s
					} else {
						healthySus += s
					}
				}
				if c := stat.Correlation(child, par, nil); c < tc.corrLo || c > tc.corrHi {
					t.Errorf("seed %d: parent–child susceptibility correlation %.3f, want [%.2f, %.2f]", seed, c, tc.corrLo, tc.corrHi)
				}
				fracs = append(fracs, float64(infected)/3000)
				if mi, mh := infSus/float64(infected), healthySus/float64(3000-infected); mi < mh+0.2 {
					t.Errorf("seed %d: mean susceptibility infected %.3f, healthy %.3f: want the infected clearly more susceptible", seed, mi, mh)
				}
			}
			if m := stat.Mean(fracs, nil); m < 0.12 || m > 0.4 {
				t.Errorf("mean infected fraction over seeds %.3f (%v), want 0.12–0.40 (disease_nc: 0.20)", m, fracs)
			}
		})
	}
}

func TestDiseaseOptionErrors(t *testing.T) {
	for _, tc := range []struct {
		opts DiseaseOptions
		want string
	}{
		{DiseaseOptions{Nodes: 1}, "nodes = 1"},
		{DiseaseOptions{Features: -1}, "features = -1"},
		{DiseaseOptions{Beta: 1.5}, "beta = 1.5, want (0,1]"},
		{DiseaseOptions{Beta: -0.5}, "beta = -0.5"},
		{DiseaseOptions{Nodes: 10, Sources: 11}, "sources = 11"},
		{DiseaseOptions{Noise: math.NaN()}, "noise = NaN"},
		{DiseaseOptions{Heredity: 1}, "heredity = 1, want [0,1)"},
		{DiseaseOptions{Susceptible: 1.5}, "susceptible = 1.5"},
		{DiseaseOptions{Susceptible: -0.1}, "susceptible = -0.1"},
		{DiseaseOptions{Sharpness: -1}, "sharpness = -1"},
	} {
		_, err := GenerateDisease(tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.opts, err, tc.want)
		}
	}
}

func TestSBMDeterministicAcrossWorkers(t *testing.T) {
	opts := SBMOptions{Nodes: 20000, Edges: 200000, Features: 8, Classes: 10, Seed: 3}
	var ref *mat.Dense
	var refAdj *sparse.CSR
	for _, w := range []int{1, 2, 5} {
		o := opts
		o.Workers = w
		g, err := GenerateSBM(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref, refAdj = g.DenseFeatures, g.Adj
			// distinct edges within 0.5% of the target (top-up rounds)
			if e := g.Edges(); e < 199000 || e > 200000*11/10 {
				t.Fatalf("%d distinct edges for a target of 200000", e)
			}
			if e, c := g.Edges(), datasets.CountEdges(g.Adj); e != c || !g.Adj.IsSymmetric() {
				t.Fatalf("EdgeCount %d, counted %d, symmetric %v", e, c, g.Adj.IsSymmetric())
			}
			// homophily: most edges inside a class (p_in = 0.8 plus chance hits)
			in := 0
			for i := 0; i < g.Adj.Rows; i++ {
				for p := g.Adj.Indptr[i]; p < g.Adj.Indptr[i+1]; p++ {
					if g.Labels[i] == g.Labels[g.Adj.Indices[p]] {
						in++
					}
				}
			}
			if f := float64(in) / float64(g.Adj.NNZ()); f < 0.7 || f > 0.9 {
				t.Errorf("within-class edge fraction %.3f", f)
			}
			if len(g.Train)+len(g.Val)+len(g.Test) != 20000 || math.Abs(float64(len(g.Train))/20000-0.66) > 0.001 {
				t.Errorf("split %d/%d/%d", len(g.Train), len(g.Val), len(g.Test))
			}
			continue
		}
		if !sparse.Equal(g.Adj, refAdj) || !mat.Equal(g.DenseFeatures, ref) {
			t.Fatalf("workers=%d changes the graph", w)
		}
	}
}

// BenchmarkRedditScale generates the default Reddit-scale SBM. It needs
// about 2 GB; run it with -bench RedditScale -benchtime 1x.
func BenchmarkRedditScale(b *testing.B) {
	for b.Loop() {
		g, err := GenerateSBM(context.Background(), SBMOptions{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(g.Edges()), "edges")
	}
}

// BenchmarkRedditScalePrecompute is the scale benchmark of the data path:
// generate the Reddit-scale SBM, build S = D^-1/2 (A+I) D^-1/2 and compute
// S²X. Run with -bench RedditScalePrecompute -benchtime 1x (about 4 GB).
func BenchmarkRedditScalePrecompute(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		t0 := time.Now()
		g, err := GenerateSBM(ctx, SBMOptions{Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		s, err := sparse.SymNormalize(g.Adj)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if _, err := sparse.PowerDense(ctx, s, g.DenseFeatures, 2, 0); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		b.ReportMetric(t1.Sub(t0).Seconds(), "generate-s")
		b.ReportMetric(t2.Sub(t1).Seconds(), "normalize-s")
		b.ReportMetric(t3.Sub(t2).Seconds(), "precompute-s")
	}
}
