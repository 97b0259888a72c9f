package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRFFAdamStep checks the Adam update of RFF's Euclidean embedding
// against Adam's formula written out by hand for the first two steps (β1
// 0.9, β2 0.999, ε 1e−8, PyTorch's bias correction):
//
//	step 1: m = 0.1·g1, v = 0.001·g1², z1 = z0 − lr·(m/0.1)/(√(v/0.001) + ε) = z0 − lr·g1/(|g1| + ε)
//	step 2: m = 0.09·g1 + 0.1·g2, v = 0.000999·g1² + 0.001·g2²,
//	        z2 = z1 − lr/(1−0.9²)·m/(√v/√(1−0.999²) + ε)
//
// where g1, g2 are the loss gradients at z0 and z1 (recomputed with
// lossGrad; the gradient itself is checked by TestGradients). The first
// step moves every coordinate by lr·|g|/(|g|+ε) ≈ lr whatever the
// gradient's size, unlike SGD's lr·g, which the test also checks.
func TestRFFAdamStep(t *testing.T) {
	ctx := context.Background()
	data := makeProblem(t, 7, 24, 3, 5, 0.3, 0.05, 0.5, 10, 6)
	for _, level := range []Level{LevelFeatures, LevelNodes} {
		t.Run(string(level), func(t *testing.T) {
			const lr = 0.01
			newTr := func(opt string) *trainer {
				fm := featureMap(t, ModelRFF, 3, 9, 3, 1)
				cfg := Config{Model: ModelRFF, Level: level, Epochs: 2, LREmbedding: lr, LRClassifier: 0.01,
					InitScale: 0.4, EmbeddingOptimizer: opt, Workers: 1}
				tr, err := newTrainer(data, fm, nil, cfg, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					t.Fatal(err)
				}
				if err := tr.forward(ctx); err != nil {
					t.Fatal(err)
				}
				return tr
			}
			grad := func(tr *trainer) []float64 {
				if err := tr.lossGrad(ctx); err != nil {
					t.Fatal(err)
				}
				return append([]float64(nil), tr.gz.RawMatrix().Data...)
			}
			tr := newTr("adam")
			z0 := append([]float64(nil), tr.z.RawMatrix().Data...)
			g1 := grad(tr)
			if err := tr.epoch(ctx, 0); err != nil {
				t.Fatal(err)
			}
			z1 := append([]float64(nil), tr.z.RawMatrix().Data...)
			minMove := math.Inf(1)
			for i := range z0 {
				want := z0[i] - lr*g1[i]/(math.Abs(g1[i])+1e-8)
				if !closeRel(z1[i], want, 1e-13) {
					t.Fatalf("step 1, entry %d: z = %.17g, want %.17g (z0 %.17g, g %.6g)", i, z1[i], want, z0[i], g1[i])
				}
				if math.Abs(g1[i]) > 1e-6 {
					minMove = math.Min(minMove, math.Abs(z1[i]-z0[i]))
				}
			}
			if minMove < 0.99*lr {
				t.Fatalf("step 1 moved a coordinate with a non-negligible gradient by %g, want ≈ lr = %g", minMove, lr)
			}
			g2 := grad(tr)
			if err := tr.epoch(ctx, 1); err != nil {
				t.Fatal(err)
			}
			z2 := tr.z.RawMatrix().Data
			for i := range z1 {
				m := 0.9*0.1*g1[i] + 0.1*g2[i]
				v := 0.999*0.001*g1[i]*g1[i] + 0.001*g2[i]*g2[i]
				want := z1[i] - lr/(1-0.9*0.9)*m/(math.Sqrt(v)/math.Sqrt(1-0.999*0.999)+1e-8)
				if !closeRel(z2[i], want, 1e-12) {
					t.Fatalf("step 2, entry %d: z = %.17g, want %.17g", i, z2[i], want)
				}
			}

			// The default (auto) and sgd take z0 − lr·g, bit for bit the same.
			for _, opt := range []string{"", "auto", "sgd"} {
				tr := newTr(opt)
				if !sameBits(tr.z.RawMatrix().Data, z0) {
					t.Fatalf("optimizer %q: different initial Z", opt)
				}
				if err := tr.epoch(ctx, 0); err != nil {
					t.Fatal(err)
				}
				for i, z := range tr.z.RawMatrix().Data {
					if want := z0[i] - lr*g1[i]; z != want {
						t.Fatalf("optimizer %q, entry %d: z = %.17g, want z0 − lr·g = %.17g", opt, i, z, want)
					}
				}
			}
		})
	}
}

func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1e-300, math.Max(math.Abs(a), math.Abs(b)))
}

// TestRFFAdamLearnsAndErrors: RFF with Adam on Z learns the block model,
// is bit-identical for 1 and 3 workers, allocates nothing per epoch with
// one worker, and Adam is refused where it has no meaning.
func TestRFFAdamLearnsAndErrors(t *testing.T) {
	data := makeProblem(t, 21, 400, 4, 8, 0.06, 0.004, 1.5, 40, 80)
	run := func(workers int) *Result {
		fm := featureMap(t, ModelRFF, 8, 200, 8, 0.5)
		cfg := Config{Model: ModelRFF, Level: LevelFeatures, Epochs: 100, LREmbedding: 0.01, LRClassifier: 0.05,
			EmbeddingOptimizer: "adam", Workers: workers}
		res, err := Run(context.Background(), data, fm, nil, cfg, rand.New(rand.NewPCG(2, 3)))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a := run(1)
	t.Logf("rff/adam: train %.3f val %.3f test %.3f, loss %.3f→%.3f", a.Train, a.Val, a.Test, a.Curves[0].Loss, a.Curves[len(a.Curves)-1].Loss)
	if a.Test < 0.7 {
		t.Errorf("rff with Adam on Z: test accuracy %.3f < 0.7", a.Test)
	}
	if a.Curves[len(a.Curves)-1].Loss >= a.Curves[0].Loss {
		t.Error("rff with Adam on Z: loss did not decrease")
	}
	b := run(3)
	if !sameBits(a.Z.RawMatrix().Data, b.Z.RawMatrix().Data) || !sameBits(a.W.RawMatrix().Data, b.W.RawMatrix().Data) {
		t.Error("rff with Adam on Z: parameters differ between 1 and 3 workers")
	}

	cora := benchData(2708, 1433, 7)
	fm := featureMap(t, ModelRFF, 1, 100, 16, 0.01)
	tr, err := newTrainer(cora, fm, nil, Config{Model: ModelRFF, Level: LevelFeatures, Epochs: 1, LREmbedding: 0.05,
		LRClassifier: 0.01, EmbeddingOptimizer: "adam", Workers: 1}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tr.forward(ctx); err != nil {
		t.Fatal(err)
	}
	epoch := 0
	if allocs := testing.AllocsPerRun(3, func() {
		if err := tr.epoch(ctx, epoch); err != nil {
			t.Fatal(err)
		}
		epoch++
	}); allocs != 0 {
		t.Errorf("rff with Adam on Z: %v allocations per epoch, want 0", allocs)
	}

	for _, tc := range []struct {
		model Model
		opt   string
	}{{ModelHyLa, "adam"}, {ModelSGC, "adam"}, {ModelRFF, "adagrad"}} {
		var fm = featureMap(t, tc.model, 1, 20, 3, 0.5)
		if tc.model == ModelSGC {
			fm = nil
		}
		cfg := Config{Model: tc.model, Level: LevelFeatures, Epochs: 1, LREmbedding: 0.1, LRClassifier: 0.1, EmbeddingOptimizer: tc.opt}
		if _, err := Run(context.Background(), data, fm, nil, cfg, rand.New(rand.NewPCG(1, 2))); err == nil {
			t.Errorf("%s with embedding optimizer %q accepted", tc.model, tc.opt)
		} else {
			t.Logf("%s/%s: %v", tc.model, tc.opt, err)
		}
	}
}
