package train

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/hylaflow/hylaflow/nn"
)

// sgcObjective is the L-BFGS objective of SGC with TextSGC's penalty,
// written independently of the trainer: θ = (W row-major F×C, b).
func sgcObjective(data *Data, wd float64, binary bool) (int, int, nn.Objective) {
	_, feats := data.X.Dims()
	classes := 0
	for _, l := range data.Labels {
		classes = max(classes, l+1)
	}
	if binary {
		classes = 1
	}
	x := mat.NewDense(len(data.Train), feats, nil)
	y := make([]int, len(data.Train))
	for r, i := range data.Train {
		x.SetRow(r, data.X.RawRowView(i))
		y[r] = data.Labels[i]
	}
	return feats, classes, func(th, grad []float64) (float64, error) {
		w := mat.NewDense(feats, classes, th[:feats*classes])
		var logits mat.Dense
		logits.Mul(x, w)
		nn.AddBias(&logits, th[feats*classes:])
		g := mat.NewDense(len(y), classes, nil)
		var loss float64
		var err error
		if binary {
			loss, err = nn.SigmoidBCE(&logits, y, g)
		} else {
			loss, err = nn.SoftmaxCrossEntropy(&logits, y, g)
		}
		if err != nil {
			return 0, err
		}
		gw := mat.NewDense(feats, classes, grad[:feats*classes])
		gw.Mul(x.T(), g)
		nn.ColSums(g, grad[feats*classes:])
		for i, v := range th[:feats*classes] {
			loss += 0.5 * wd * v * v
			grad[i] += wd * v
		}
		return loss, nil
	}
}

// TestLBFGSTrainsSGC: optimizer lbfgs runs TextSGC's recipe (L-BFGS steps
// as epochs, ½·wd·‖W‖² on W alone). Its parameters match nn.LBFGS run
// directly on an independently written objective, it reaches that
// objective's minimum, it is deterministic across workers, and it refuses
// models with an embedding.
func TestLBFGSTrainsSGC(t *testing.T) {
	data := makeProblem(t, 8, 300, 3, 10, 0.05, 0.005, 1, 60, 60)
	for _, binary := range []bool{false, true} {
		d := *data
		if binary {
			d.Binary = true
			d.Labels = make([]int, len(data.Labels))
			for i, l := range data.Labels {
				d.Labels[i] = l % 2
			}
		}
		const wd = 1e-2
		cfg := Config{Model: ModelSGC, Level: LevelFeatures, Epochs: 3, LRClassifier: 1, Optimizer: "lbfgs", WeightDecay: wd, Workers: 1}
		res, err := Run(context.Background(), &d, nil, nil, cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		// The same start (PyTorch's nn.Linear init from the same stream),
		// then nn.LBFGS on the reference objective.
		feats, classes, obj := sgcObjective(&d, wd, binary)
		lin := nn.NewLinear(rand.New(rand.NewPCG(1, 2)), feats, classes)
		th := append(append([]float64(nil), lin.W.RawMatrix().Data...), lin.Bias...)
		o := nn.NewLBFGS(1, len(th))
		for e := 0; e < 3; e++ {
			loss, err := o.Step(th, obj)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Curves[e].Loss; math.Abs(got-loss) > 1e-9*(1+math.Abs(loss)) {
				t.Fatalf("binary %v: epoch %d loss %v, reference %v", binary, e, got, loss)
			}
		}
		if diff := floats.Distance(res.W.RawMatrix().Data, th[:feats*classes], math.Inf(1)); diff > 1e-7 {
			t.Fatalf("binary %v: W differs from the reference L-BFGS by %g", binary, diff)
		}
		if diff := floats.Distance(res.Bias, th[feats*classes:], math.Inf(1)); diff > 1e-7 {
			t.Fatalf("binary %v: b differs from the reference L-BFGS by %g", binary, diff)
		}
		// Enough epochs reach the minimum of the penalised loss.
		cfg.Epochs = 40
		res, err = Run(context.Background(), &d, nil, nil, cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		th = append(append([]float64(nil), res.W.RawMatrix().Data...), res.Bias...)
		g := make([]float64, len(th))
		if _, err := obj(th, g); err != nil {
			t.Fatal(err)
		}
		if gmax := floats.Norm(g, math.Inf(1)); gmax > 1e-5 {
			t.Fatalf("binary %v: ‖∇‖∞ = %g after 40 L-BFGS epochs", binary, gmax)
		}
		if !binary && res.Test < 0.6 {
			t.Fatalf("test accuracy %v", res.Test)
		}
	}
	// Workers do not change the result.
	big := makeProblem(t, 3, 1300, 4, 16, 0.01, 0.001, 1, 700, 200)
	var runs [2]*Result
	for i, w := range []int{1, 3} {
		cfg := Config{Model: ModelSGC, Level: LevelFeatures, Epochs: 2, LRClassifier: 1, Optimizer: "lbfgs", WeightDecay: 1e-3, Workers: w}
		r, err := Run(context.Background(), big, nil, nil, cfg, rand.New(rand.NewPCG(4, 4)))
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = r
	}
	if !sameBits(runs[0].W.RawMatrix().Data, runs[1].W.RawMatrix().Data) || !sameBits(runs[0].Bias, runs[1].Bias) {
		t.Fatal("lbfgs: W or b differ between 1 and 3 workers")
	}
	fm := featureMap(t, ModelHyLa, 1, 16, 2, 0.5)
	_, err := Run(context.Background(), data, fm, nil, Config{Model: ModelHyLa, Level: LevelFeatures, Epochs: 1, Optimizer: "lbfgs"}, rand.New(rand.NewPCG(1, 1)))
	if err == nil || !strings.Contains(err.Error(), "lbfgs") {
		t.Fatalf("hyla with lbfgs: error %v", err)
	}
}
