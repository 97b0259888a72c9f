package gnn

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// hylaInit returns rows×d0 uniform in ±scale (HyLa-SGC's initialisation).
func hylaInit(rng *rand.Rand, rows, d0 int, scale float64) *mat.Dense {
	z := mat.NewDense(rows, d0, nil)
	for i, raw := 0, z.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = scale * (2*rng.Float64() - 1)
	}
	return z
}

func newTestHyLaGCN(t *testing.T, d *Data, level string, feats, d0 int, lrZ float64, workers int) (*HyLaGCN, *hyla.HyLaMap) {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 0))
	fm, err := hyla.NewHyLa(hyla.SampleHyLa(rng, feats, d0, 0.5), hyla.ConventionCode)
	if err != nil {
		t.Fatal(err)
	}
	fm.SetWorkers(workers)
	rows := d.X.Cols
	if level == "nodes" {
		rows = d.A.Rows
	}
	m, err := NewHyLaGCN(d, HyLaGCNConfig{Map: fm, Z0: hylaInit(rng, rows, d0, 1e-4), Level: level, LREmbedding: lrZ, Center: true,
		Hidden: 16, Dropout: 0.5, WeightDecay: 5e-4}, rng)
	if err != nil {
		t.Fatal(err)
	}
	return m, fm
}

// TestHyLaGCNLearnsCommunities trains both levels on the community graph:
// the early-stopped model classifies the test nodes, Z moves off its
// initialisation and stays in the ball, and the parameters are
// bit-identical for 1 and 3 workers.
func TestHyLaGCNLearnsCommunities(t *testing.T) {
	d := communities(1, 3, 40)
	for _, level := range []string{"features", "nodes"} {
		t.Run(level, func(t *testing.T) {
			var results []*Result
			var z0 *mat.Dense
			for _, workers := range []int{1, 3} {
				m, _ := newTestHyLaGCN(t, d, level, 64, 4, 0.5, workers)
				z0 = mat.DenseCopyOf(m.Z.Value)
				res, err := Train(context.Background(), m, d, Config{Epochs: 100, LR: 0.01, Stopping: "accuracy", Patience: 100, Workers: workers},
					rand.New(rand.NewPCG(6, 0)))
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, res)
			}
			a, b := results[0], results[1]
			if a.Test < 0.9 {
				t.Errorf("test accuracy %.3f at epoch %d, want ≥ 0.9", a.Test, a.StopEpoch)
			}
			if a.Curves[0].Loss <= a.Curves[len(a.Curves)-1].Loss {
				t.Errorf("loss did not fall: %v → %v", a.Curves[0].Loss, a.Curves[len(a.Curves)-1].Loss)
			}
			z := a.FinalParams["Z"]
			var moved float64
			for i := 0; i < z.RawMatrix().Rows; i++ {
				var sq float64
				for k, v := range z.RawRowView(i) {
					moved = math.Max(moved, math.Abs(v-z0.At(i, k)))
					sq += v * v
				}
				if sq >= 1 {
					t.Errorf("row %d of Z left the ball (norm² %v)", i, sq)
				}
			}
			if moved < 1e-3 {
				t.Errorf("Z moved at most %g from its initialisation: RSGD did not update it", moved)
			}
			for _, name := range []string{"Z", "W1", "W2"} {
				if !mat.Equal(a.FinalParams[name], b.FinalParams[name]) {
					t.Errorf("parameter %s differs between 1 and 3 workers", name)
				}
			}
		})
	}
}

// TestHyLaGCNFrozenEmbedding: with learning rate 0 for Z, Z keeps its
// initial value exactly (the GCN alone trains on fixed HyLa features).
func TestHyLaGCNFrozenEmbedding(t *testing.T) {
	d := communities(2, 2, 30)
	m, _ := newTestHyLaGCN(t, d, "features", 32, 3, 0, 1)
	z0 := mat.DenseCopyOf(m.Z.Value)
	if _, err := Train(context.Background(), m, d, Config{Epochs: 20, LR: 0.01, Stopping: "accuracy", Patience: 100, Workers: 1},
		rand.New(rand.NewPCG(6, 0))); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(m.Z.Value, z0) {
		t.Error("Z changed with lr_embedding = 0")
	}
}

// TestHyLaGCNGradient checks the whole model's training loss (dropout
// masks fixed by reseeding) against central finite differences in every
// entry of Z, W1 and W2, at both levels.
func TestHyLaGCNGradient(t *testing.T) {
	d := communities(3, 2, 6)
	for _, level := range []string{"features", "nodes"} {
		m, _ := newTestHyLaGCN(t, d, level, 6, 3, 0.1, 1)
		// Move Z off the origin so every term of Φ's gradient matters.
		z := m.Z.Value
		r := rand.New(rand.NewPCG(8, 0))
		for i, raw := 0, z.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = 0.4 * (r.Float64() - 0.5)
		}
		ps := m.Params()
		loss := func(tp *autodiff.Tape) (*autodiff.Node, []*autodiff.Node) {
			nodes := make([]*autodiff.Node, len(ps))
			for i, p := range ps {
				nodes[i] = tp.Param(p.Value)
			}
			l, err := tp.CrossEntropy(m.Forward(tp, nodes, true, rand.New(rand.NewPCG(9, 0))), d.Train, d.Labels)
			if err != nil {
				t.Fatal(err)
			}
			return l, nodes
		}
		tp := autodiff.New(1)
		l, nodes := loss(tp)
		if err := tp.Backward(l); err != nil {
			t.Fatal(err)
		}
		const h = 1e-6
		checked := 0
		for pi, p := range ps {
			raw := p.Value.RawMatrix().Data
			for k := range raw {
				old := raw[k]
				raw[k] = old + h
				up, _ := loss(autodiff.New(1))
				raw[k] = old - h
				down, _ := loss(autodiff.New(1))
				raw[k] = old
				want := (up.Scalar() - down.Scalar()) / (2 * h)
				var got float64
				if g := nodes[pi].Grad; g != nil {
					got = g.RawMatrix().Data[k]
				}
				if math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
					t.Errorf("%s: %s entry %d: gradient %.9g, finite difference %.9g", level, p.Name, k, got, want)
				}
				checked++
			}
		}
		if checked < 50 {
			t.Fatalf("%s: only %d entries checked", level, checked)
		}
	}
}

func TestHyLaGCNBadConfig(t *testing.T) {
	d := communities(4, 2, 10)
	fm, err := hyla.NewHyLa(hyla.SampleHyLa(rand.New(rand.NewPCG(1, 0)), 8, 2, 1), hyla.ConventionCode)
	if err != nil {
		t.Fatal(err)
	}
	ok := HyLaGCNConfig{Map: fm, Z0: mat.NewDense(d.X.Cols, 2, nil), Level: "features", LREmbedding: 0.1, Hidden: 4, Dropout: 0.5}
	outside := mat.NewDense(d.X.Cols, 2, nil)
	outside.Set(1, 0, 1.5)
	cases := []struct {
		name string
		edit func(c *HyLaGCNConfig)
		want string
	}{
		{"no map", func(c *HyLaGCNConfig) { c.Map = nil }, "without a feature map"},
		{"level", func(c *HyLaGCNConfig) { c.Level = "edges" }, `level "edges"`},
		{"rows", func(c *HyLaGCNConfig) { c.Level = "nodes" }, "initial embedding is 4×2, want 20×2"},
		{"width", func(c *HyLaGCNConfig) { c.Z0 = mat.NewDense(d.X.Cols, 3, nil) }, "want 4×2"},
		{"outside the ball", func(c *HyLaGCNConfig) { c.Z0 = outside }, "row 1 has norm 1.5, outside the Poincaré ball"},
		{"hidden", func(c *HyLaGCNConfig) { c.Hidden = 0 }, "hidden width 0"},
		{"dropout", func(c *HyLaGCNConfig) { c.Dropout = 1 }, "dropout 1"},
		{"lr", func(c *HyLaGCNConfig) { c.LREmbedding = math.Inf(1) }, "embedding learning rate +Inf"},
		{"no embedding", func(c *HyLaGCNConfig) { c.Z0 = nil }, "without an initial embedding"},
	}
	if _, err := NewHyLaGCN(d, ok, rand.New(rand.NewPCG(1, 0))); err != nil {
		t.Fatalf("valid config: %v", err)
	}
	for _, tc := range cases {
		c := ok
		tc.edit(&c)
		_, err := NewHyLaGCN(d, c, rand.New(rand.NewPCG(1, 0)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
