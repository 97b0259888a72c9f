package stages

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/nn/gnn"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

// ---------------------------------------------------------------- gcn, gat
//
// The paper's Table 1 baselines as stage types. Both read a normalised graph
// (a normalize stage: S = D^-1/2 (A+I) D^-1/2 and the node features) and a
// split (the split input, else the graph's own), and write a metrics
// artifact the evaluate stage reads like the train stage's: "test" is the
// test accuracy of the early-stopped model (the paper's baseline protocol),
// "test_last" that of the last epoch trained.

func registerGNN(r *registry.Registry) error {
	for _, t := range []*registry.Type{gnnGCNType(), gnnGATType(), hylaGCNType()} {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// gnnCommonParams are the training parameters of both types.
func gnnCommonParams(lr, wd, dropout float64) []registry.Param {
	return []registry.Param{
		{Name: "epochs", Type: registry.Int, Range: registry.Between(1, 1_000_000), Default: 100, Doc: "maximum number of epochs (the paper's baseline protocol: 100)"},
		{Name: "stopping", Type: registry.String, Default: "accuracy", Enum: []string{"accuracy", "loss"},
			Doc: "early stopping: accuracy keeps the epoch of the best validation accuracy and stops after patience epochs without a better one (HGCN's code, whose numbers Table 1 quotes); loss stops when the validation loss exceeds the mean of the previous patience epochs' (Kipf & Welling's code) and keeps the last epoch"},
		{Name: "patience", Type: registry.Int, Range: registry.AtLeast(0), Default: 100, Doc: "epochs without improvement (accuracy) or the loss window (loss); 0 = never stop early"},
		{Name: "lr", Type: registry.Float, Range: registry.Above(0), Default: lr, Doc: "Adam learning rate"},
		{Name: "weight_decay", Type: registry.Float, Range: registry.AtLeast(0), Default: wd, Doc: "L2 weight decay, added to the gradient as PyTorch's Adam does"},
		{Name: "dropout", Type: registry.Float, Range: registry.AtLeast(0).Below(1), Default: dropout, Doc: "dropout probability"},
		{Name: "label", Type: registry.String, Default: "", Doc: "model name in reports (default the stage type)"},
		{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the initialisation (stream init) and the dropout masks (stream dropout)"},
	}
}

var gnnInputs = []registry.Input{
	{Name: "graph", Kind: schema.KindGraph, Doc: "normalised graph with node features (a normalize stage with adjacency = \"sym_self_loops\")"},
	{Name: "split", Kind: schema.KindSplit, Optional: true, Doc: "split (default: the graph's own)"},
}

var gnnOutputs = []registry.Output{
	{Name: learnOutMetrics, Kind: schema.KindMetrics, Doc: "metrics: test (early-stopped model), val, train, test_last, stop_epoch, epochs, dataset, model"},
	{Name: learnOutModel, Kind: schema.KindModel, Doc: "the early-stopped model's parameters (one dense member each) and the curves"},
}

func gnnGCNType() *registry.Type {
	params := append([]registry.Param{
		{Name: "hidden", Type: registry.Int, Range: registry.Between(1, 1<<16), Default: 16, Doc: "hidden units"},
	}, gnnCommonParams(0.01, 5e-4, 0.5)...)
	return &registry.Type{
		Name:    "gcn",
		Version: "2", // 2: metrics test_best_val, val_best and protocol
		Doc: "Trains Kipf & Welling's two-layer GCN, logits = S·drop(ReLU(S·drop(X)·W1))·W2 with S the normalised " +
			"adjacency, as their reference code: hidden 16, dropout 0.5 (inputs and hidden), no biases, Glorot " +
			"initialisation, Adam lr 0.01 with weight decay 5e-4 on W1 only. Full batch; at most epochs epochs " +
			"with early stopping on validation; reports the early-stopped model's test accuracy.",
		Params:      params,
		Inputs:      gnnInputs,
		Outputs:     gnnOutputs,
		Run:         gnnRun("gcn"),
		EstimateMem: memGCN,
	}
}

func gnnGATType() *registry.Type {
	params := append([]registry.Param{
		{Name: "heads", Type: registry.Int, Range: registry.Between(1, 64), Default: 8, Doc: "attention heads of the hidden layer (concatenated)"},
		{Name: "hidden", Type: registry.Int, Range: registry.Between(1, 1<<12), Default: 8, Doc: "units per hidden head"},
		{Name: "output_heads", Type: registry.Int, Range: registry.Between(1, 64), Default: 1, Doc: "attention heads of the output layer (averaged; the GAT paper uses 8 on Pubmed)"},
	}, gnnCommonParams(0.005, 5e-4, 0.6)...)
	return &registry.Type{
		Name:    "gat",
		Version: "2", // 2: metrics test_best_val, val_best and protocol
		Doc: "Trains Veličković et al.'s two-layer GAT as PyTorch Geometric's reference example: dropout 0.6 on " +
			"the input, 8 heads × 8 units concatenated with ELU, dropout 0.6, one output head (Pubmed: 8, averaged); " +
			"attention α_ij = softmax over i's neighbours and itself of LeakyReLU_0.2(a_dstᵀWh_i + a_srcᵀWh_j), " +
			"dropout 0.6 on α; Adam lr 0.005, weight decay 5e-4 on every parameter (Pubmed: lr 0.01, 0.001). " +
			"The neighbourhoods are the normalised graph's entries (A + I). Full batch; early stopping as gcn.",
		Params:      params,
		Inputs:      gnnInputs,
		Outputs:     gnnOutputs,
		Run:         gnnRun("gat"),
		EstimateMem: memGAT,
	}
}

// gnnData reads the graph and split inputs.
func gnnData(job *registry.Job) (*gnn.Data, schema.GraphInfo, error) {
	in, err := dataOneInput(job, "graph")
	if err != nil {
		return nil, schema.GraphInfo{}, err
	}
	info, err := dataInfo(in)
	if err != nil {
		return nil, info, fmt.Errorf("graph input: %w", err)
	}
	if info.Normalization != "sym_self_loops" {
		return nil, info, fmt.Errorf("graph %s is not normalised (%q); connect a normalize stage with adjacency = \"sym_self_loops\"", info.Name, info.Normalization)
	}
	d := &gnn.Data{Classes: max(info.Classes, 2)}
	if d.A, err = in.Sparse(schema.MemberAdj); err != nil {
		return nil, info, fmt.Errorf("graph %s: %w", info.Name, err)
	}
	v, ok := in.Member(schema.MemberFeatures)
	if !ok {
		return nil, info, fmt.Errorf("graph %s has no node features (load it with identity_features = true)", info.Name)
	}
	switch x := v.(type) {
	case *sparse.CSR:
		d.X = x
	case *mat.Dense:
		d.X = sparse.FromDense(x)
	default:
		return nil, info, fmt.Errorf("graph %s: features member is %T, want a dense or sparse matrix", info.Name, v)
	}
	if d.Labels, err = in.Ints(schema.MemberLabels); err != nil {
		return nil, info, fmt.Errorf("graph %s: %w", info.Name, err)
	}
	src := in
	sp, err := inputBundles(job, "split")
	if err != nil {
		return nil, info, err
	}
	if len(sp) == 1 && sp[0] != nil {
		src = sp[0]
	}
	for _, m := range []struct {
		name string
		dst  *[]int
	}{{schema.MemberTrain, &d.Train}, {schema.MemberVal, &d.Val}, {schema.MemberTest, &d.Test}} {
		if *m.dst, err = src.Ints(m.name); err != nil {
			return nil, info, fmt.Errorf("graph %s: %w (connect a split)", info.Name, err)
		}
	}
	return d, info, nil
}

func gnnRun(kind string) registry.RunFunc {
	return func(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
		p := job.Params
		d, info, err := gnnData(job)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		for _, name := range []string{"lr", "weight_decay"} {
			if v := p.Float(name); !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s: %s = %v, want a finite value ≥ 0", kind, name, v)
			}
		}
		init := job.Stream("init")
		var m gnn.Model
		switch kind {
		case "gcn":
			m, err = gnn.NewGCN(d, p.Int("hidden"), p.Float("dropout"), p.Float("weight_decay"), init)
		default:
			m, err = gnn.NewGAT(d, p.Int("heads"), p.Int("hidden"), p.Int("output_heads"), p.Float("dropout"), p.Float("weight_decay"), init)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", kind, err)
		}
		res, msPerEpoch, err := trainGNN(ctx, job, m, d)
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", kind, info.Name, err)
		}
		label := p.String("label")
		if label == "" {
			label = kind
		}
		job.Logf("%s on %s: test %.4f (early-stopped, epoch %d), %.4f (last); %d epochs, %.2f ms/epoch",
			label, info.Name, res.Test, res.StopEpoch, res.TestLast, res.Epochs, msPerEpoch)
		return gnnResult(m, res, map[string]any{"dataset": info.Name, "model": label, "seed": p.Int("seed")})
	}
}

// gnnResult returns a trained GNN stage's outputs: its model (gnnModel)
// and its metrics — the fields every GNN stage reports (metric, test, val,
// train, stop_epoch, test_last, val_last, test_best_val, val_best,
// protocol, epochs, stopped_early, final_loss) added to the stage's own (dataset, model, seed and whatever
// the stage type adds).
func gnnResult(m gnn.Model, res *gnn.Result, fields map[string]any) (map[string]artifact.Artifact, error) {
	mod, err := gnnModel(m, res)
	if err != nil {
		return nil, err
	}
	for k, v := range map[string]any{
		"metric": "accuracy", "test": res.Test, "val": res.Val, "train": res.Train, "stop_epoch": res.StopEpoch,
		"test_last": res.TestLast, "val_last": res.ValLast, "epochs": res.Epochs, "stopped_early": res.StoppedEarly,
		"test_best_val": res.Test, "val_best": res.Val, "protocol": learnProtocolBestVal,
		"final_loss": res.Curves[len(res.Curves)-1].Loss,
	} {
		fields[k] = v
	}
	met := bundle.New(schema.KindMetrics)
	if err := met.SetJSON(schema.MemberMetrics, fields); err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{learnOutMetrics: met, learnOutModel: mod}, nil
}

// trainGNN trains m on d with the stage's epochs, lr, stopping and
// patience parameters, the dropout masks drawn from the job's "dropout"
// stream, reporting each epoch as progress; it returns the result and the
// mean wall time of an epoch in milliseconds.
func trainGNN(ctx context.Context, job *registry.Job, m gnn.Model, d *gnn.Data) (*gnn.Result, float64, error) {
	p := job.Params
	epochs := p.Int("epochs")
	cfg := gnn.Config{Epochs: epochs, LR: p.Float("lr"), Stopping: p.String("stopping"), Patience: p.Int("patience"),
		Workers: max(job.Workers, 1),
		Progress: func(s gnn.EpochStats) {
			job.Progress.Report(s.Epoch+1, epochs, fmt.Sprintf("epoch %d loss %.4f train %.4f val %.4f", s.Epoch, s.Loss, s.Train, s.Val))
		}}
	start := time.Now()
	res, err := gnn.Train(ctx, m, d, cfg, job.Stream("dropout"))
	if err != nil {
		return nil, 0, learnDiverged(err, p)
	}
	return res, float64(time.Since(start).Microseconds()) / 1000 / float64(res.Epochs), nil
}

// gnnModel is a trained model's artifact: the early-stopped epoch's
// parameters, one dense member each, and the training curves.
func gnnModel(m gnn.Model, res *gnn.Result) (*bundle.Bundle, error) {
	mod := bundle.New(schema.KindModel)
	for _, prm := range m.Params() {
		mod.SetDense(prm.Name, res.BestParams[prm.Name])
	}
	if err := mod.SetJSON(schema.MemberCurves, res.Curves); err != nil {
		return nil, err
	}
	return mod, nil
}
