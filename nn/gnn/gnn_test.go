package gnn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// communities returns a graph of c communities of size per (dense inside,
// a few edges across) whose noisy features point weakly to the community,
// normalised as GCN wants, split 20/40/rest per community.
func communities(seed uint64, c, per int) *Data {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := c * per
	adj := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		adj.Set(i, i, 1)
		for j := i + 1; j < n; j++ {
			p := 0.005
			if i/per == j/per {
				p = 0.1
			}
			if rng.Float64() < p {
				adj.Set(i, j, 1)
				adj.Set(j, i, 1)
			}
		}
	}
	deg := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			deg[i] += adj.At(i, j)
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if v := adj.At(i, j); v != 0 {
				adj.Set(i, j, v/math.Sqrt(deg[i]*deg[j]))
			}
		}
	}
	f := 2 * c
	x := mat.NewDense(n, f, nil)
	d := &Data{A: sparse.FromDense(adj), Labels: make([]int, n), Classes: c}
	for i := 0; i < n; i++ {
		y := i / per
		d.Labels[i] = y
		for j := 0; j < f; j++ {
			x.Set(i, j, rng.Float64())
		}
		x.Set(i, y, x.At(i, y)+0.5)
		switch k := i % per; {
		case k < 5:
			d.Train = append(d.Train, i)
		case k < 15:
			d.Val = append(d.Val, i)
		default:
			d.Test = append(d.Test, i)
		}
	}
	d.X = sparse.FromDense(x)
	return d
}

func TestModelsLearnCommunities(t *testing.T) {
	cases := []struct {
		name    string
		model   func(d *Data, rng *rand.Rand) (Model, error)
		lr      float64
		minTest float64
	}{
		{"gcn", func(d *Data, rng *rand.Rand) (Model, error) { return NewGCN(d, 16, 0.5, 5e-4, rng) }, 0.01, 0.9},
		{"gat", func(d *Data, rng *rand.Rand) (Model, error) { return NewGAT(d, 4, 4, 1, 0.3, 5e-4, rng) }, 0.01, 0.9},
		{"gat-2-out-heads", func(d *Data, rng *rand.Rand) (Model, error) { return NewGAT(d, 2, 4, 2, 0.3, 5e-4, rng) }, 0.01, 0.9},
	}
	d := communities(1, 3, 40)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var results []*Result
			for _, workers := range []int{1, 3} {
				m, err := tc.model(d, rand.New(rand.NewPCG(5, 0)))
				if err != nil {
					t.Fatal(err)
				}
				res, err := Train(context.Background(), m, d, Config{Epochs: 100, LR: tc.lr, Stopping: "accuracy", Patience: 100, Workers: workers},
					rand.New(rand.NewPCG(6, 0)))
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, res)
			}
			a, b := results[0], results[1]
			if a.Test < tc.minTest {
				t.Errorf("test accuracy %.3f at epoch %d, want ≥ %.2f", a.Test, a.StopEpoch, tc.minTest)
			}
			if a.Curves[0].Loss <= a.Curves[len(a.Curves)-1].Loss {
				t.Errorf("loss did not fall: %v → %v", a.Curves[0].Loss, a.Curves[len(a.Curves)-1].Loss)
			}
			for name, p := range a.FinalParams {
				if !mat.Equal(p, b.FinalParams[name]) {
					t.Errorf("parameter %s differs between 1 and 3 workers", name)
				}
			}
		})
	}
}

func TestStoppingRules(t *testing.T) {
	d := communities(2, 2, 30)
	run := func(stopping string, patience int) *Result {
		m, err := NewGCN(d, 8, 0.5, 5e-4, rand.New(rand.NewPCG(1, 0)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := Train(context.Background(), m, d, Config{Epochs: 300, LR: 0.05, Stopping: stopping, Patience: patience, Workers: 1}, rand.New(rand.NewPCG(2, 0)))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	acc := run("accuracy", 10)
	if !acc.StoppedEarly || acc.Epochs != acc.StopEpoch+11 {
		t.Errorf("accuracy rule: %d epochs, best epoch %d, stopped early %v; want to stop 10 epochs after the best", acc.Epochs, acc.StopEpoch, acc.StoppedEarly)
	}
	for _, c := range acc.Curves {
		if c.Val > acc.Val || (c.Val == acc.Val && c.Epoch < acc.StopEpoch) {
			t.Errorf("epoch %d has validation %.3f, better than or as good and earlier than the kept epoch %d (%.3f)", c.Epoch, c.Val, acc.StopEpoch, acc.Val)
		}
	}
	loss := run("loss", 10)
	if loss.StoppedEarly {
		last := loss.Curves[len(loss.Curves)-1]
		var mean float64
		for _, c := range loss.Curves[len(loss.Curves)-11 : len(loss.Curves)-1] {
			mean += c.ValLoss / 10
		}
		if last.ValLoss <= mean {
			t.Errorf("loss rule stopped at epoch %d with validation loss %v ≤ the window mean %v", last.Epoch, last.ValLoss, mean)
		}
	}
	if loss.StopEpoch != loss.Epochs-1 {
		t.Errorf("loss rule keeps epoch %d of %d, want the last", loss.StopEpoch, loss.Epochs)
	}
}

func TestBadInput(t *testing.T) {
	d := communities(3, 2, 20)
	m, err := NewGCN(d, 4, 0.5, 0, rand.New(rand.NewPCG(1, 0)))
	if err != nil {
		t.Fatal(err)
	}
	bad := *d
	bad.Test = []int{d.A.Rows}
	if _, err := Train(context.Background(), m, &bad, Config{Epochs: 1, LR: 0.01, Stopping: "accuracy"}, rand.New(rand.NewPCG(1, 0))); err == nil {
		t.Error("test index outside the graph: no error")
	}
	if _, err := Train(context.Background(), m, d, Config{Epochs: 1, LR: 0.01, Stopping: "median"}, rand.New(rand.NewPCG(1, 0))); err == nil {
		t.Error("unknown stopping rule: no error")
	}
	if _, err := NewGCN(d, 0, 0.5, 0, rand.New(rand.NewPCG(1, 0))); err == nil {
		t.Error("hidden 0: no error")
	}
	if _, err := NewGAT(d, 1, 1, 1, 1, 0, rand.New(rand.NewPCG(1, 0))); err == nil {
		t.Error("dropout 1: no error")
	}
}
