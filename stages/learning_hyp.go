package stages

import (
	"context"
	"fmt"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/nn/hgcn"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

// ---------------------------------------------------------------- hnn, hgcn, linkpred
//
// The hyperbolic baselines of the paper's Table 1 (package nn/hgcn, HGCN's
// public code): hnn and hgcn classify nodes and write metrics the evaluate
// stage reads like gcn's; linkpred trains HGCN's encoder on HGCN's
// link-prediction task and writes its embeddings, which an hgcn stage
// classifies with HGCN's Shallow classifier (HGCN's two-step protocol on
// Cora and Pubmed). Every stage preprocesses as HGCN does: the propagation
// matrix is D^-1 (A+I) built from the raw adjacency (of a dataset stage, or
// the adj_raw a normalize stage keeps); features are used as given (connect
// a normalize stage with features = "row" for HGCN's normalize-feats).

func registerHyp(r *registry.Registry) error {
	for _, t := range []*registry.Type{hypNCType("hnn"), hypNCType("hgcn"), hypNCType("lgcn"), hypLPType()} {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// hypModelParams are the encoder's parameters, HGCN's flags.
func hypModelParams(act string, dropout float64) []registry.Param {
	return []registry.Param{
		{Name: "dim", Type: registry.Int, Range: registry.Between(1, 4096), Default: 16, Doc: "embedding dimension (HGCN's --dim; the paper: 16)"},
		{Name: "layers", Type: registry.Int, Range: registry.Between(2, 16), Default: 2, Doc: "HGCN's --num-layers: node classification has layers−1 hyperbolic layers and the linear decoder, link prediction layers hyperbolic layers"},
		{Name: "act", Type: registry.String, Default: act, Enum: []string{"relu", "elu", "tanh", "none"}, Doc: "activation in the tangent space (HGCN's --act)"},
		{Name: "dropout", Type: registry.Float, Range: registry.AtLeast(0).Below(1), Default: dropout, Doc: "dropout on the hyperbolic layers' weights and the decoder's output (HGCN's --dropout)"},
		{Name: "bias", Type: registry.Bool, Default: true, Doc: "Möbius biases and the decoder's bias (HGCN's --bias)"},
		{Name: "c", Type: registry.Float, Range: registry.Above(0), Default: 1.0, Doc: "curvature −c of the ball (HGCN's --c); with learn_c its initial value"},
		{Name: "learn_c", Type: registry.Bool, Default: false, Doc: "train the last curvature, as HGCN's --c None (its other curvatures stay at 1: HGCN never registers them with the optimiser)"},
	}
}

// hypTrainParams are the optimiser's and the protocol's.
func hypTrainParams(lr, wd float64, epochs int) []registry.Param {
	return []registry.Param{
		{Name: "lr", Type: registry.Float, Range: registry.Above(0), Default: lr, Doc: "Adam learning rate"},
		{Name: "weight_decay", Type: registry.Float, Range: registry.AtLeast(0), Default: wd, Doc: "Adam's weight decay on every parameter (HGCN's --weight-decay)"},
		{Name: "epochs", Type: registry.Int, Range: registry.Between(1, 1_000_000), Default: epochs, Doc: "maximum number of epochs"},
		{Name: "patience", Type: registry.Int, Range: registry.AtLeast(0), Default: 100, Doc: "stop after this many epochs without a better validation metric (HGCN: 100); 0 = never"},
		{Name: "min_epochs", Type: registry.Int, Range: registry.AtLeast(0), Default: 100, Doc: "never stop early before this epoch (HGCN's --min-epochs)"},
		{Name: "label", Type: registry.String, Default: "", Doc: "model name in reports (default the stage type; hgcn with use_att: \"hgcn (att)\")"},
		{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the initialisation (stream init), the dropout masks (stream dropout) and, for linkpred, the edge split and negatives (streams edge-split, negatives)"},
	}
}

func hypNCType(kind string) *registry.Type {
	params := append(hypModelParams(map[string]string{"hnn": "none", "hgcn": "relu", "lgcn": "relu"}[kind], map[string]float64{"hnn": 0.5}[kind]),
		hypTrainParams(0.01, 0, 100)...)
	params = append(params, registry.Param{Name: "select", Type: registry.String, Default: "accuracy", Enum: []string{"accuracy", "f1"},
		Doc: "validation metric that picks the reported epoch: accuracy (the paper's protocol), or f1 (HGCN's code: binary F1 with two classes, else accuracy)"})
	inputs := []registry.Input{
		{Name: "graph", Kind: schema.KindGraph, Doc: "graph with node features (a dataset stage, or a normalize stage whose adj_raw is used)"},
		{Name: "split", Kind: schema.KindSplit, Optional: true, Doc: "split (default: the graph's own)"},
	}
	doc := "Trains HNN (Ganea et al. 2018) as HGCN's code: the features mapped onto the Poincaré ball, layers−1 " +
		"hyperbolic layers (Möbius matrix product with dropout on the weight, Möbius bias, activation in the tangent " +
		"space), then log map at the origin and a linear decoder. Defaults from HGCN's README command for Pubmed: " +
		"dim 16, act none, dropout 0.5, lr 0.01, no weight decay, c = 1."
	if kind == "lgcn" {
		doc = "Trains LGCN (Zhang et al. 2021, Lorentzian GCN) as its public code: the features mapped onto the " +
			"hyperboloid −x₀² + ‖x_{1:}‖² = −β (β = c), layers−1 Lorentzian graph convolutions (LorentzLinear: log map " +
			"at the origin, weight with dropout on its entries and bias on the space part, exp map back; the Lorentzian " +
			"centroid of the neighbourhood under D^-1(A+I); the activation in the tangent space onto the next " +
			"curvature), then log map and a linear decoder; dim counts the time coordinate. LGCN's README gives no " +
			"node-classification command: defaults as hgcn's (relu, lr 0.01, no dropout or weight decay, c = 1)."
	}
	if kind == "hgcn" {
		// Added after table1's keys were in use: out of the key while
		// false, so every existing hgcn instance keeps its key.
		params = append(params, registry.Param{Name: "use_att", Type: registry.Bool, Default: false, KeyOmitDefault: true,
			Doc: "HGCN's --use-att: aggregation weighted by attention in the tangent space at the origin (DenseAtt: entry (i, j) " +
				"of D^-1(A+I) times σ(a·[t_i, t_j] + b), not renormalised; a Linear(2·dim → 1) per layer); not with the embeddings input"})
		inputs = append(inputs, registry.Input{Name: "embeddings", Kind: schema.KindEmbedding, Optional: true,
			Doc: "pretrained embeddings from a linkpred stage: then the model is HGCN's Shallow classifier on them (HGCN's protocol on Cora and Pubmed)"})
		doc = "Trains HGCN (Chami et al. 2019) as its public code: the features mapped onto the Poincaré ball, layers−1 " +
			"hyperbolic graph convolutions (Möbius matrix product with dropout on the weight, Möbius bias, aggregation " +
			"D^-1(A+I) in the tangent space at the origin, activation onto the next curvature), then log map and a linear " +
			"decoder; learn_c trains the last curvature. Defaults from HGCN's README command for Disease: dim 16, relu, " +
			"no dropout or weight decay, lr 0.01, c = 1. With the embeddings input it is HGCN's Shallow classifier instead " +
			"(Linear(dim→dim)+act, then the linear decoder, on the fixed embeddings; README for Pubmed: dropout 0.2, " +
			"weight decay 5e-4). Reports the test accuracy of the epoch with the best validation metric."
	}
	return &registry.Type{
		Name:    kind,
		Version: "3", // 2: the hyperbolic maps are fused tape operations (nn/manifold/fused*.go): the same values, gradients summed in another order, so other bits; 3: metrics test_best_val, val_best and protocol
		Doc:     doc,
		Params:  params,
		Inputs:  inputs,
		Outputs: []registry.Output{
			{Name: learnOutMetrics, Kind: schema.KindMetrics, Doc: "metrics: test (accuracy of the selected epoch), val, train, test_f1, val_f1, test_last, stop_epoch, epochs, c, dataset, model"},
			{Name: learnOutModel, Kind: schema.KindModel, Doc: "the selected epoch's parameters (one dense member each), embeddings and curves"},
		},
		Run:         hypNCRun(kind),
		EstimateMem: memHyp,
	}
}

func hypLPType() *registry.Type {
	params := append(hypModelParams("relu", 0), hypTrainParams(0.01, 0, 5000)...)
	params = append(params,
		registry.Param{Name: "model", Type: registry.String, Default: "hgcn", Enum: []string{"hgcn", "hnn", "lgcn"},
			Doc: "encoder: HGCN's or HNN's on the Poincaré ball, or LGCN's on the hyperboloid (then the decoder reads LGCN's squared Lorentzian distance −2(c + ⟨x, y⟩_L); LGCN's README command for Pubmed: dim 64, lr 0.005, dropout 0.5, learn_c)"},
		registry.Param{Name: "val_prop", Type: registry.Float, Range: registry.AtLeast(0).Below(1), Default: 0.05, Doc: "fraction of the edges held out for validation (HGCN: 0.05)"},
		registry.Param{Name: "test_prop", Type: registry.Float, Range: registry.AtLeast(0).Below(1), Default: 0.10, Doc: "fraction held out for test (HGCN: 0.10)"},
		registry.Param{Name: "r", Type: registry.Float, Range: registry.Between(-1e6, 1e6), Default: 2.0, Doc: "Fermi-Dirac decoder's r: p = 1/(exp((d² − r)/t) + 1)"},
		registry.Param{Name: "t", Type: registry.Float, Range: registry.Above(0), Default: 1.0, Doc: "Fermi-Dirac decoder's t"},
	)
	return &registry.Type{
		Name:    "linkpred",
		Version: "2", // 2: as hnn/hgcn/lgcn, fused hyperbolic maps (other bits)
		Doc: "HGCN's link-prediction task: the edges split 85/5/10 (train/val/test, shuffled with the seed; as many " +
			"negative pairs as positives for val and test, uniform non-edges), HGCN's, HNN's or LGCN's encoder on the training " +
			"edges' graph, squared hyperbolic distances through the Fermi-Dirac decoder, binary cross-entropy against as " +
			"many fresh negatives per epoch; the epoch with the best validation (ROC-AUC + AP)/2 is kept (HGCN's rule, " +
			"patience 100 after 100 epochs). Writes ROC-AUC and AP and that epoch's embeddings, which an hgcn stage " +
			"classifies (HGCN's protocol on Cora and Pubmed) — cached once and shared by every seed downstream.",
		Params: params,
		Inputs: []registry.Input{{Name: "graph", Kind: schema.KindGraph, Doc: "graph with node features (a dataset stage, or a normalize stage whose adj_raw is used)"}},
		Outputs: []registry.Output{
			{Name: learnOutMetrics, Kind: schema.KindMetrics, Doc: "metrics: test_roc, test_ap, val_roc, val_ap (test = test_roc), stop_epoch, epochs, c, edges"},
			{Name: learnOutEmbedding, Kind: schema.KindEmbedding, Doc: "Z: the selected epoch's embeddings (points of the ball of curvature c; with model lgcn, of the hyperboloid), info"},
		},
		Run:         hypLPRun,
		EstimateMem: memLinkPred,
	}
}

// hypGraph reads the raw adjacency, the features and the labels.
func hypGraph(job *registry.Job) (*bundle.Bundle, schema.GraphInfo, *sparse.CSR, *sparse.CSR, error) {
	in, err := dataOneInput(job, "graph")
	if err != nil {
		return nil, schema.GraphInfo{}, nil, nil, err
	}
	info, err := dataInfo(in)
	if err != nil {
		return nil, info, nil, nil, fmt.Errorf("graph input: %w", err)
	}
	member := schema.MemberAdj
	if info.Normalization != "none" && info.Normalization != "" {
		member = dataMemberAdjRaw
	}
	adj, err := in.Sparse(member)
	if err != nil {
		return nil, info, nil, nil, fmt.Errorf("graph %s (%s): %w", info.Name, info.Normalization, err)
	}
	v, ok := in.Member(schema.MemberFeatures)
	if !ok {
		return nil, info, nil, nil, fmt.Errorf("graph %s has no node features (load it with identity_features = true)", info.Name)
	}
	var x *sparse.CSR
	switch f := v.(type) {
	case *sparse.CSR:
		x = f
	case *mat.Dense:
		x = sparse.FromDense(f)
	default:
		return nil, info, nil, nil, fmt.Errorf("graph %s: features member is %T, want a dense or sparse matrix", info.Name, v)
	}
	if x.Rows != adj.Rows {
		return nil, info, nil, nil, fmt.Errorf("graph %s: %d feature rows for %d nodes", info.Name, x.Rows, adj.Rows)
	}
	return in, info, adj, x, nil
}

func hypConfig(job *registry.Job, kind string, x, a *sparse.CSR) hgcn.Config {
	p := job.Params
	return hgcn.Config{Kind: kind, Dim: p.Int("dim"), Layers: p.Int("layers"), Act: p.String("act"),
		Dropout: p.Float("dropout"), Bias: p.Bool("bias"), C: p.Float("c"), LearnC: p.Bool("learn_c"), Input: x, Adj: a}
}

// hypFail names the stage and dataset in a training error; a divergence
// (hgcn.DivergedError) already names the epoch and the parameter, and no
// artifact is written.
func hypFail(kind, dataset string, err error) error {
	return fmt.Errorf("%s on %s: %w", kind, dataset, err)
}

func hypNCRun(kind string) registry.RunFunc {
	return func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
		p := job.Params
		in, info, adj, x, err := hypGraph(job)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		s := &hgcn.Split{Classes: max(info.Classes, 2)}
		if s.Labels, err = in.Ints(schema.MemberLabels); err != nil {
			return nil, fmt.Errorf("%s: graph %s: %w", kind, info.Name, err)
		}
		src := in
		sp, err := inputBundles(job, "split")
		if err != nil {
			return nil, err
		}
		if len(sp) == 1 && sp[0] != nil {
			src = sp[0]
		}
		for _, m := range []struct {
			name string
			dst  *[]int
		}{{schema.MemberTrain, &s.Train}, {schema.MemberVal, &s.Val}, {schema.MemberTest, &s.Test}} {
			if *m.dst, err = src.Ints(m.name); err != nil {
				return nil, fmt.Errorf("%s: graph %s: %w (connect a split)", kind, info.Name, err)
			}
		}
		model := kind
		if kind == "hgcn" {
			emb, err := inputBundles(job, "embeddings")
			if err != nil {
				return nil, err
			}
			if len(emb) == 1 && emb[0] != nil {
				z, err := emb[0].Dense(schema.MemberZ)
				if err != nil {
					return nil, fmt.Errorf("hgcn: embeddings input: %w", err)
				}
				if r, _ := z.Dims(); r != adj.Rows {
					return nil, fmt.Errorf("hgcn: %d embeddings for the %d nodes of %s (pretrained on another graph?)", r, adj.Rows, info.Name)
				}
				x, model = sparse.FromDense(z), "shallow"
			}
		}
		att := kind == "hgcn" && p.Bool("use_att")
		if att && model == "shallow" {
			return nil, fmt.Errorf("hgcn: use_att is HGCN's aggregation, and with the embeddings input the model is the Shallow classifier, which has none")
		}
		a, err := hgcn.RowNormalizeSelfLoops(adj)
		if err != nil {
			return nil, fmt.Errorf("%s: graph %s: %w", kind, info.Name, err)
		}
		cfg := hypConfig(job, model, x, a)
		cfg.Classes = s.Classes
		cfg.Att = att
		net, err := hgcn.New(cfg, job.Stream("init"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		epochs := p.Int("epochs")
		tc := hgcn.TrainConfig{Epochs: epochs, LR: p.Float("lr"), WeightDecay: p.Float("weight_decay"), Select: p.String("select"),
			Patience: p.Int("patience"), MinEpochs: p.Int("min_epochs"), Workers: max(job.Workers, 1),
			Progress: func(st hgcn.EpochStats) {
				job.Progress.Report(st.Epoch+1, epochs, fmt.Sprintf("epoch %d loss %.4f train %.4f val %.4f", st.Epoch, st.Loss, st.Train, st.Val))
			}}
		start := time.Now()
		res, err := hgcn.Train(ctx, net, s, adj.Rows, tc, job.Stream("dropout"))
		if err != nil {
			return nil, learnDiverged(hypFail(kind, info.Name, err), p)
		}
		label := p.String("label")
		switch {
		case label == "" && att:
			label = kind + " (att)" // compared with the paper's HGCN, as "hgcn (long)"
		case label == "":
			label = kind
		}
		job.Logf("%s (%s) on %s: test %.4f (epoch %d), %.4f (last); %d epochs, c %.4g, %.2f ms/epoch",
			label, model, info.Name, res.Test, res.StopEpoch, res.TestLast, res.Epochs, res.Curvature,
			float64(time.Since(start).Microseconds())/1000/float64(res.Epochs))
		mod := bundle.New(schema.KindModel)
		for _, prm := range net.Params() {
			mod.SetDense(prm.Name, res.BestParams[prm.Name])
		}
		mod.SetDense(schema.MemberZ, res.Embeddings)
		if err := mod.SetJSON(schema.MemberCurves, res.Curves); err != nil {
			return nil, err
		}
		metrics := map[string]any{
			"dataset": info.Name, "model": label, "metric": "accuracy", "seed": p.Int("seed"), "encoder": model,
			"test": res.Test, "val": res.Val, "train": res.Train, "test_f1": res.TestF1, "val_f1": res.ValF1,
			"stop_epoch": res.StopEpoch, "test_last": res.TestLast, "val_last": res.ValLast, "epochs": res.Epochs,
			"test_best_val": res.Test, "val_best": res.Val, "protocol": learnProtocolBestVal,
			"stopped_early": res.StoppedEarly, "c": res.Curvature, "final_loss": res.Curves[len(res.Curves)-1].Loss,
		}
		if att {
			metrics["attention"] = true // only then: the other runs' metrics stay as they were, byte for byte
		}
		met := bundle.New(schema.KindMetrics)
		if err := met.SetJSON(schema.MemberMetrics, metrics); err != nil {
			return nil, err
		}
		return map[string]artifact.Artifact{learnOutMetrics: met, learnOutModel: mod}, nil
	}
}

func hypLPRun(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	_, info, adj, x, err := hypGraph(job)
	if err != nil {
		return nil, fmt.Errorf("linkpred: %w", err)
	}
	split, err := hgcn.SplitEdges(adj, p.Float("val_prop"), p.Float("test_prop"), job.Stream("edge-split"))
	if err != nil {
		return nil, fmt.Errorf("linkpred on %s: %w", info.Name, err)
	}
	at, err := split.TrainAdjacency()
	if err != nil {
		return nil, fmt.Errorf("linkpred on %s: %w", info.Name, err)
	}
	a, err := hgcn.RowNormalizeSelfLoops(at)
	if err != nil {
		return nil, fmt.Errorf("linkpred on %s: %w", info.Name, err)
	}
	cfg := hypConfig(job, p.String("model"), x, a)
	cfg.LinkPred = true
	net, err := hgcn.New(cfg, job.Stream("init"))
	if err != nil {
		return nil, fmt.Errorf("linkpred: %w", err)
	}
	epochs := p.Int("epochs")
	lc := hgcn.LPConfig{Epochs: epochs, LR: p.Float("lr"), WeightDecay: p.Float("weight_decay"),
		Patience: p.Int("patience"), MinEpochs: p.Int("min_epochs"), Decoder: hgcn.FermiDirac{R: p.Float("r"), T: p.Float("t")},
		Workers: max(job.Workers, 1),
		Progress: func(st hgcn.LPStats) {
			job.Progress.Report(st.Epoch+1, epochs, fmt.Sprintf("epoch %d loss %.4f val roc %.4f ap %.4f", st.Epoch, st.Loss, st.ValROC, st.ValAP))
		}}
	start := time.Now()
	res, err := hgcn.TrainLinkPrediction(ctx, net, split, lc, job.Stream("negatives"), job.Stream("dropout"))
	if err != nil {
		return nil, learnDiverged(hypFail("linkpred", info.Name, err), p)
	}
	job.Logf("linkpred (%s) on %s: test ROC-AUC %.4f AP %.4f (epoch %d of %d), c %.4g, %d/%d/%d edges, %.2f ms/epoch",
		p.String("model"), info.Name, res.TestROC, res.TestAP, res.StopEpoch, res.Epochs, res.Curvature,
		len(split.Train), len(split.Val), len(split.Test), float64(time.Since(start).Microseconds())/1000/float64(res.Epochs))
	space := "poincare"
	if p.String("model") == "lgcn" {
		space = "lorentz" // LGCN's hyperboloid −x₀² + ‖x_{1:}‖² = −c
	}
	emb := bundle.New(schema.KindEmbedding)
	emb.SetDense(schema.MemberZ, res.Embeddings)
	if err := emb.SetJSON(schema.MemberInfo, map[string]any{"dataset": info.Name, "model": p.String("model"),
		"curvature": res.Curvature, "manifold": space, "stop_epoch": res.StopEpoch}); err != nil {
		return nil, err
	}
	met := bundle.New(schema.KindMetrics)
	err = met.SetJSON(schema.MemberMetrics, map[string]any{
		"dataset": info.Name, "model": "linkpred-" + p.String("model"), "metric": "roc_auc", "seed": p.Int("seed"),
		"test": res.TestROC, "test_roc": res.TestROC, "test_ap": res.TestAP, "val_roc": res.ValROC, "val_ap": res.ValAP,
		"stop_epoch": res.StopEpoch, "epochs": res.Epochs, "stopped_early": res.StoppedEarly, "c": res.Curvature,
		"edges_train": len(split.Train), "edges_val": len(split.Val), "edges_test": len(split.Test),
	})
	if err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{learnOutMetrics: met, learnOutEmbedding: emb}, nil
}
