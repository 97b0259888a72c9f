package train

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// makeProblem builds a symmetric-normalised stochastic block model with
// `classes` blocks, noisy class-indicator features propagated twice, and a
// random split.
func makeProblem(t testing.TB, seed uint64, n, classes, feats int, pIn, pOut, noise float64, nTrain, nVal int) *Data {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % classes
	}
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			p := pOut
			if labels[i] == labels[j] {
				p = pIn
			}
			if rng.Float64() < p {
				ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, 1, 1)
			}
		}
	}
	adj, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sparse.SymNormalize(adj)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(n, feats, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < feats; k++ {
			x.Set(i, k, noise*rng.NormFloat64())
		}
		x.Set(i, labels[i]%feats, x.At(i, labels[i]%feats)+1)
	}
	xk, err := sparse.PowerDense(context.Background(), s, x, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	perm := rng.Perm(n)
	return &Data{X: xk, S: s, K: 2, Labels: labels,
		Train: perm[:nTrain], Val: perm[nTrain : nTrain+nVal], Test: perm[nTrain+nVal:]}
}

func featureMap(t testing.TB, model Model, seed uint64, D, d0 int, scale float64) hyla.FeatureMap {
	rng := rand.New(rand.NewPCG(seed, 99))
	switch model {
	case ModelHyLa:
		return hyla.NewHyLaMap(hyla.SampleHyLa(rng, D, d0, scale), hyla.ConventionCode)
	case ModelRFF:
		return hyla.NewRFFMap(hyla.SampleRFF(rng, D, d0, scale))
	}
	return nil
}

// currentLoss recomputes the training loss from the parameters.
func currentLoss(t *testing.T, tr *trainer) float64 {
	if err := tr.forward(context.Background()); err != nil {
		t.Fatal(err)
	}
	var (
		l   float64
		err error
	)
	if tr.data.Binary {
		l, err = nn.SigmoidBCE(tr.logTr, tr.yTr, nil)
	} else {
		l, err = nn.SoftmaxCrossEntropy(tr.logTr, tr.yTr, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func fdCompare(t *testing.T, what string, x, analytic []float64, loss func() float64) {
	t.Helper()
	const h = 1e-6
	worst := 0.0
	for i := range x {
		old := x[i]
		x[i] = old + h
		fp := loss()
		x[i] = old - h
		fm := loss()
		x[i] = old
		num := (fp - fm) / (2 * h)
		err := math.Abs(num-analytic[i]) / math.Max(1e-3, math.Abs(num)+math.Abs(analytic[i]))
		worst = math.Max(worst, err)
		if err > 1e-5 {
			t.Fatalf("%s entry %d: analytic %.10g, finite difference %.10g", what, i, analytic[i], num)
		}
	}
	t.Logf("%s: %d entries, worst relative error %.2g", what, len(x), worst)
}

// TestGradients checks the gradient of the whole training loss with
// respect to Z, W and b against central finite differences, for every
// model, both levels and both losses.
func TestGradients(t *testing.T) {
	for _, tc := range []struct {
		name   string
		model  Model
		level  Level
		binary bool
		scale  float64
	}{
		{"hyla-features", ModelHyLa, LevelFeatures, false, 1},
		{"hyla-nodes", ModelHyLa, LevelNodes, false, 1},
		{"rff-features", ModelRFF, LevelFeatures, false, 1},
		{"rff-nodes", ModelRFF, LevelNodes, false, 1},
		{"sgc-features", ModelSGC, LevelFeatures, false, 0},
		{"hyla-features-binary", ModelHyLa, LevelFeatures, true, 1},
		{"hyla-nodes-binary", ModelHyLa, LevelNodes, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			classes := 3
			if tc.binary {
				classes = 2
			}
			data := makeProblem(t, 7, 24, classes, 5, 0.3, 0.05, 0.5, 10, 6)
			data.Binary = tc.binary
			fm := featureMap(t, tc.model, 3, 9, 3, tc.scale)
			cfg := Config{Model: tc.model, Level: tc.level, Epochs: 1, LREmbedding: 0.1, LRClassifier: 0.01, InitScale: 0.4}
			tr, err := newTrainer(data, fm, nil, cfg, rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := tr.forward(ctx); err != nil {
				t.Fatal(err)
			}
			if err := tr.lossGrad(ctx); err != nil {
				t.Fatal(err)
			}
			gw := mat.DenseCopyOf(tr.gwT)
			gb := append([]float64(nil), tr.gb...)
			loss := func() float64 { return currentLoss(t, tr) }
			if tr.z != nil {
				gz := mat.DenseCopyOf(tr.gz)
				fdCompare(t, "Z", tr.z.RawMatrix().Data, gz.RawMatrix().Data, loss)
			}
			fdCompare(t, "W", tr.wT.RawMatrix().Data, gw.RawMatrix().Data, loss)
			fdCompare(t, "b", tr.b, gb, loss)
		})
	}
}

func runOnce(t *testing.T, data *Data, model Model, level Level, workers, epochs int) *Result {
	t.Helper()
	fm := featureMap(t, model, 5, 64, 4, 0.5)
	cfg := Config{Model: model, Level: level, Epochs: epochs, LREmbedding: 0.5, LRClassifier: 0.05, Workers: workers}
	res, err := Run(context.Background(), data, fm, nil, cfg, rand.New(rand.NewPCG(11, 12)))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestDeterminism: the same seed gives bit-identical parameters and curves
// for 1 and 3 workers, on a problem large enough to use the parallel paths.
func TestDeterminism(t *testing.T) {
	data := makeProblem(t, 3, 1300, 4, 16, 0.01, 0.001, 1, 200, 200)
	for _, tc := range []struct {
		model Model
		level Level
	}{{ModelHyLa, LevelNodes}, {ModelHyLa, LevelFeatures}, {ModelRFF, LevelNodes}, {ModelSGC, LevelFeatures}} {
		a := runOnce(t, data, tc.model, tc.level, 1, 5)
		b := runOnce(t, data, tc.model, tc.level, 3, 5)
		if !sameBits(a.W.RawMatrix().Data, b.W.RawMatrix().Data) || !sameBits(a.Bias, b.Bias) {
			t.Fatalf("%s/%s: W or b differ between 1 and 3 workers", tc.model, tc.level)
		}
		if a.Z != nil && !sameBits(a.Z.RawMatrix().Data, b.Z.RawMatrix().Data) {
			t.Fatalf("%s/%s: Z differs between 1 and 3 workers", tc.model, tc.level)
		}
		for i := range a.Curves {
			if a.Curves[i] != b.Curves[i] {
				t.Fatalf("%s/%s: epoch %d: %+v vs %+v", tc.model, tc.level, i, a.Curves[i], b.Curves[i])
			}
		}
		if a.Test != b.Test || a.BestTest != b.BestTest {
			t.Fatalf("%s/%s: test metrics differ", tc.model, tc.level)
		}
	}
}

// TestLearns: on a two-hop-separable block model every model learns well
// beyond chance (1/4) and HyLa at node level recovers the blocks from the
// graph alone.
func TestLearns(t *testing.T) {
	data := makeProblem(t, 21, 400, 4, 8, 0.06, 0.004, 1.5, 40, 80)
	for _, tc := range []struct {
		model  Model
		level  Level
		lrE    float64
		lrC    float64
		scale  float64
		minAcc float64
	}{
		{ModelSGC, LevelFeatures, 0, 0.2, 0, 0.8},
		{ModelHyLa, LevelFeatures, 0.5, 0.05, 0.5, 0.8},
		{ModelRFF, LevelFeatures, 0.5, 0.05, 0.5, 0.7},
		{ModelHyLa, LevelNodes, 1, 0.05, 0.5, 0.8},
	} {
		fm := featureMap(t, tc.model, 8, 200, 8, tc.scale)
		cfg := Config{Model: tc.model, Level: tc.level, Epochs: 100, LREmbedding: tc.lrE, LRClassifier: tc.lrC}
		res, err := Run(context.Background(), data, fm, nil, cfg, rand.New(rand.NewPCG(2, 3)))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s/%s: train %.3f val %.3f test %.3f (best-val epoch %d: test %.3f), loss %.3f→%.3f",
			tc.model, tc.level, res.Train, res.Val, res.Test, res.BestEpoch, res.BestTest, res.Curves[0].Loss, res.Curves[len(res.Curves)-1].Loss)
		if res.Test < tc.minAcc {
			t.Errorf("%s/%s: test accuracy %.3f < %.2f", tc.model, tc.level, res.Test, tc.minAcc)
		}
		if res.Curves[len(res.Curves)-1].Loss >= res.Curves[0].Loss {
			t.Errorf("%s/%s: loss did not decrease", tc.model, tc.level)
		}
	}
}

func TestEarlyStoppingAndBest(t *testing.T) {
	data := makeProblem(t, 4, 200, 3, 6, 0.08, 0.01, 1, 30, 40)
	fm := featureMap(t, ModelHyLa, 1, 50, 4, 0.5)
	var seen []EpochStats
	cfg := Config{Model: ModelHyLa, Level: LevelFeatures, Epochs: 300, LREmbedding: 0.5, LRClassifier: 0.05, Patience: 5,
		Progress: func(s EpochStats) { seen = append(seen, s) }}
	res, err := Run(context.Background(), data, fm, nil, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if !res.StoppedEarly || res.Epochs != res.BestEpoch+6 {
		t.Fatalf("stopped early %v after %d epochs, best epoch %d", res.StoppedEarly, res.Epochs, res.BestEpoch)
	}
	if len(seen) != res.Epochs {
		t.Fatalf("progress saw %d epochs, ran %d", len(seen), res.Epochs)
	}
	for _, s := range res.Curves {
		if s.Val > res.BestVal {
			t.Fatalf("epoch %d val %g above the best %g", s.Epoch, s.Val, res.BestVal)
		}
	}
	if res.Curves[res.BestEpoch].Val != res.BestVal {
		t.Fatal("best val not the curve's value at the best epoch")
	}
	// Re-evaluating the saved best parameters reproduces the best test metric.
	fm2 := featureMap(t, ModelHyLa, 1, 50, 4, 0.5)
	cfg.Epochs, cfg.Patience, cfg.Progress = 1, 0, nil
	tr, err := newTrainer(data, fm2, res.BestZ, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	tr.wT.Copy(res.BestW.T())
	copy(tr.b, res.BestBias)
	if err := tr.forward(context.Background()); err != nil {
		t.Fatal(err)
	}
	if tr.valMet != res.BestVal {
		t.Fatalf("val of the saved best parameters %g, want %g", tr.valMet, res.BestVal)
	}
	test, err := tr.testMetric(context.Background(), tr.yT)
	if err != nil {
		t.Fatal(err)
	}
	if test != res.BestTest {
		t.Fatalf("test of the saved best parameters %g, want %g", test, res.BestTest)
	}
}

func TestNonFiniteAndErrors(t *testing.T) {
	data := makeProblem(t, 5, 60, 3, 4, 0.2, 0.02, 1, 10, 10)
	fm := featureMap(t, ModelRFF, 1, 20, 3, 1)
	cfg := Config{Model: ModelRFF, Level: LevelFeatures, Epochs: 50, LREmbedding: 1e308, LRClassifier: 1e300, Optimizer: "sgd"}
	_, err := Run(context.Background(), data, fm, nil, cfg, rand.New(rand.NewPCG(1, 2)))
	if !errors.Is(err, ErrNonFinite) {
		t.Fatalf("exploding run: error %v, want ErrNonFinite", err)
	}
	t.Logf("exploding run: %v", err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg = Config{Model: ModelSGC, Level: LevelFeatures, Epochs: 5, LRClassifier: 0.1}
	if _, err := Run(ctx, data, nil, nil, cfg, rand.New(rand.NewPCG(1, 2))); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled run: %v", err)
	}
	bad := *data
	bad.Train = []int{0, 1, 1000}
	if _, err := Run(context.Background(), &bad, nil, nil, cfg, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("train index outside the nodes accepted")
	}
	bad = *data
	bad.Labels = append([]int(nil), data.Labels...)
	bad.Labels[data.Train[0]] = -1
	if _, err := Run(context.Background(), &bad, nil, nil, cfg, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("unlabelled training node accepted")
	}
	// X given by its rows' non-zeros: malformed, empty, or beside a dense X.
	n := len(data.Labels)
	for name, rows := range map[string]*sparse.CSR{
		"unsorted":   {Rows: n, Cols: 4, Indptr: append([]int{0, 2}, make([]int, n-1)...), Indices: []int32{3, 1}, Data: []float64{1, 2}},
		"no columns": {Rows: n, Cols: 0, Indptr: make([]int, n+1)},
		"bad indptr": {Rows: n, Cols: 4, Indptr: []int{0, 5}},
	} {
		bad = *data
		bad.X, bad.XRows = nil, rows
		if name == "unsorted" {
			for i := 2; i <= n; i++ {
				bad.XRows.Indptr[i] = 2
			}
		}
		if _, err := Run(context.Background(), &bad, nil, nil, cfg, rand.New(rand.NewPCG(1, 2))); err == nil {
			t.Errorf("X's rows %s accepted", name)
		}
	}
	bad = *data
	bad.XRows = sparse.FromDenseBits(data.X)
	if _, err := Run(context.Background(), &bad, nil, nil, cfg, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("X both dense and as its rows accepted")
	}
	cfg.Model = ModelHyLa
	if _, err := Run(context.Background(), data, nil, nil, cfg, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("hyla without samples accepted")
	}
	cfg.Level = LevelNodes
	bad = *data
	bad.S = nil
	if _, err := Run(context.Background(), &bad, fm, nil, cfg, rand.New(rand.NewPCG(1, 2))); err == nil {
		t.Fatal("node level without S accepted")
	}
}

// TestInductive: with X_train the step uses those rows, evaluation uses X.
func TestInductive(t *testing.T) {
	data := makeProblem(t, 6, 120, 3, 6, 0.1, 0.01, 0.5, 30, 30)
	ind := *data
	ind.XTrain = mat.NewDense(len(data.Train), 6, nil)
	for r, i := range data.Train {
		copy(ind.XTrain.RawRowView(r), data.X.RawRowView(i))
	}
	cfg := Config{Model: ModelSGC, Level: LevelFeatures, Epochs: 10, LRClassifier: 0.1}
	a, err := Run(context.Background(), data, nil, nil, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), &ind, nil, nil, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(a.W.RawMatrix().Data, b.W.RawMatrix().Data) {
		t.Fatal("X_train equal to the gathered rows of X gives different weights")
	}
	ind.XTrain = mat.NewDense(len(data.Train), 6, nil) // all-zero training inputs: W cannot move
	c, err := Run(context.Background(), &ind, nil, nil, cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	init := nn.NewLinear(rand.New(rand.NewPCG(1, 2)), 6, 3)
	if !sameBits(c.W.RawMatrix().Data, init.W.RawMatrix().Data) {
		t.Fatal("zero X_train still changed W: the step did not use X_train")
	}
}

// TestEpochAllocations: an epoch allocates nothing with one worker beyond
// what the feature map itself allocates per call.
func TestEpochAllocations(t *testing.T) {
	data := makeProblem(t, 8, 80, 3, 6, 0.1, 0.01, 1, 20, 20)
	for _, level := range []Level{LevelFeatures, LevelNodes} {
		fm := featureMap(t, ModelHyLa, 1, 16, 3, 0.5)
		zFwd := mat.NewDense(80, 3, nil)
		out := mat.NewDense(80, 16, nil)
		gz := mat.NewDense(80, 3, nil)
		fm.SetWorkers(1)
		fm.Forward(zFwd, out)
		mapAllocs := testing.AllocsPerRun(5, func() { fm.Forward(zFwd, out); fm.Backward(out, gz) })
		cfg := Config{Model: ModelHyLa, Level: level, Epochs: 1, LREmbedding: 0.1, LRClassifier: 0.01, Workers: 1}
		tr, err := newTrainer(data, fm, nil, cfg, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := tr.forward(ctx); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(5, func() {
			if err := tr.epoch(ctx, 0); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: %.0f allocations per epoch (the feature map: %.0f per forward+backward)", level, allocs, mapAllocs)
		if allocs > mapAllocs {
			t.Fatalf("%s: %.0f allocations per epoch, the feature map accounts for %.0f", level, allocs, mapAllocs)
		}
	}
}
