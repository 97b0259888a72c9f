// Package train is HyLa's training loop: it learns an embedding Z (on the
// Poincaré ball for HyLa, in Euclidean space for the RFF baseline) jointly
// with a linear classifier on the propagated random features, or a plain
// linear classifier on S^K X for SGC.
//
// Feature level (Z ∈ R^{d×d0}, one point per input feature):
//
//	logits = (S^K X)·(φ(Z)·W) + b
//
// evaluated in that order and only for the rows an epoch needs (the
// training rows for the step, train and validation rows for the per-epoch
// evaluation, test rows at the end), so the n×D matrix (S^K X)·φ(Z) is never
// formed. Inductive runs train on S_train^K X_train and evaluate on S^K X.
//
// Node level (Z ∈ R^{n×d0}, one point per node):
//
//	logits = S^K·(φ(Z)·W) + b
//
// computed as K sparse products with S on the n×C matrix φ(Z)·W; S^K is
// never formed. The official code multiplies the dense S^{K−1}·S by φ(Z),
// which is the same matrix.
//
// Each epoch takes one gradient step on the mean training loss (Adam on W
// and b, Riemannian SGD on Z for HyLa, SGD or Adam on Z for RFF; see
// Config.EmbeddingOptimizer), then evaluates the
// training and validation metrics with the updated parameters, as the
// official code does. The φ(Z) of that evaluation is the one the next step
// differentiates, so each epoch evaluates the feature map once. Buffers are
// allocated up front: an epoch allocates nothing when Workers is 1.
//
// Internally the classifier is stored transposed (Wᵀ is C×D) and so is
// Y = φ(Z)·W (Yᵀ = Wᵀ·φ(Z)ᵀ is C×d): with C a handful of classes, every
// product then runs along the long dimension (dot products of length d or
// D, or axpys of that length) instead of C-long inner loops, which made
// gonum's kernels 5–30× slower per flop. The feature-level products run on
// the vector kernels of internal/vec (AVX-512, AVX2+FMA or portable Go, the
// same bits on each: logits four rows × four classes at a time, Gᵀ·X in
// register tiles; rows.go) and the HyLa map computes Yᵀ and (∂L/∂W)ᵀ inside
// its own passes (hyla.HyLaMap.ForwardLinear, BackwardLinear); the other
// products run as gonum's serial Dgemm on output tiles spread over Workers
// (see gemm). Every entry is a fixed sequence of operations, so results do
// not depend on Workers or on the CPU. A sparse X_train (the inductive text
// features' TF-IDF rows) runs the same operations over its non-zeros only,
// with the dense kernels' bits (sparse_input.go).
package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Model selects what is learned.
type Model string

// The models.
const (
	ModelHyLa Model = "hyla" // Z on the Poincaré ball, HyLa features, RSGD
	ModelRFF  Model = "rff"  // Euclidean Z, random Fourier features, SGD or Adam
	ModelSGC  Model = "sgc"  // no embedding: logits = S^K X·W + b
)

// Level selects what the embedding's points stand for.
type Level string

// The levels.
const (
	LevelFeatures Level = "features" // one point per input feature (Z is d×d0)
	LevelNodes    Level = "nodes"    // one point per node (Z is n×d0)
)

// Metric names.
const (
	MetricAccuracy = "accuracy"
	MetricMicroF1  = "micro_f1"
)

// Data is what a run trains on.
type Data struct {
	// X is S^K X (n×d), the feature-level input; its rows are nodes.
	X *mat.Dense
	// Factored, if set instead of X, is the feature-level input as sparse
	// factors (the transductive text models' min-max scaled rows of S^K;
	// factored.go): X is never formed.
	Factored *FactoredX
	// XRows, if set instead of X, is X as its rows' non-zero entries
	// (columns strictly increasing in each row; any entry whose bits are
	// not +0 may be stored, so −0 and NaN survive): bundle.DenseRows gives
	// it for a stored X that is mostly zeros, such as the inductive text
	// models' TF-IDF rows. The trainer multiplies through the non-zeros
	// when X's training rows are sparse enough (sparse_input.go) and
	// expands X otherwise; either way the results are those of the dense X.
	XRows *sparse.CSR
	// XTrain, if set, is S_train^K X_train (len(Train)×d) for inductive
	// runs: row r belongs to node Train[r]. Validation and test use X.
	XTrain *mat.Dense
	// S is the normalised adjacency (n×n) for node-level runs; K the number
	// of propagation steps.
	S *sparse.CSR
	K int
	// Labels holds one class per node (−1 = unlabelled); Train, Val, Test
	// are node indices.
	Labels           []int
	Train, Val, Test []int
	// Classes is the number of classes (0 = the largest label + 1).
	Classes int
	// Binary trains a single logit with sigmoid + binary cross-entropy
	// (labels 0/1), as the official code does for MR.
	Binary bool
}

// Config are the hyper-parameters of a run.
type Config struct {
	Model Model
	Level Level
	// Epochs is the maximum number of epochs (≥ 1).
	Epochs int
	// LREmbedding is the learning rate of Z (RSGD for HyLa, SGD for RFF);
	// LRClassifier the learning rate of W and b.
	LREmbedding, LRClassifier float64
	// Optimizer of the classifier: "adam" (default, PyTorch's defaults),
	// "sgd", or "lbfgs" (model sgc only: nn.LBFGS, torch.optim.LBFGS's
	// rules at learning rate LRClassifier; one epoch is one PyTorch
	// optimizer.step of up to 20 iterations, as Wu et al.'s TextSGC, which
	// runs 3 such epochs at rate 1).
	Optimizer string
	// EmbeddingOptimizer of Z: "" or "auto" (Riemannian SGD for HyLa, plain
	// SGD for RFF, as the official node-classification code), "sgd" (the
	// same), or "adam" (RFF only: Adam with PyTorch's defaults at
	// LREmbedding, as the official text-classification code trains its
	// Euclidean embedding; Adam has no meaning on the Poincaré ball here).
	EmbeddingOptimizer string
	// WeightDecay is the classifier's L2 weight decay (0 = none, as the
	// official code): for adam and sgd torch's weight_decay on W and b; for
	// lbfgs the penalty ½·WeightDecay·‖W‖² on W alone, as TextSGC adds it to
	// its loss.
	WeightDecay float64
	// Patience stops training after that many epochs without a better
	// validation metric (0 = never stop early, as for the paper's tables).
	Patience int
	// InitScale: Z starts uniform in [−InitScale, InitScale] (0 = 1e−4, the
	// official code's value) unless an initial Z is given.
	InitScale float64
	// Metric is "accuracy" (default) or "micro_f1".
	Metric string
	// Workers bounds the goroutines of the feature map and the row loops (≥ 1;
	// 0 = 1). Results do not depend on it.
	Workers int
	// Progress, if set, receives every epoch's statistics.
	Progress func(EpochStats)
}

// EpochStats are one epoch's numbers: the training loss before the step,
// and the metrics after it.
type EpochStats struct {
	Epoch int     `json:"epoch"`
	Loss  float64 `json:"loss"`
	Train float64 `json:"train"`
	Val   float64 `json:"val"`
}

// Result is the outcome of a run.
type Result struct {
	// The parameters after the last epoch (Z is nil for SGC).
	Z, W *mat.Dense
	Bias []float64
	// The parameters of the epoch with the best validation metric.
	BestZ, BestW *mat.Dense
	BestBias     []float64
	Curves       []EpochStats
	// Metrics after the last epoch.
	Train, Val, Test float64
	// The best-validation epoch and its metrics.
	BestEpoch                    int
	BestTrain, BestVal, BestTest float64
	Epochs                       int  // epochs run
	StoppedEarly                 bool // stopped by Patience
}

// ErrNonFinite is wrapped by the error a run returns when a loss or a
// parameter becomes NaN or infinite.
var ErrNonFinite = errors.New("non-finite value")

// trainer holds a run's parameters and buffers.
type trainer struct {
	cfg     Config
	data    *Data
	fmap    hyla.FeatureMap
	workers int

	in, dim, feats, classes int          // rows of Z, d0, D (or in for SGC), C
	watch                   nn.LossWatch // tells divergence from learning by the loss
	x                       *mat.Dense   // X dense (Data.X, or Data.XRows expanded), when the sparse path is not taken
	xTrain                  *mat.Dense
	trainRows               []int // nil when xTrain is XTrain itself (rows in order)
	// sparse: X_train and X compressed, when X_train is sparse enough
	// (sparse_input.go); nil otherwise.
	sparse *sparseInput
	// fact: the factored input (Data.Factored); nil otherwise.
	fact *factoredInput

	// wT is Wᵀ (C×F), yT is Yᵀ = (φ(Z)·W)ᵀ (C×in; SGC: yT is wT).
	z, phi, wT, yT *mat.Dense
	b              []float64
	// fused: the last forward pass ran the map's kernel fused with the
	// classifier (linearMap), so φ was not stored.
	fused bool
	// gtxPack: per worker, four rows of ∂L/∂logits packed for gtx.
	gtxPack []float64
	// ceParts, ceErrs: per block of training rows, the cross-entropy sum.
	ceParts []float64
	ceErrs  []error

	// Node level: Y and ∂L/∂Y in row-major n×C for the sparse products,
	// propagation buffers (n×C) and Sᵀ.
	st                *sparse.CSR
	y, gy, p0, p1, e0 *mat.Dense

	logTr, logVal, logTest *mat.Dense
	g                      *mat.Dense // ∂L/∂logits on the training rows
	gyT, gwT, gphi, gz     *mat.Dense
	gb                     []float64

	yTr, yVal, yTest []int
	pred             []int
	adamW, adamB     *nn.Adam
	adamZ            *nn.Adam // RFF with EmbeddingOptimizer "adam"
	lbfgs            *nn.LBFGS
	theta            []float64 // lbfgs: W (as Wᵀ) and b in one vector
	bestYT           *mat.Dense
	bestZ, bestWT    *mat.Dense
	bestB            []float64
	prop             *mat.Dense // node level: S^K·Y of the current parameters
	loss             float64
	trainMet, valMet float64
}

// Run trains a model. fmap is the random feature map (nil for SGC; Run
// calls its Release method, if it has one, when it returns); z0, if
// not nil, is the initial embedding (copied; rows projected into the ball for
// HyLa); otherwise Z is drawn from rng, which also initialises the
// classifier like PyTorch's nn.Linear. Run honours ctx between epochs.
func Run(ctx context.Context, data *Data, fmap hyla.FeatureMap, z0 *mat.Dense, cfg Config, rng *rand.Rand) (*Result, error) {
	t, err := newTrainer(data, fmap, z0, cfg, rng)
	if err != nil {
		return nil, err
	}
	if r, ok := fmap.(releaser); ok {
		defer r.Release()
	}
	return t.run(ctx)
}

// releaser is a feature map that can hand its large arrays to the next map
// (hyla.HyLaMap, hyla.RFFMap): a run's map is done with them when Run
// returns.
type releaser interface{ Release() }

func newTrainer(data *Data, fmap hyla.FeatureMap, z0 *mat.Dense, cfg Config, rng *rand.Rand) (*trainer, error) {
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("train: epochs = %d, want ≥ 1", cfg.Epochs)
	}
	if cfg.Optimizer == "" {
		cfg.Optimizer = "adam"
	}
	switch cfg.Optimizer {
	case "adam", "sgd":
	case "lbfgs":
		if cfg.Model != ModelSGC {
			return nil, fmt.Errorf("train: optimizer lbfgs trains the classifier of model sgc alone (a convex problem); model %s learns Z with it and needs adam or sgd", cfg.Model)
		}
	default:
		return nil, fmt.Errorf("train: optimizer %q, want adam, sgd or lbfgs", cfg.Optimizer)
	}
	switch cfg.EmbeddingOptimizer {
	case "", "auto":
		cfg.EmbeddingOptimizer = "sgd"
	case "sgd":
	case "adam":
		if cfg.Model != ModelRFF {
			return nil, fmt.Errorf("train: embedding optimizer adam is for model rff (Euclidean Z), not %s", cfg.Model)
		}
	default:
		return nil, fmt.Errorf("train: embedding optimizer %q, want auto, sgd or adam", cfg.EmbeddingOptimizer)
	}
	if cfg.Metric == "" {
		cfg.Metric = MetricAccuracy
	}
	if cfg.Metric != MetricAccuracy && cfg.Metric != MetricMicroF1 {
		return nil, fmt.Errorf("train: metric %q, want %s or %s", cfg.Metric, MetricAccuracy, MetricMicroF1)
	}
	if cfg.InitScale == 0 {
		cfg.InitScale = 1e-4
	}
	if cfg.Patience < 0 {
		return nil, fmt.Errorf("train: patience = %d, want ≥ 0", cfg.Patience)
	}
	t := &trainer{cfg: cfg, data: data, fmap: fmap, workers: max(cfg.Workers, 1)}
	if err := t.checkData(); err != nil {
		return nil, err
	}
	switch cfg.Model {
	case ModelHyLa, ModelRFF:
		if fmap == nil {
			return nil, fmt.Errorf("train: model %s needs random-feature samples", cfg.Model)
		}
		fmap.SetWorkers(t.workers)
		t.dim, t.feats = fmap.Dim(), fmap.Features()
	case ModelSGC:
		t.fmap = nil
		t.feats = t.in
	default:
		return nil, fmt.Errorf("train: unknown model %q (want hyla, rff or sgc)", cfg.Model)
	}
	if err := t.alloc(); err != nil {
		return nil, err
	}
	// Initial values: Z, then W (input by input), then b.
	if t.fmap != nil {
		if z0 != nil {
			if r, c := z0.Dims(); r != t.in || c != t.dim {
				return nil, fmt.Errorf("train: initial embedding is %d×%d, want %d×%d", r, c, t.in, t.dim)
			}
			t.z.Copy(z0)
			if err := checkFinite("initial embedding Z", t.z.RawMatrix().Data); err != nil {
				return nil, fmt.Errorf("train: %w", err)
			}
		} else {
			for i, raw := 0, t.z.RawMatrix().Data; i < len(raw); i++ {
				raw[i] = cfg.InitScale * (2*rng.Float64() - 1)
			}
		}
		if cfg.Model == ModelHyLa {
			hyla.ProjectRows(t.z)
		}
	}
	lin := nn.NewLinear(rng, t.feats, t.classes)
	t.wT.Copy(lin.W.T())
	copy(t.b, lin.Bias)
	if cfg.EmbeddingOptimizer == "adam" {
		t.adamZ = nn.NewAdam(cfg.LREmbedding, t.in*t.dim)
	}
	if cfg.Optimizer == "adam" {
		t.adamW = nn.NewAdam(cfg.LRClassifier, t.feats*t.classes)
		t.adamB = nn.NewAdam(cfg.LRClassifier, t.classes)
		t.adamW.WeightDecay, t.adamB.WeightDecay = cfg.WeightDecay, cfg.WeightDecay
	}
	if cfg.Optimizer == "lbfgs" {
		n := t.feats*t.classes + t.classes
		t.lbfgs = nn.NewLBFGS(cfg.LRClassifier, n)
		t.theta = make([]float64, n)
	}
	return t, nil
}

// checkData validates the inputs and sets in, classes and the label vectors.
func (t *trainer) checkData() error {
	d := t.data
	n := len(d.Labels)
	if n == 0 {
		return errors.New("train: no labels")
	}
	switch t.cfg.Level {
	case LevelFeatures:
		if d.X != nil && d.XRows != nil {
			return errors.New("train: give X either dense or as its rows' non-zeros, not both")
		}
		if d.Factored != nil {
			if d.X != nil || d.XRows != nil || d.XTrain != nil {
				return errors.New("train: give the features either as X (and X_train) or factored, not both")
			}
			if err := d.Factored.Validate(); err != nil {
				return fmt.Errorf("train: %w", err)
			}
			r, c := d.Factored.Dims()
			if r != n {
				return fmt.Errorf("train: factored X has %d rows for %d labelled nodes", r, n)
			}
			t.in = c
			break
		}
		var r, c int
		switch {
		case d.XRows != nil:
			if err := d.XRows.Validate(); err != nil {
				return fmt.Errorf("train: X's rows: %w", err)
			}
			if err := d.XRows.CheckSorted(); err != nil {
				return fmt.Errorf("train: X's rows: %w", err)
			}
			r, c = d.XRows.Rows, d.XRows.Cols
			if c == 0 {
				return errors.New("train: X's rows have no columns")
			}
		case d.X != nil:
			r, c = d.X.Dims()
		default:
			return errors.New("train: feature level needs the propagated features X (precompute with level = \"features\")")
		}
		if r != n {
			return fmt.Errorf("train: X has %d rows for %d labelled nodes", r, n)
		}
		t.in = c
		if d.XTrain != nil {
			if xr, xc := d.XTrain.Dims(); xr != len(d.Train) || xc != c {
				return fmt.Errorf("train: X_train is %d×%d, want %d×%d (training rows × features)", xr, xc, len(d.Train), c)
			}
		}
	case LevelNodes:
		if d.S == nil {
			return errors.New("train: node level needs the normalised adjacency S (precompute with level = \"nodes\")")
		}
		if d.S.Rows != n || d.S.Cols != n {
			return fmt.Errorf("train: S is %d×%d for %d nodes", d.S.Rows, d.S.Cols, n)
		}
		if d.XTrain != nil {
			return errors.New("train: inductive training is only available at the feature level")
		}
		if d.K < 0 {
			return fmt.Errorf("train: K = %d, want ≥ 0", d.K)
		}
		t.in = n
	default:
		return fmt.Errorf("train: unknown level %q (want features or nodes)", t.cfg.Level)
	}
	if t.in < 1 {
		return errors.New("train: the input has no columns")
	}
	if len(d.Train) == 0 {
		return errors.New("train: no training nodes")
	}
	classes := d.Classes
	if classes == 0 {
		for _, y := range d.Labels {
			classes = max(classes, y+1)
		}
	}
	if d.Binary {
		if classes > 2 {
			return fmt.Errorf("train: binary training with %d classes", classes)
		}
		classes = 2
		t.classes = 1
	} else {
		if classes < 2 {
			return fmt.Errorf("train: %d classes, want ≥ 2", classes)
		}
		t.classes = classes
	}
	var err error
	if t.yTr, err = gatherLabels("train", d.Train, d.Labels, classes); err != nil {
		return err
	}
	if t.yVal, err = gatherLabels("val", d.Val, d.Labels, classes); err != nil {
		return err
	}
	if t.yTest, err = gatherLabels("test", d.Test, d.Labels, classes); err != nil {
		return err
	}
	return nil
}

func gatherLabels(split string, rows, labels []int, classes int) ([]int, error) {
	y := make([]int, len(rows))
	for r, i := range rows {
		if i < 0 || i >= len(labels) {
			return nil, fmt.Errorf("train: %s node %d (position %d) outside the %d nodes", split, i, r, len(labels))
		}
		if labels[i] < 0 || labels[i] >= classes {
			return nil, fmt.Errorf("train: %s node %d (position %d) has label %d, want 0..%d", split, i, r, labels[i], classes-1)
		}
		y[r] = labels[i]
	}
	return y, nil
}

func (t *trainer) alloc() error {
	d := t.data
	c := t.classes
	if t.fmap != nil {
		t.z = mat.NewDense(t.in, t.dim, nil)
		// φ and ∂L/∂φ (in×D) are allocated by the first forward pass only
		// if the map has no fused kernels (see linearMap).
		t.gz = mat.NewDense(t.in, t.dim, nil)
		t.bestZ = mat.NewDense(t.in, t.dim, nil)
	}
	t.wT = mat.NewDense(c, t.feats, nil)
	t.gwT = mat.NewDense(c, t.feats, nil)
	t.bestWT = mat.NewDense(c, t.feats, nil)
	t.b, t.gb, t.bestB = make([]float64, c), make([]float64, c), make([]float64, c)
	if t.fmap != nil {
		t.yT = mat.NewDense(c, t.in, nil)
		t.gyT = mat.NewDense(c, t.in, nil)
	} else {
		t.yT = t.wT // SGC: Y is W itself
		t.gyT = t.gwT
	}
	t.bestYT = mat.NewDense(c, t.in, nil)
	t.logTr = mat.NewDense(len(d.Train), c, nil)
	t.g = mat.NewDense(len(d.Train), c, nil)
	t.logVal = newRows(len(d.Val), c)
	t.logTest = newRows(len(d.Test), c)
	t.pred = make([]int, max(len(d.Train), len(d.Val), len(d.Test)))
	if t.cfg.Level == LevelFeatures && d.Factored != nil {
		// newFactoredInput's errors are the split's indices, checked by
		// checkData already.
		var err error
		if t.fact, err = newFactoredInput(d.Factored, d.Train, d.Val, d.Test, c); err != nil {
			return fmt.Errorf("train: factored X: %w", err)
		}
	} else if t.cfg.Level == LevelFeatures {
		t.x = d.X
		if d.XRows != nil {
			// X's non-zeros: the sparse path without forming X, unless its
			// training rows are too dense for it.
			if t.sparse = newSparseInputRows(d.XRows, d.XTrain, d.Train, c, t.workers); t.sparse != nil {
				return nil
			}
			t.x = d.XRows.DenseBits()
		}
		if d.XTrain != nil {
			t.xTrain = d.XTrain
		} else {
			_, cols := t.x.Dims()
			t.xTrain = mat.NewDense(len(d.Train), cols, nil)
			for r, i := range d.Train {
				copy(t.xTrain.RawRowView(r), t.x.RawRowView(i))
			}
		}
		t.sparse = newSparseInput(t.xTrain, t.x, c, t.workers)
	} else {
		n := t.in
		t.y, t.gy = mat.NewDense(n, c, nil), mat.NewDense(n, c, nil)
		t.p0, t.p1, t.e0 = mat.NewDense(n, c, nil), mat.NewDense(n, c, nil), mat.NewDense(n, c, nil)
		t.prop = mat.NewDense(n, c, nil)
		if d.S.IsSymmetric() {
			t.st = d.S
		} else {
			t.st = d.S.Transpose()
		}
	}
	return nil
}

// newRows returns an r×c matrix, or an empty one for r = 0.
func newRows(r, c int) *mat.Dense {
	if r == 0 {
		return &mat.Dense{}
	}
	return mat.NewDense(r, c, nil)
}

func (t *trainer) run(ctx context.Context) (*Result, error) {
	res := &Result{BestEpoch: -1, BestVal: math.Inf(-1)}
	res.Curves = make([]EpochStats, 0, t.cfg.Epochs)
	t.watch = nn.LossWatch{Chance: nn.ChanceLoss(t.classes)}
	if err := t.forward(ctx); err != nil {
		return nil, err
	}
	for epoch := 0; epoch < t.cfg.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := t.epoch(ctx, epoch); err != nil {
			return nil, err
		}
		st := EpochStats{Epoch: epoch, Loss: t.loss, Train: t.trainMet, Val: t.valMet}
		res.Curves = append(res.Curves, st)
		res.Epochs = epoch + 1
		if t.valMet > res.BestVal || res.BestEpoch < 0 {
			res.BestVal, res.BestTrain, res.BestEpoch = t.valMet, t.trainMet, epoch
			t.saveBest()
		}
		if t.cfg.Progress != nil {
			t.cfg.Progress(st)
		}
		if t.cfg.Patience > 0 && epoch-res.BestEpoch >= t.cfg.Patience {
			res.StoppedEarly = true
			break
		}
	}
	if err := t.watch.Done(); err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	res.Train, res.Val = t.trainMet, t.valMet
	var err error
	if res.Test, err = t.testMetric(ctx, t.yT); err != nil {
		return nil, err
	}
	last := t.b
	t.b = t.bestB
	res.BestTest, err = t.testMetric(ctx, t.bestYT)
	t.b = last
	if err != nil {
		return nil, err
	}
	res.W, res.Bias = mat.DenseCopyOf(t.wT.T()), t.b
	res.BestW, res.BestBias = mat.DenseCopyOf(t.bestWT.T()), t.bestB
	if t.fmap != nil {
		res.Z, res.BestZ = t.z, t.bestZ
	}
	return res, nil
}

func (t *trainer) saveBest() {
	t.bestYT.Copy(t.yT)
	t.bestWT.Copy(t.wT)
	copy(t.bestB, t.b)
	if t.z != nil {
		t.bestZ.Copy(t.z)
	}
}

// forward recomputes Y = φ(Z)·W and the training and validation logits and
// metrics from the current parameters.
func (t *trainer) forward(ctx context.Context) error {
	if t.fmap != nil {
		// Yᵀ = Wᵀ·φᵀ, fused into the map's forward pass where it can.
		lm, ok := t.fmap.(linearMap)
		t.fused = ok && lm.ForwardLinear(t.z, t.wT, t.yT)
		if !t.fused {
			if t.phi == nil {
				t.phi = mat.NewDense(t.in, t.feats, nil)
				t.gphi = mat.NewDense(t.in, t.feats, nil)
			}
			t.fmap.Forward(t.z, t.phi)
			gemm(false, true, t.wT, t.phi, t.yT, t.workers)
		}
	}
	if t.cfg.Level == LevelNodes {
		transposeInto(t.y, t.yT)
		if err := t.propagate(ctx, t.data.S, t.y, t.prop); err != nil {
			return err
		}
		gatherRows(t.prop, t.data.Train, t.logTr)
		gatherRows(t.prop, t.data.Val, t.logVal)
	} else if t.fact != nil {
		if err := t.fact.propagate(ctx, t.yT, t.workers); err != nil {
			return err
		}
		if err := t.fact.rows(ctx, t.fact.aTrain, t.logTr, t.workers); err != nil {
			return err
		}
		if err := t.fact.rows(ctx, t.fact.aVal, t.logVal, t.workers); err != nil {
			return err
		}
	} else {
		if t.sparse != nil {
			if err := t.sparseRowsProduct(ctx, t.sparse.train, nil, t.yT, t.logTr, t.sparse.train.rows); err != nil {
				return err
			}
		} else {
			n, _ := t.xTrain.Dims()
			if t.serial(n) {
				rowsProductRange(t.xTrain, nil, t.yT, t.logTr, 0, n)
			} else if err := t.parallel(ctx, n, func(lo, hi int) { rowsProductRange(t.xTrain, nil, t.yT, t.logTr, lo, hi) }); err != nil {
				return err
			}
		}
		if err := t.rowsProduct(ctx, t.data.Val, t.yT, t.logVal); err != nil {
			return err
		}
	}
	nn.AddBias(t.logTr, t.b)
	if len(t.data.Val) > 0 {
		nn.AddBias(t.logVal, t.b)
	}
	t.trainMet = t.metric(t.logTr, t.yTr)
	t.valMet = t.metric(t.logVal, t.yVal)
	return nil
}

func (t *trainer) metric(logits *mat.Dense, labels []int) float64 {
	if len(labels) == 0 {
		return 0
	}
	pred := t.pred[:len(labels)]
	nn.Predict(logits, pred)
	if t.cfg.Metric == MetricMicroF1 {
		return nn.MicroF1(pred, labels, max(t.classes, 2))
	}
	return nn.Accuracy(pred, labels)
}

// lossGrad computes the training loss of the current logits and the
// gradients of every parameter, without changing the parameters.
func (t *trainer) lossGrad(ctx context.Context) error {
	var err error
	if t.data.Binary {
		t.loss, err = nn.SigmoidBCE(t.logTr, t.yTr, t.g)
	} else {
		t.loss, err = t.crossEntropy(ctx)
	}
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	nn.ColSums(t.g, t.gb)
	// ∂L/∂Y.
	if t.cfg.Level == LevelNodes {
		t.e0.Zero()
		for r, i := range t.data.Train {
			dst := t.e0.RawRowView(i)
			for j, v := range t.g.RawRowView(r) {
				dst[j] += v
			}
		}
		if err := t.propagate(ctx, t.st, t.e0, t.gy); err != nil {
			return err
		}
		transposeInto(t.gyT, t.gy)
	} else {
		if err := t.gtx(ctx); err != nil { // (∂L/∂Y)ᵀ = Gᵀ·X_train
			return err
		}
	}
	if t.fmap == nil {
		return nil // SGC: gyT is gwT
	}
	if t.fused {
		// (∂L/∂W)ᵀ = (∂L/∂Y)ᵀ·φ and ∂L/∂Z through ∂L/∂φ = ∂L/∂Y·Wᵀ in one
		// pass of the map, which recomputes φ row by row.
		if !t.fmap.(linearMap).BackwardLinear(t.gyT, t.wT, t.gz, t.gwT) {
			return errors.New("train: the feature map's fused backward pass is not available")
		}
		return nil
	}
	gemm(false, false, t.gyT, t.phi, t.gwT, t.workers) // (∂L/∂W)ᵀ = (∂L/∂Y)ᵀ·φ
	gemm(true, false, t.gyT, t.wT, t.gphi, t.workers)  // ∂L/∂φ = ∂L/∂Y·Wᵀ
	t.fmap.Backward(t.gphi, t.gz)
	return nil
}

// crossEntropy is nn.SoftmaxCrossEntropy on the training logits, its blocks
// of nn.CrossEntropyBlock rows on the workers; the loss adds the blocks'
// sums in block order, as nn.SoftmaxCrossEntropy does, so it does not
// depend on the number of workers.
func (t *trainer) crossEntropy(ctx context.Context) (float64, error) {
	n := len(t.yTr)
	if t.workers <= 1 || n <= nn.CrossEntropyBlock {
		return nn.SoftmaxCrossEntropy(t.logTr, t.yTr, t.g)
	}
	blocks := (n + nn.CrossEntropyBlock - 1) / nn.CrossEntropyBlock
	if len(t.ceParts) < blocks {
		t.ceParts = make([]float64, blocks)
		t.ceErrs = make([]error, blocks)
	}
	if err := t.parallelBlocks(ctx, n, nn.CrossEntropyBlock, func(_, lo, hi int) {
		b := lo / nn.CrossEntropyBlock
		t.ceParts[b], t.ceErrs[b] = nn.SoftmaxCrossEntropyRows(t.logTr, t.yTr, t.g, lo, hi)
	}); err != nil {
		return 0, err
	}
	var total float64
	for b := 0; b < blocks; b++ {
		if t.ceErrs[b] != nil {
			return 0, t.ceErrs[b]
		}
		total += t.ceParts[b]
	}
	return total / float64(n), ctx.Err()
}

// linearMap is a feature map with kernels fused with the linear classifier
// (hyla.HyLaMap and hyla.RFFMap with their vector kernels): Yᵀ = Wᵀ·φ(Z)ᵀ without storing
// φ(Z), and ∂L/∂Z and (∂L/∂W)ᵀ without forming ∂L/∂φ. Each reports false
// where the map has no such kernel.
type linearMap interface {
	ForwardLinear(z, wT, yT *mat.Dense) bool
	BackwardLinear(gyT, wT, gradZ, gradWT *mat.Dense) bool
}

func (t *trainer) epoch(ctx context.Context, epoch int) error {
	if t.lbfgs != nil {
		if err := t.lbfgsStep(ctx, epoch); err != nil {
			return err
		}
		return t.afterStep(ctx, epoch)
	}
	if err := t.lossGrad(ctx); err != nil {
		return err
	}
	if math.IsNaN(t.loss) || math.IsInf(t.loss, 0) {
		return fmt.Errorf("train: epoch %d: training loss is %v: %w", epoch, t.loss, ErrNonFinite)
	}
	t.watch.Check(epoch, t.loss) // finite: checked above
	switch t.cfg.Model {
	case ModelHyLa:
		if err := t.rsgd(ctx); err != nil {
			return err
		}
	case ModelRFF:
		if t.adamZ != nil {
			t.adamZ.Step(t.z.RawMatrix().Data, t.gz.RawMatrix().Data)
		} else {
			nn.SGD{LR: t.cfg.LREmbedding}.Step(t.z.RawMatrix().Data, t.gz.RawMatrix().Data)
		}
	}
	if t.adamW != nil {
		t.adamW.Step(t.wT.RawMatrix().Data, t.gwT.RawMatrix().Data)
		t.adamB.Step(t.b, t.gb)
	} else {
		sgd := nn.SGD{LR: t.cfg.LRClassifier, WeightDecay: t.cfg.WeightDecay}
		sgd.Step(t.wT.RawMatrix().Data, t.gwT.RawMatrix().Data)
		sgd.Step(t.b, t.gb)
	}
	return t.afterStep(ctx, epoch)
}

// afterStep checks the parameters and evaluates them.
func (t *trainer) afterStep(ctx context.Context, epoch int) error {
	for _, p := range []struct {
		name string
		v    []float64
	}{{"classifier weights W", t.wT.RawMatrix().Data}, {"classifier bias b", t.b}} {
		if err := checkFinite(p.name, p.v); err != nil {
			return fmt.Errorf("train: epoch %d: %w", epoch, err)
		}
	}
	if t.z != nil {
		if err := t.checkFiniteRows(ctx, "embedding Z", t.z); err != nil {
			return fmt.Errorf("train: epoch %d: %w", epoch, err)
		}
	}
	return t.forward(ctx)
}

// lbfgsStep runs one L-BFGS step (up to 20 iterations) on the classifier
// (SGC: Y is W). Its loss adds ½·wd·‖W‖²; the epoch's loss is the one at
// the step's start.
func (t *trainer) lbfgsStep(ctx context.Context, epoch int) error {
	w := t.wT.RawMatrix().Data
	nw := len(w)
	copy(t.theta, w)
	copy(t.theta[nw:], t.b)
	wd := t.cfg.WeightDecay
	loss, err := t.lbfgs.Step(t.theta, func(x, g []float64) (float64, error) {
		copy(w, x[:nw])
		copy(t.b, x[nw:])
		if err := t.forward(ctx); err != nil {
			return 0, err
		}
		if err := t.lossGrad(ctx); err != nil {
			return 0, err
		}
		l := t.loss
		copy(g, t.gwT.RawMatrix().Data)
		copy(g[nw:], t.gb)
		if wd != 0 {
			for i, v := range w {
				l += 0.5 * wd * v * v
				g[i] += wd * v
			}
		}
		if math.IsNaN(l) || math.IsInf(l, 0) {
			return 0, fmt.Errorf("train: epoch %d (L-BFGS evaluation %d): training loss is %v: %w", epoch, t.lbfgs.Evals()+1, l, ErrNonFinite)
		}
		return l, nil
	})
	if err != nil {
		return err
	}
	copy(w, t.theta[:nw]) // the step's last iterate is not evaluated
	copy(t.b, t.theta[nw:])
	t.loss = loss
	t.watch.Check(epoch, loss) // finite: every evaluation was checked
	return nil
}

// rsgd applies the embedding's Riemannian SGD step (hyla.RSGDStep) in
// blocks of rows on the trainer's workers: every row's step is its own,
// so the bits do not depend on the split. One worker steps every row in
// this goroutine (an epoch allocates nothing then).
func (t *trainer) rsgd(ctx context.Context) error {
	lr := t.cfg.LREmbedding
	if t.workers <= 1 {
		hyla.RSGDStep(t.z, t.gz, lr)
		return nil
	}
	n, _ := t.z.Dims()
	return parallel.Balanced(ctx, n, parallel.Size(n, 4*t.workers), t.workers, func(lo, hi int) {
		hyla.RSGDRows(t.z, t.gz, lr, lo, hi)
	})
}

// checkFiniteRows is checkFinite over a matrix's entries in row-major
// order, blocks of rows on the trainer's workers: the error names the
// first non-finite entry, as checkFinite's does.
func (t *trainer) checkFiniteRows(ctx context.Context, name string, m *mat.Dense) error {
	raw := m.RawMatrix()
	n, c := m.Dims()
	b := 0
	if t.workers <= 1 {
		b = firstNonFiniteRow(raw.Data, raw.Stride, c, 0, n)
	} else {
		size := parallel.Size(n, 4*t.workers)
		bad := make([]int, (n+size-1)/size)
		if err := parallel.Balanced(ctx, n, size, t.workers, func(lo, hi int) {
			bad[lo/size] = firstNonFiniteRow(raw.Data, raw.Stride, c, lo, hi)
		}); err != nil {
			return err
		}
		for _, v := range bad {
			if v > 0 {
				b = v
				break
			}
		}
	}
	if b > 0 {
		i, j := (b-1)/c, (b-1)%c
		return nonFiniteError(name, b-1, raw.Data[i*raw.Stride+j])
	}
	return nil
}

// firstNonFiniteRow returns 1 + the row-major index (i·c + j) of the first
// NaN or infinity in the rows [lo, hi) of the c-column matrix data (rows
// stride apart), or 0.
func firstNonFiniteRow(data []float64, stride, c, lo, hi int) int {
	for i := lo; i < hi; i++ {
		if j := nonFinite(data[i*stride : i*stride+c]); j >= 0 {
			return i*c + j + 1
		}
	}
	return 0
}

// nonFinite returns the index of v's first NaN or infinity, or −1.
func nonFinite(v []float64) int {
	for i, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return i
		}
	}
	return -1
}

func checkFinite(name string, v []float64) error {
	if i := nonFinite(v); i >= 0 {
		return nonFiniteError(name, i, v[i])
	}
	return nil
}

// nonFiniteError names entry i (value x) of the parameter name.
func nonFiniteError(name string, i int, x float64) error {
	return fmt.Errorf("%s entry %d is %v: %w", name, i, x, ErrNonFinite)
}

// testMetric evaluates the test rows for Yᵀ (the current bias t.b).
func (t *trainer) testMetric(ctx context.Context, yT *mat.Dense) (float64, error) {
	if len(t.data.Test) == 0 {
		return 0, nil
	}
	if t.cfg.Level == LevelNodes {
		transposeInto(t.y, yT)
		if err := t.propagate(ctx, t.data.S, t.y, t.prop); err != nil {
			return 0, err
		}
		gatherRows(t.prop, t.data.Test, t.logTest)
	} else if t.fact != nil {
		if err := t.fact.propagate(ctx, yT, t.workers); err != nil {
			return 0, err
		}
		if err := t.fact.rows(ctx, t.fact.aTest, t.logTest, t.workers); err != nil {
			return 0, err
		}
	} else if err := t.rowsProduct(ctx, t.data.Test, yT, t.logTest); err != nil {
		return 0, err
	}
	nn.AddBias(t.logTest, t.b)
	return t.metric(t.logTest, t.yTest), nil
}

// propagate sets out = m^K·x with K sparse products through p0/p1.
func (t *trainer) propagate(ctx context.Context, m *sparse.CSR, x, out *mat.Dense) error {
	k := t.data.K
	if k == 0 {
		out.Copy(x)
		return nil
	}
	src := x
	for step := 0; step < k; step++ {
		dst := t.p0
		if step == k-1 {
			dst = out
		} else if src == t.p0 {
			dst = t.p1
		}
		if err := t.spmm(ctx, m, src, dst); err != nil {
			return err
		}
		src = dst
	}
	return nil
}

// spmm sets out = m·x, row blocks in parallel; each row is summed by one
// goroutine in the order of its entries.
func (t *trainer) spmm(ctx context.Context, m *sparse.CSR, x, out *mat.Dense) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if t.serial(m.Rows) {
		spmmRows(m, x, out, 0, m.Rows)
		return nil
	}
	return t.parallel(ctx, m.Rows, func(lo, hi int) { spmmRows(m, x, out, lo, hi) })
}

func spmmRows(m *sparse.CSR, x, out *mat.Dense, lo, hi int) {
	xr := x.RawMatrix()
	or := out.RawMatrix()
	c := xr.Cols
	for i := lo; i < hi; i++ {
		dst := or.Data[i*or.Stride : i*or.Stride+c]
		clear(dst)
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			v := m.Data[p]
			src := xr.Data[int(m.Indices[p])*xr.Stride:]
			for j := range dst {
				dst[j] += v * src[j]
			}
		}
	}
}

// rowsProduct sets out[r] = X[rows[r]]·Y for the feature level, given Yᵀ.
func (t *trainer) rowsProduct(ctx context.Context, rows []int, yT, out *mat.Dense) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	if t.sparse != nil {
		return t.sparseRowsProduct(ctx, t.sparse.all, rows, yT, out, len(rows))
	}
	if t.serial(len(rows)) {
		rowsProductRange(t.x, rows, yT, out, 0, len(rows))
		return nil
	}
	return t.parallel(ctx, len(rows), func(lo, hi int) { rowsProductRange(t.x, rows, yT, out, lo, hi) })
}

// gtx sets gyT = Gᵀ·X_train with the vector kernels: column blocks of
// X_train on the workers (each entry one sum over the training rows in
// order).
func (t *trainer) gtx(ctx context.Context) error {
	if t.fact != nil {
		return t.fact.gtx(ctx, t.g, t.gyT, t.workers)
	}
	if t.sparse != nil {
		return t.sparseGtx(ctx)
	}
	n, d := t.xTrain.Dims()
	gm, xm, om := t.g.RawMatrix(), t.xTrain.RawMatrix(), t.gyT.RawMatrix()
	c := t.classes
	pl := gtxPackLen(c)
	if len(t.gtxPack) < pl*t.workers {
		t.gtxPack = make([]float64, pl*t.workers)
	}
	if t.serial(d) {
		gtxRangeAVX512(gm.Data, xm.Data, om.Data, t.gtxPack[:pl], gm.Stride, xm.Stride, om.Stride, n, c, 0, d)
		return nil
	}
	return t.parallel(ctx, d, func(lo, hi int) {
		// Column blocks of parallelBlock (a multiple of 32): block
		// lo/parallelBlock runs on worker (lo/parallelBlock) mod workers,
		// which owns that pack.
		w := (lo / parallelBlock) % t.workers
		gtxRangeAVX512(gm.Data, xm.Data, om.Data, t.gtxPack[pl*w:pl*(w+1)], gm.Stride, xm.Stride, om.Stride, n, c, lo, hi)
	})
}

// rowsProductRange computes rows [lo, hi) of rowsProduct: out[r] = Yᵀ·x
// (C dot products of length d) for x the row rows[r] of X, or row r if rows
// is nil. The C sums share each load of x (vector kernels).
func rowsProductRange(xd *mat.Dense, rows []int, yT, out *mat.Dense, lo, hi int) {
	x := xd.RawMatrix()
	ym := yT.RawMatrix()
	om := out.RawMatrix()
	// Four rows at a time share the loads of Y.
	var xs, os [4][]float64
	for ; lo+4 <= hi; lo += 4 {
		for t := 0; t < 4; t++ {
			i := lo + t
			if rows != nil {
				i = rows[lo+t]
			}
			xs[t] = x.Data[i*x.Stride : i*x.Stride+x.Cols]
			os[t] = om.Data[(lo+t)*om.Stride : (lo+t)*om.Stride+om.Cols]
		}
		rowDots4AVX512(&xs, ym.Data, ym.Stride, &os)
	}
	for r := lo; r < hi; r++ {
		i := r
		if rows != nil {
			i = rows[r]
		}
		xr := x.Data[i*x.Stride : i*x.Stride+x.Cols]
		o := om.Data[r*om.Stride : r*om.Stride+om.Cols]
		vec.RowDots(xr, ym.Data, ym.Stride, o)
	}
}

// parallelBlock is the number of rows a worker takes at a time.
const parallelBlock = 512

// serial reports whether a loop over n rows runs on the calling goroutine.
func (t *trainer) serial(n int) bool { return t.workers <= 1 || n <= parallelBlock }

// parallel runs f over [0, n) in contiguous blocks on t.workers goroutines.
// Every row is handled by exactly one goroutine, so results do not depend
// on the number of workers.
func (t *trainer) parallel(ctx context.Context, n int, f func(lo, hi int)) error {
	return t.parallelBlocks(ctx, n, parallelBlock, func(_, lo, hi int) { f(lo, hi) })
}

// parallelBlocks runs f(w, lo, hi) for the blocks of size rows that cover
// [0, n), block b (rows [b·size, …)) on worker w = b mod min(t.workers,
// blocks), which keeps the worker's partial sums apart (parallel.Blocks).
func (t *trainer) parallelBlocks(ctx context.Context, n, size int, f func(w, lo, hi int)) error {
	return parallel.Blocks(ctx, n, size, t.workers, f)
}

// transposeInto sets dst = srcᵀ.
func transposeInto(dst, src *mat.Dense) {
	s := src.RawMatrix()
	d := dst.RawMatrix()
	for i := 0; i < s.Rows; i++ {
		row := s.Data[i*s.Stride : i*s.Stride+s.Cols]
		for j, v := range row {
			d.Data[j*d.Stride+i] = v
		}
	}
}

func gatherRows(src *mat.Dense, rows []int, dst *mat.Dense) {
	for r, i := range rows {
		copy(dst.RawRowView(r), src.RawRowView(i))
	}
}

// gemmTile is the output tile of gemm: gonum's Dgemm runs serially (no
// goroutines, no allocation) when the output has fewer than four 64×64
// blocks, so a 64×192 or 192×64 tile is computed by one serial call.
const (
	gemmTileShort = 64
	gemmTileLong  = 192
)

// gemm sets c = op(a)·op(b) with gonum's BLAS, tile by tile on up to
// workers goroutines. Every entry is a serial gonum sum over the full inner
// dimension in order, whatever the tiling, so the result does not depend on
// workers; with one worker nothing is allocated.
func gemm(ta, tb bool, a, b, c *mat.Dense, workers int) {
	ar, ac := a.Dims()
	if ar == 0 || ac == 0 {
		c.Zero()
		return
	}
	cm := c.RawMatrix()
	tr, tc := gemmTileLong, gemmTileShort
	if cm.Rows < cm.Cols {
		tr, tc = gemmTileShort, gemmTileLong
	}
	rt, ct := (cm.Rows+tr-1)/tr, (cm.Cols+tc-1)/tc
	tiles := rt * ct
	am, bm := a.RawMatrix(), b.RawMatrix()
	if workers <= 1 || tiles == 1 {
		for t := 0; t < tiles; t++ {
			gemmTile(ta, tb, am, bm, cm, t, tr, tc, ct)
		}
		return
	}
	gemmParallel(ta, tb, am, bm, cm, tiles, tr, tc, ct, min(workers, tiles))
}

// gemmTile computes output tile t (row-major over ct tile columns).
func gemmTile(ta, tb bool, a, b, c blas64.General, t, tr, tc, ct int) {
	i0, j0 := (t/ct)*tr, (t%ct)*tc
	gemmTileRun(ta, tb, a, b, c, i0, min(i0+tr, c.Rows), j0, min(j0+tc, c.Cols))
}

// gemmParallel runs the tiles on workers goroutines, tile t on worker t mod workers.
func gemmParallel(ta, tb bool, a, b, c blas64.General, tiles, tr, tc, ct, workers int) {
	parallel.Blocks(context.Background(), tiles, 1, workers, func(_, t, _ int) {
		gemmTile(ta, tb, a, b, c, t, tr, tc, ct)
	})
}

// gemmTileRun computes c[i0:i1, j0:j1] = op(a)[i0:i1, :]·op(b)[:, j0:j1].
func gemmTileRun(ta, tb bool, a, b, c blas64.General, i0, i1, j0, j1 int) {
	opA, opB := blas.NoTrans, blas.NoTrans
	if ta {
		opA = blas.Trans
		a = blas64.General{Rows: a.Rows, Cols: i1 - i0, Stride: a.Stride, Data: a.Data[i0:]}
	} else {
		a = blas64.General{Rows: i1 - i0, Cols: a.Cols, Stride: a.Stride, Data: a.Data[i0*a.Stride:]}
	}
	if tb {
		opB = blas.Trans
		b = blas64.General{Rows: j1 - j0, Cols: b.Cols, Stride: b.Stride, Data: b.Data[j0*b.Stride:]}
	} else {
		b = blas64.General{Rows: b.Rows, Cols: j1 - j0, Stride: b.Stride, Data: b.Data[j0:]}
	}
	c = blas64.General{Rows: i1 - i0, Cols: j1 - j0, Stride: c.Stride, Data: c.Data[i0*c.Stride+j0:]}
	blas64.Gemm(opA, opB, 1, a, b, 0, c)
}
