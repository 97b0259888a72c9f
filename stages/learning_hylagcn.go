package stages

import (
	"context"
	"fmt"
	"math"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/nn/gnn"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"gonum.org/v1/gonum/mat"
)

// ---------------------------------------------------------------- hyla_gcn
//
// HyLa-GCN, the paper's first future direction: HyLa's feature map of an
// embedding Z feeding a two-layer GCN instead of SGC's linear head, trained
// end to end (Z by Riemannian SGD as the train stage's HyLa-SGC, the GCN by
// Adam) with the baseline protocol of the gcn stage.

func hylaGCNType() *registry.Type {
	params := append([]registry.Param{
		{Name: "level", Type: registry.String, Default: "features", Enum: []string{"features", "nodes"},
			Doc: "features: Z has one row per input feature and the node features are X·φ(Z) (HyLa-SGC's level features); nodes: one row per node, the node features are φ(Z)"},
		{Name: "center", Type: registry.Bool, Default: true, Doc: "centre the first layer's input over the nodes: φ(Z) starts nearly equal for every node, and without centring the ReLUs die within a few epochs (the model stays at one class)"},
		{Name: "hidden", Type: registry.Int, Range: registry.Between(1, 1<<16), Default: 16, Doc: "hidden units of the GCN"},
		{Name: "lr_embedding", Type: registry.Float, Range: registry.AtLeast(0), Default: 0.1, Doc: "learning rate of Z (Riemannian SGD, HyLa's lr_e; 0 keeps the features fixed)"},
		{Name: "init_scale", Type: registry.Float, Range: registry.Above(0).Below(1), Default: 1e-4, Doc: "Z starts uniform in [−init_scale, init_scale] (stream embedding), as HyLa-SGC's"},
	}, gnnCommonParams(0.01, 5e-4, 0.5)...)
	return &registry.Type{
		Name:    "hyla_gcn",
		Version: "2", // 2: metrics test_best_val, val_best and protocol
		Doc: "Trains HyLa-GCN (the paper's future work: HyLa with a non-linear graph network): the HyLa features φ(Z) " +
			"of the samples input feed Kipf & Welling's two-layer GCN, logits = S·drop(ReLU(S·C(drop(X)·φ(Z)·W1)))·W2 " +
			"(level features; level nodes: S·drop(ReLU(S·C(drop(φ(Z))·W1)))·W2), S the normalised adjacency, C centring over the nodes (center). Z and the " +
			"GCN train together: Z by Riemannian SGD at lr_embedding (as HyLa-SGC), W1 and W2 by Adam at lr with " +
			"weight decay on W1, hidden 16, dropout 0.5, no biases, Glorot initialisation. Full batch; at most epochs " +
			"epochs with early stopping on validation (as gcn); reports the early-stopped model's test accuracy.",
		Params: params,
		Inputs: append([]registry.Input{
			{Name: "samples", Kind: schema.KindSamples, Doc: "HyLa samples (a sample stage with kind = \"hyla\"): Ω, λ, b and the λ convention"},
		}, gnnInputs...),
		Outputs: []registry.Output{
			{Name: learnOutMetrics, Kind: schema.KindMetrics, Doc: "metrics: test (early-stopped model), val, train, test_last, stop_epoch, epochs, dataset, model, level, dim, features"},
			{Name: learnOutModel, Kind: schema.KindModel, Doc: "the early-stopped model's Z, W1 and W2 (one dense member each) and the curves"},
		},
		Run:         hylaGCNRun,
		EstimateMem: memHyLaGCN,
	}
}

func hylaGCNRun(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	d, info, err := gnnData(job)
	if err != nil {
		return nil, fmt.Errorf("hyla_gcn: %w", err)
	}
	s, err := inputBundles(job, "samples")
	if err != nil {
		return nil, fmt.Errorf("hyla_gcn: %w", err)
	}
	if len(s) != 1 || s[0] == nil {
		return nil, fmt.Errorf("hyla_gcn: connect the samples input (a sample stage with kind = \"hyla\")")
	}
	fm, sinfo, err := learnSamples(s[0])
	if err != nil {
		return nil, fmt.Errorf("hyla_gcn: samples input: %w", err)
	}
	hm, ok := fm.(*hyla.HyLaMap)
	if !ok {
		return nil, fmt.Errorf("hyla_gcn: samples of kind %s, want hyla (a sample stage with kind = \"hyla\")", sinfo.Kind)
	}
	hm.SetWorkers(max(job.Workers, 1))
	defer hm.Release()
	for _, name := range []string{"lr", "lr_embedding", "weight_decay"} {
		if v := p.Float(name); !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("hyla_gcn: %s = %v, want a finite value ≥ 0", name, v)
		}
	}
	scale := p.Float("init_scale")
	if !(scale > 0) || scale >= 1 {
		return nil, fmt.Errorf("hyla_gcn: init_scale = %v, want 0 < init_scale < 1", scale)
	}
	level := p.String("level")
	rows := d.X.Cols
	if level == "nodes" {
		rows = d.A.Rows
	}
	// Z as HyLa-SGC's: uniform in ±init_scale, projected into the ball.
	z0 := mat.NewDense(rows, hm.Dim(), nil)
	zrng := job.Stream("embedding")
	for i, raw := 0, z0.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = scale * (2*zrng.Float64() - 1)
	}
	hyla.ProjectRows(z0)
	m, err := gnn.NewHyLaGCN(d, gnn.HyLaGCNConfig{Map: hm, Z0: z0, Level: level, LREmbedding: p.Float("lr_embedding"),
		Center: p.Bool("center"), Hidden: p.Int("hidden"), Dropout: p.Float("dropout"), WeightDecay: p.Float("weight_decay")}, job.Stream("init"))
	if err != nil {
		return nil, fmt.Errorf("hyla_gcn on %s: %w", info.Name, err)
	}
	res, msPerEpoch, err := trainGNN(ctx, job, m, d)
	if err != nil {
		return nil, fmt.Errorf("hyla_gcn on %s: %w", info.Name, err)
	}
	label := p.String("label")
	if label == "" {
		label = "hyla-gcn"
	}
	job.Logf("%s %s on %s: test %.4f (early-stopped, epoch %d), %.4f (last); %d epochs, %.2f ms/epoch",
		label, level, info.Name, res.Test, res.StopEpoch, res.TestLast, res.Epochs,
		msPerEpoch)
	return gnnResult(m, res, map[string]any{
		"dataset": info.Name, "model": label, "seed": p.Int("seed"), "level": level,
		"dim": sinfo.Dim, "features": sinfo.Features,
	})
}
