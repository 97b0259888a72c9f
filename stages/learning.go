package stages

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/nn/hgcn"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/train"
	"gonum.org/v1/gonum/mat"
)

// Output names of the learning stages.
const (
	learnOutSamples   = "samples"
	learnOutEmbedding = "embedding"
	learnOutModel     = "model"
	learnOutMetrics   = "metrics"
	learnOutTable     = "table"
)

// Extra members of the model artifact (beyond artifact/schema.go): the
// parameters of the best-validation epoch.
const (
	learnMemberZBest    = "Z_best"
	learnMemberWBest    = "W_best"
	learnMemberBiasBest = "bias_best"
)

func registerLearning(r *registry.Registry) error {
	// dataAugmentType (data_augment.go) is registered here: data.go's
	// registerData belongs to another area.
	for _, t := range []*registry.Type{learnSampleType(), learnEmbedType(), learnTrainType(), learnEvaluateType(), learnHGCNSplitType(), dataAugmentType()} {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- sample

func learnSampleType() *registry.Type {
	return &registry.Type{
		Name:    "sample",
		Version: "2", // 2: common random numbers: draws from the seed and the stage type, not the cache key
		Doc: "Draws the random-feature parameters, seeded. kind hyla: D boundary points ω uniform on the " +
			"unit sphere of R^dim (normalised Gaussians), λ ~ N(0, scale²), b ~ U[0, 2π); kind rff: " +
			"Λ ∈ R^{dim×D} ~ N(0, scale²) (stored transposed as omega) and b ~ U[0, 2π). The convention " +
			"(code: cos(λ/2·⟨ω,z⟩_H + b) as the official code, whose tuned scales assume it; paper: " +
			"cos(λ⟨ω,z⟩_H + b), eq. 1) is recorded for the train stage.",
		Params: []registry.Param{
			{Name: "kind", Type: registry.String, Default: "hyla", Enum: []string{"hyla", "rff"}, Doc: "HyLa (hyperbolic) or RFF (Euclidean) features"},
			{Name: "dim", Type: registry.Int, Range: registry.Between(1, 4096), Default: 16, Doc: "embedding dimension d0"},
			{Name: "features", Type: registry.Int, Range: registry.Between(1, 1<<20), Default: 100, Doc: "number of random features D (the paper's d1)"},
			{Name: "scale", Type: registry.Float, Range: registry.AtLeast(0), Default: 0.1, Doc: "standard deviation s of λ (HyLa) or of Λ's entries (RFF); the official code's lambda_scale"},
			{Name: "convention", Type: registry.String, Default: "code", Enum: []string{"code", "paper"}, Doc: "HyLa λ convention (ignored for rff)"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the draw"},
		},
		Outputs: []registry.Output{{Name: learnOutSamples, Kind: schema.KindSamples, Doc: "omega (D×dim), lambda (HyLa), b, info"}},
		Run:     learnRunSample,
	}
}

func learnRunSample(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	kind, dim, feats, scale := p.String("kind"), p.Int("dim"), p.Int("features"), p.Float("scale")
	if dim < 1 || dim > 4096 {
		return nil, fmt.Errorf("sample: dim = %d, want 1..4096", dim)
	}
	if feats < 1 || feats > 1<<20 {
		return nil, fmt.Errorf("sample: features = %d, want 1..%d", feats, 1<<20)
	}
	if !(scale >= 0) || math.IsInf(scale, 0) {
		return nil, fmt.Errorf("sample: scale = %v, want a finite value ≥ 0", scale)
	}
	var s *hyla.Samples
	if kind == "rff" {
		s = hyla.SampleRFF(job.RNG, feats, dim, scale)
	} else {
		s = hyla.SampleHyLa(job.RNG, feats, dim, scale)
	}
	a := bundle.New(schema.KindSamples)
	a.SetDense(schema.MemberOmega, s.Omega)
	if s.Lambda != nil {
		a.SetFloats(schema.MemberLambda, s.Lambda)
	}
	a.SetFloats(schema.MemberB, s.B)
	conv := p.String("convention")
	if kind == "rff" {
		conv = ""
	}
	err := a.SetJSON(schema.MemberInfo, schema.SamplesInfo{Kind: kind, Dim: dim, Features: feats, Scale: scale,
		Convention: conv, Seed: uint64(p.Int("seed"))})
	if err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{learnOutSamples: a}, ctx.Err()
}

// learnSamples decodes a samples artifact and builds its feature map.
func learnSamples(a *bundle.Bundle) (hyla.FeatureMap, schema.SamplesInfo, error) {
	var info schema.SamplesInfo
	if err := a.JSON(schema.MemberInfo, &info); err != nil {
		return nil, info, err
	}
	omega, err := a.Dense(schema.MemberOmega)
	if err != nil {
		return nil, info, err
	}
	b, err := a.Floats(schema.MemberB)
	if err != nil {
		return nil, info, err
	}
	s := &hyla.Samples{Kind: info.Kind, Omega: omega, B: b}
	var fm hyla.FeatureMap
	switch info.Kind {
	case "hyla":
		if s.Lambda, err = a.Floats(schema.MemberLambda); err != nil {
			return nil, info, err
		}
		m, err := hyla.NewHyLa(s, hyla.Convention(info.Convention))
		if err != nil {
			return nil, info, err
		}
		fm = m
	case "rff":
		m, err := hyla.NewRFF(s)
		if err != nil {
			return nil, info, err
		}
		fm = m
	default:
		return nil, info, fmt.Errorf("samples of unknown kind %q", info.Kind)
	}
	return fm, info, nil
}

// ---------------------------------------------------------------- embed

func learnEmbedType() *registry.Type {
	return &registry.Type{
		Name:    "embed",
		Version: "2", // 2: common random numbers: draws from the seed and the stage type, not the cache key
		Doc: "Initial embedding Z for the train stage. method origin: uniform in [−init_scale, init_scale] " +
			"(the official code's 1e-4), one row per input feature (level features) or per node (level nodes). " +
			"method pretrained: a Poincaré embedding of the graph's connectivity (Nickel & Kiela's loss with " +
			"negative sampling and RSGD; the paper's two-step variant, appendix F), one row per node; train it " +
			"with lr_embedding = 0 to keep the HyLa features fixed.",
		Params: []registry.Param{
			{Name: "method", Type: registry.String, Default: "origin", Enum: []string{"origin", "pretrained"}, Doc: "how Z is made"},
			{Name: "dim", Type: registry.Int, Range: registry.Between(1, 4096), Default: 16, Doc: "embedding dimension d0 (must match the samples)"},
			{Name: "level", Type: registry.String, Default: "features", Enum: []string{"features", "nodes"}, Doc: "rows: input features or nodes (pretrained: nodes)"},
			{Name: "init_scale", Type: registry.Float, Range: registry.AtLeast(0).Below(1), Default: 1e-4, Doc: "origin: half-width of the uniform initialisation"},
			{Name: "epochs", Type: registry.Int, Range: registry.Between(1, 1_000_000), Default: 100, Doc: "pretrained: passes over the edges"},
			{Name: "lr", Type: registry.Float, Range: registry.Above(0), Default: 0.3, Doc: "pretrained: RSGD learning rate"},
			{Name: "negatives", Type: registry.Int, Range: registry.AtLeast(1), Default: 10, Doc: "pretrained: negative samples per edge"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed"},
		},
		Inputs: []registry.Input{
			{Name: "features", Kind: schema.KindFeatures, Optional: true, Doc: "precomputed features (gives the number of rows)"},
			{Name: "graph", Kind: schema.KindGraph, Optional: true, Doc: "graph (gives the rows; needed for pretrained)"},
		},
		Outputs: []registry.Output{{Name: learnOutEmbedding, Kind: schema.KindEmbedding, Doc: "Z (rows×dim), info"}},
		Run:     learnRunEmbed,
	}
}

func learnRunEmbed(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	dim, method, level := p.Int("dim"), p.String("method"), p.String("level")
	if dim < 1 || dim > 4096 {
		return nil, fmt.Errorf("embed: dim = %d, want 1..4096", dim)
	}
	var feats, graph *bundle.Bundle
	if in, err := inputBundles(job, "features"); err != nil {
		return nil, err
	} else if len(in) == 1 {
		feats = in[0]
	}
	if in, err := inputBundles(job, "graph"); err != nil {
		return nil, err
	} else if len(in) == 1 {
		graph = in[0]
	}
	var z *mat.Dense
	switch method {
	case "pretrained":
		if graph == nil {
			return nil, errors.New("embed: method pretrained needs the graph input")
		}
		adj, err := learnRawAdjacency(graph)
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		z, _, err = hyla.EmbedPoincare(ctx, adj, dim, hyla.EmbedOptions{Epochs: p.Int("epochs"), LR: p.Float("lr"),
			Negatives: p.Int("negatives"), Seed: job.Seed,
			Progress: func(epoch int, loss float64) {
				job.Progress.Report(epoch+1, p.Int("epochs"), fmt.Sprintf("epoch %d loss %.4f", epoch, loss))
			}})
		if err != nil {
			return nil, learnDiverged(fmt.Errorf("embed: %w", err), p, "lr")
		}
	default:
		rows, err := learnEmbedRows(level, feats, graph)
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		scale := p.Float("init_scale")
		if !(scale >= 0) || scale >= 1 {
			return nil, fmt.Errorf("embed: init_scale = %v, want 0 ≤ init_scale < 1", scale)
		}
		z = mat.NewDense(rows, dim, nil)
		for i, raw := 0, z.RawMatrix().Data; i < len(raw); i++ {
			raw[i] = scale * (2*job.RNG.Float64() - 1)
		}
	}
	a := bundle.New(schema.KindEmbedding)
	a.SetDense(schema.MemberZ, z)
	r, _ := z.Dims()
	if err := a.SetJSON(schema.MemberInfo, map[string]any{"method": method, "level": level, "dim": dim, "rows": r}); err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{learnOutEmbedding: a}, ctx.Err()
}

func learnEmbedRows(level string, feats, graph *bundle.Bundle) (int, error) {
	if feats != nil {
		labels, err := feats.Ints(schema.MemberLabels)
		if err != nil {
			return 0, err
		}
		if level == "nodes" {
			return len(labels), nil
		}
		c, err := featuresCols(feats)
		if err != nil {
			return 0, fmt.Errorf("level features needs X in the features input: %w", err)
		}
		return c, nil
	}
	if graph != nil {
		if level == "nodes" {
			labels, err := graph.Ints(schema.MemberLabels)
			return len(labels), err
		}
		x, err := dataDenseFeatures(graph)
		if err != nil {
			return 0, err
		}
		_, c := x.Dims()
		return c, nil
	}
	return 0, errors.New("connect the features or the graph input")
}

// learnRawAdjacency returns the graph's adjacency without normalisation.
func learnRawAdjacency(g *bundle.Bundle) (*sparse.CSR, error) {
	info, err := dataInfo(g)
	if err != nil {
		return nil, err
	}
	if info.Normalization == "none" {
		return g.Sparse(schema.MemberAdj)
	}
	if g.Has(dataMemberAdjRaw) {
		return g.Sparse(dataMemberAdjRaw)
	}
	return nil, fmt.Errorf("graph %s is normalised (%s) and has no raw adjacency", info.Name, info.Normalization)
}

// ---------------------------------------------------------------- train

func learnTrainType() *registry.Type {
	return &registry.Type{
		Name: "train",
		// The factored X (precompute version 3) rounds the text models'
		// products differently; their keys changed with the precompute's,
		// and a dense X trains as before, so that did not bump the version.
		Version: "4", // 2: fused AVX-512 classifier kernels and blocked cross-entropy round differently; 3: common random numbers: draws from the seed and the stage type, not the cache key; 4: metrics test_last, val_last and protocol (learnProtocols)
		Doc: "Trains HyLa-SGC, RFF-SGC or SGC. level features: Z has one row per input feature and " +
			"logits = (S^K X)·(φ(Z)·W) + b on the rows each step needs (inductive when the features input has " +
			"X_train: train on S_train^K X_train, evaluate on S^K X); level nodes: Z has one row per node and " +
			"logits = S^K·(φ(Z)·W) + b by K sparse products. Each epoch: one full-batch step (Adam on W, b; " +
			"Riemannian SGD on the Poincaré ball for hyla, SGD or Adam (optimizer_embedding) for rff), then train and validation metrics. " +
			"Reports the test metric after the last epoch (the paper's number) and at the best-validation epoch. " +
			"Everything float64 and bit-deterministic for a seed and any thread count.",
		Params: []registry.Param{
			{Name: "model", Type: registry.String, Default: "hyla", Enum: []string{"hyla", "rff", "sgc"}, Doc: "hyla and rff need the samples input; sgc trains W on S^K X"},
			{Name: "level", Type: registry.String, Default: "features", Enum: []string{"features", "nodes"}, Doc: "feature-level or node-level embedding (match the precompute)"},
			{Name: "lr_embedding", Type: registry.Float, Range: registry.AtLeast(0), Default: 0.1, Doc: "learning rate of Z (the official lr_e)"},
			{Name: "lr_classifier", Type: registry.Float, Range: registry.Above(0), Default: 0.01, Doc: "learning rate of W and b (the official lr_c)"},
			{Name: "epochs", Type: registry.Int, Range: registry.Between(1, 1_000_000), Default: 100, Doc: "maximum number of epochs"},
			{Name: "early_stopping", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "stop after this many epochs without a better validation metric (0 = off, as for the paper's tables)"},
			{Name: "optimizer", Type: registry.String, Default: "adam", Enum: []string{"adam", "sgd", "lbfgs"}, Doc: "classifier optimiser: Adam with PyTorch's defaults, SGD, or (model sgc) L-BFGS with torch.optim.LBFGS's rules at lr_classifier, one step of up to 20 iterations per epoch and ½·weight_decay·‖W‖² in the loss, as Wu et al.'s TextSGC (3 epochs, rate 1)"},
			{Name: "optimizer_embedding", Type: registry.String, Default: "auto", Enum: []string{"auto", "sgd", "adam"},
				Doc: "optimiser of Z: auto/sgd = Riemannian SGD (hyla) or SGD (rff), as the official node-classification code; " +
					"adam = Adam with PyTorch's defaults at lr_embedding (rff only), as the official text code trains its Euclidean embedding"},
			{Name: "weight_decay", Type: registry.Float, Range: registry.AtLeast(0), Default: 0.0, Doc: "classifier L2 weight decay"},
			{Name: "init_scale", Type: registry.Float, Range: registry.Above(0).Below(1), Default: 1e-4, Doc: "Z starts uniform in [−init_scale, init_scale] unless the embedding input is connected"},
			{Name: "metric", Type: registry.String, Default: "auto", Enum: []string{"auto", "accuracy", "micro_f1"}, Doc: "auto: the metric the dataset's papers report (its catalogue entry: micro_f1 for reddit), accuracy otherwise"},
			{Name: "k", Type: registry.Int, Range: registry.Between(-1, 64), Default: -1, Doc: "level nodes: propagation steps; -1 takes K from the precompute"},
			{Name: "label", Type: registry.String, Default: "", Doc: "model name in reports (default hyla-sgc, rff-sgc or sgc)"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the initialisation of Z and W"},
		},
		Inputs: []registry.Input{
			{Name: "features", Kind: schema.KindFeatures, Doc: "from a precompute stage"},
			{Name: "samples", Kind: schema.KindSamples, Optional: true, Doc: "from a sample stage (hyla, rff)"},
			{Name: "embedding", Kind: schema.KindEmbedding, Optional: true, Doc: "initial Z from an embed stage"},
		},
		// metrics comes first: a reference to a train instance without an
		// output name (e.g. runs = stage.train.cora) means its metrics.
		Outputs: []registry.Output{
			{Name: learnOutMetrics, Kind: schema.KindMetrics, Doc: "metrics: test, val, train (last epoch), test_best_val, …, dataset, model"},
			{Name: learnOutModel, Kind: schema.KindModel, Doc: "Z, W, bias (last epoch), Z_best, W_best, bias_best, curves"},
		},
		Run:              learnRunTrain,
		CheckConnections: learnTrainCheckConnections,
		EstimateMem:      memTrain,
	}
}

// learnMetrics is the metrics member of the train stage's metrics output.
// Metric values are fractions in [0, 1].
type learnMetrics struct {
	Dataset      string  `json:"dataset"`
	Model        string  `json:"model"`
	Level        string  `json:"level"`
	Metric       string  `json:"metric"`
	Seed         int     `json:"seed"`
	Test         float64 `json:"test"`
	Val          float64 `json:"val"`
	Train        float64 `json:"train"`
	TestLast     float64 `json:"test_last"`
	ValLast      float64 `json:"val_last"`
	Protocol     string  `json:"protocol"` // what test, val and train are: learnProtocolLast
	TestBestVal  float64 `json:"test_best_val"`
	ValBest      float64 `json:"val_best"`
	TrainBestVal float64 `json:"train_best_val"`
	BestEpoch    int     `json:"best_epoch"`
	Epochs       int     `json:"epochs"`
	StoppedEarly bool    `json:"stopped_early"`
	FinalLoss    float64 `json:"final_loss"`
	Features     int     `json:"features"`
	Dim          int     `json:"dim"`
	K            int     `json:"k,omitempty"`
}

func learnRunTrain(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	in, err := dataOneInput(job, "features")
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	var info schema.GraphInfo
	if err := in.JSON(schema.MemberInfo, &info); err != nil {
		return nil, fmt.Errorf("train: features input: %w", err)
	}
	model, level := train.Model(p.String("model")), train.Level(p.String("level"))
	data := &train.Data{Classes: info.Classes, Binary: info.Binary}
	for _, m := range []struct {
		name string
		dst  *[]int
	}{{schema.MemberLabels, &data.Labels}, {schema.MemberTrain, &data.Train}, {schema.MemberVal, &data.Val}, {schema.MemberTest, &data.Test}} {
		v, err := in.Ints(m.name)
		if err != nil {
			return nil, fmt.Errorf("train: features input of %s: %w (connect a split to the precompute)", info.Name, err)
		}
		*m.dst = v
	}
	switch level {
	case train.LevelFeatures:
		if data.Factored, err = featuresFactored(in); err != nil {
			return nil, fmt.Errorf("train: level features: factored X: %w", err)
		}
		if rows, ok := in.DenseRows(schema.MemberX); ok && data.Factored == nil {
			// X is mostly zeros (the inductive text models' TF-IDF rows):
			// the trainer multiplies through its non-zeros, X is never
			// expanded.
			data.XRows = rows
		} else if data.Factored == nil {
			if data.X, err = in.Dense(schema.MemberX); err != nil {
				return nil, fmt.Errorf("train: level features: %w (precompute with level = \"features\")", err)
			}
		}
		if in.Has(schema.MemberXTrain) {
			if data.XTrain, err = in.Dense(schema.MemberXTrain); err != nil {
				return nil, fmt.Errorf("train: %w", err)
			}
		}
	case train.LevelNodes:
		if data.S, err = in.Sparse(schema.MemberS); err != nil {
			return nil, fmt.Errorf("train: level nodes: %w (precompute with level = \"nodes\")", err)
		}
		if data.K, err = learnNodeK(ctx, in, data.S, p.Int("k")); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	var (
		fm    hyla.FeatureMap
		sinfo schema.SamplesInfo
	)
	if model != train.ModelSGC {
		s, err := inputBundles(job, "samples")
		if err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		if len(s) != 1 {
			return nil, fmt.Errorf("train: model %s needs the samples input (a sample stage with kind = %q)", model, model)
		}
		if fm, sinfo, err = learnSamples(s[0]); err != nil {
			return nil, fmt.Errorf("train: samples input: %w", err)
		}
		if sinfo.Kind != string(model) {
			return nil, fmt.Errorf("train: model %s with samples of kind %s", model, sinfo.Kind)
		}
	}
	var z0 *mat.Dense
	e, err := inputBundles(job, "embedding")
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	if len(e) == 1 {
		if model == train.ModelSGC {
			return nil, errors.New("train: model sgc has no embedding; disconnect the embedding input")
		}
		if z0, err = e[0].Dense(schema.MemberZ); err != nil {
			return nil, fmt.Errorf("train: embedding input: %w", err)
		}
	}
	metric := p.String("metric")
	if metric == "auto" {
		metric = train.MetricAccuracy // the dataset's (its catalogue entry's Meta)
		if datasets.MetaOf(info.Name).Metric == datasets.MetricMicroF1 {
			metric = train.MetricMicroF1
		}
	}
	epochs := p.Int("epochs")
	if epochs < 1 || epochs > 1_000_000 {
		return nil, fmt.Errorf("train: epochs = %d, want 1..1000000", epochs)
	}
	for _, name := range []string{"lr_embedding", "lr_classifier", "weight_decay"} {
		if v := p.Float(name); !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("train: %s = %v, want a finite value ≥ 0", name, v)
		}
	}
	initScale := p.Float("init_scale")
	if !(initScale > 0) || initScale >= 1 {
		return nil, fmt.Errorf("train: init_scale = %v, want 0 < init_scale < 1", initScale)
	}
	label := p.String("label")
	if label == "" {
		label = map[train.Model]string{train.ModelHyLa: "hyla-sgc", train.ModelRFF: "rff-sgc", train.ModelSGC: "sgc"}[model]
	}
	cfg := train.Config{
		Model: model, Level: level, Epochs: epochs,
		LREmbedding: p.Float("lr_embedding"), LRClassifier: p.Float("lr_classifier"),
		Optimizer: p.String("optimizer"), EmbeddingOptimizer: p.String("optimizer_embedding"), WeightDecay: p.Float("weight_decay"),
		Patience: p.Int("early_stopping"), InitScale: initScale, Metric: metric, Workers: max(job.Workers, 1),
		Progress: func(s train.EpochStats) {
			job.Progress.Report(s.Epoch+1, epochs, fmt.Sprintf("epoch %d loss %.4f train %.4f val %.4f", s.Epoch, s.Loss, s.Train, s.Val))
		},
	}
	start := time.Now()
	res, err := train.Run(ctx, data, fm, z0, cfg, rand.New(rand.NewPCG(job.RNG.Uint64(), job.RNG.Uint64())))
	if err != nil {
		lrs := []string{"lr_classifier", "lr_embedding"}
		if model == "sgc" {
			lrs = lrs[:1]
		}
		return nil, learnDiverged(fmt.Errorf("train %s/%s on %s: %w", model, level, info.Name, err), p, lrs...)
	}
	elapsed := time.Since(start)
	job.Logf("%s %s on %s: test %.4f (last epoch), %.4f (best val, epoch %d); %d epochs, %.2f ms/epoch",
		label, level, info.Name, res.Test, res.BestTest, res.BestEpoch, res.Epochs,
		float64(elapsed.Microseconds())/1000/float64(res.Epochs))

	mod := bundle.New(schema.KindModel)
	if res.Z != nil {
		mod.SetDense(schema.MemberZ, res.Z)
		mod.SetDense(learnMemberZBest, res.BestZ)
	}
	mod.SetDense(schema.MemberW, res.W)
	mod.SetFloats(schema.MemberBias, res.Bias)
	mod.SetDense(learnMemberWBest, res.BestW)
	mod.SetFloats(learnMemberBiasBest, res.BestBias)
	if err := mod.SetJSON(schema.MemberCurves, res.Curves); err != nil {
		return nil, err
	}
	m := learnMetrics{
		Dataset: info.Name, Model: label, Level: string(level), Metric: metric, Seed: p.Int("seed"),
		Test: res.Test, Val: res.Val, Train: res.Train, TestLast: res.Test, ValLast: res.Val, Protocol: learnProtocolLast,
		TestBestVal: res.BestTest, ValBest: res.BestVal, TrainBestVal: res.BestTrain, BestEpoch: res.BestEpoch,
		Epochs: res.Epochs, StoppedEarly: res.StoppedEarly, FinalLoss: res.Curves[len(res.Curves)-1].Loss,
		Features: sinfo.Features, Dim: sinfo.Dim,
	}
	if level == train.LevelNodes {
		m.K = data.K
	}
	met := bundle.New(schema.KindMetrics)
	if err := met.SetJSON(schema.MemberMetrics, m); err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{learnOutModel: mod, learnOutMetrics: met}, nil
}

// learnNodeK returns the number of propagation steps of a node-level
// precompute: the k parameter when set, else K as the precompute recorded
// it in its "precompute" member. Artifacts of older precomputes store S and
// SK = S^K but not K; for them K is the smallest k ≤ 64 with S^k·v = SK·v for a fixed
// pseudo-random probe vector v (relative error ≤ 1e−9), which identifies
// S^K (equal products for two k mean equal operators on v's span, and then
// any of them gives the same logits up to rounding).
func learnNodeK(ctx context.Context, in *bundle.Bundle, s *sparse.CSR, k int) (int, error) {
	if k >= 0 {
		return k, nil
	}
	if in.Has(dataMemberPrecompute) {
		var pi dataPrecomputeInfo
		if err := in.JSON(dataMemberPrecompute, &pi); err != nil {
			return 0, err
		}
		return pi.K, nil
	}
	if !in.Has(dataMemberSK) {
		return 0, errors.New("level nodes: the features input has no SK member; set k")
	}
	sk, err := in.Sparse(dataMemberSK)
	if err != nil {
		return 0, err
	}
	n := s.Rows
	if n == 0 {
		return 0, errors.New("level nodes: empty graph")
	}
	rng := rand.New(rand.NewPCG(0x5eed, 0x4b))
	v := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		v.Set(i, 0, rng.Float64()-0.5)
	}
	want, err := sparse.MulDense(ctx, sk, v, 1)
	if err != nil {
		return 0, err
	}
	norm := mat.Norm(want, 2)
	cur := mat.DenseCopyOf(v)
	for step := 0; step <= 64; step++ {
		var diff mat.Dense
		diff.Sub(cur, want)
		if mat.Norm(&diff, 2) <= 1e-9*math.Max(norm, 1e-300) {
			return step, nil
		}
		if cur, err = sparse.MulDense(ctx, s, cur, 1); err != nil {
			return 0, err
		}
	}
	return 0, errors.New("level nodes: SK is not a power S^k (k ≤ 64) of S; set k")
}

// learnTrainCheckConnections checks a train instance against its inputs'
// producers, so that validate refuses what would fail at run time: hyla
// and rff need samples (of their kind), the samples' d0 is the initial
// embedding's, and the level is the precompute's.
func learnTrainCheckConnections(p registry.Values, inputs map[string][]registry.InputInfo) []registry.Problem {
	var out []registry.Problem
	model, level := p.String("model"), p.String("level")
	samples := inputs["samples"]
	switch {
	case model != "sgc" && len(samples) == 0:
		out = append(out, registry.Problemf("model", "Missing samples",
			"model %q trains on random features and needs the samples input: samples = stage.sample.NAME (kind = %q).", model, model))
	case model == "sgc" && len(samples) > 0:
		pr := registry.Problemf("samples", "Unused samples",
			"model \"sgc\" uses no random features; remove samples (%s) or set model = %q.", samples[0].Address, samples[0].Params.String("kind"))
		pr.Warning = true
		out = append(out, pr)
	}
	for _, s := range samples {
		if s.Type != "sample" {
			continue
		}
		if k := s.Params.String("kind"); model != "sgc" && k != model {
			out = append(out, registry.Problemf("samples", "Samples of another kind",
				"%s draws %s samples, but model is %q.", s.Address, k, model))
		}
		for _, e := range inputs["embedding"] {
			if e.Type == "embed" && e.Params.Int("dim") != s.Params.Int("dim") {
				out = append(out, registry.Problemf("embedding", "Dimensions differ",
					"the initial embedding (%s) has dim = %d, the samples (%s) dim = %d: d0 must be the same.",
					e.Address, e.Params.Int("dim"), s.Address, s.Params.Int("dim")))
			}
		}
	}
	for _, f := range inputs["features"] {
		if f.Type == "precompute" && f.Params.String("level") != level {
			out = append(out, registry.Problemf("level", "Level differs from the precompute's",
				"level = %q, but %s precomputes level %q: set the same level on both.", level, f.Address, f.Params.String("level")))
		}
	}
	for _, e := range inputs["embedding"] {
		if e.Type == "embed" && e.Params.String("level") != level {
			out = append(out, registry.Problemf("level", "Level differs from the embedding's",
				"level = %q, but the initial embedding %s has level %q.", level, e.Address, e.Params.String("level")))
		}
	}
	return out
}

// The protocols a training stage's test, val and train metrics follow
// (its metrics' "protocol"): the last epoch's model (HyLa's tables), or
// the model of the best validation epoch (the baselines' early stopping).
// Every training stage also reports the protocol-named metrics with the
// same meaning whatever the stage: test_last and val_last (the last
// epoch), test_best_val and val_best (the best validation epoch).
const (
	learnProtocolLast    = "last"
	learnProtocolBestVal = "best_val"
)

// learnDiverged adds to a training error that reports divergence (a loss
// that stopped being finite or exploded, a parameter or gradient that
// did: nn.DivergedError, hgcn.DivergedError, hyla.EmbedDivergedError,
// train.ErrNonFinite) the stage's learning rates, the parameters to
// lower, with their values;
// other errors pass unchanged. names, when given, are the learning rates
// that apply (else every parameter named lr or lr_*). The error fails the
// stage, so nothing of the diverged run is stored.
func learnDiverged(err error, p registry.Values, names ...string) error {
	var nd *nn.DivergedError
	var hd *hgcn.DivergedError
	var ed *hyla.EmbedDivergedError
	if err == nil || !errors.As(err, &nd) && !errors.As(err, &hd) && !errors.As(err, &ed) && !errors.Is(err, train.ErrNonFinite) {
		return err
	}
	lrs := slices.Clone(names)
	for name := range p {
		if len(names) == 0 && (name == "lr" || strings.HasPrefix(name, "lr_")) {
			lrs = append(lrs, name)
		}
	}
	slices.Sort(lrs)
	for i, name := range lrs {
		lrs[i] = fmt.Sprintf("%s (%g)", name, p.Float(name))
	}
	if len(lrs) == 0 {
		return fmt.Errorf("%w; nothing is stored", err)
	}
	return fmt.Errorf("%w; nothing is stored: lower %s", err, strings.Join(lrs, " or "))
}
