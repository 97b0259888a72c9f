package stages

import (
	"context"
	"fmt"
	"math"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/nn/gnn"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// ---------------------------------------------------------------- textgcn
//
// Table 2's TextGCN (Yao et al. 2019) as a stage type: a two-layer GCN on a
// normalised corpus graph of documents and words with one-hot node inputs.
// Transductive: the dataset stage's transductive view (every document and
// word in the graph, the test documents unlabelled). Inductive: its
// inductive_corpus view (the graph of the training documents, the test
// documents attached one way and given no input of their own).

func registerTextGCN(r *registry.Registry) error { return r.Register(textGCNType()) }

func textGCNType() *registry.Type {
	defaults := map[string]any{"epochs": 200, "stopping": "loss", "patience": 10}
	params := []registry.Param{
		{Name: "hidden", Type: registry.Int, Range: registry.Between(1, 1<<16), Default: 200, Doc: "hidden units (text_gcn: 200)"},
	}
	for _, p := range gnnCommonParams(0.02, 0, 0.5) {
		if d, ok := defaults[p.Name]; ok {
			p.Default = d
		}
		switch p.Name {
		case "epochs":
			p.Doc = "maximum number of epochs (text_gcn and the paper: 200)"
		case "patience":
			p.Doc = "the loss window (text_gcn: 10) or, with stopping = accuracy, epochs without improvement; 0 = never stop early"
		case "weight_decay":
			p.Doc = "L2 weight decay on W1, added to the gradient as PyTorch's Adam does (text_gcn: 0)"
		case "seed":
			p.Doc = "seed of the initialisation (stream init) and the dropout masks (stream dropout)"
		}
		params = append(params, p)
	}
	return &registry.Type{
		Name:    "textgcn",
		Version: "2", // 2: metrics test_best_val, val_best and protocol
		Doc: "Trains Yao et al.'s TextGCN, logits = S·drop(ReLU(S·drop(X)·W1))·W2 on a corpus graph of documents " +
			"and words (S = D^-1/2 (A+I) D^-1/2) with one-hot node inputs X, as their text_gcn code: hidden 200, " +
			"dropout 0.5 (on X's ones and on the hidden layer), no biases, Glorot initialisation, Adam lr 0.02, no " +
			"weight decay, at most 200 epochs, stopping when the validation loss exceeds the mean of the previous 10 " +
			"epochs'; reports the test accuracy at the stop. The first layer is a row lookup in W1, never an n×n " +
			"identity. Transductive on a textgcn dataset's transductive view; inductive on its inductive_corpus " +
			"view, where the test documents have no input row and reach the model only through their own edges.",
		Params:      params,
		Inputs:      []registry.Input{{Name: "graph", Kind: schema.KindGraph, Doc: "normalised TextGCN corpus graph (dataset view transductive or inductive_corpus, then normalize)"}},
		Outputs:     gnnOutputs,
		Run:         textGCNRun,
		EstimateMem: memTextGCN,
	}
}

// textGCNData reads the corpus graph: S, labels, split, and the one-hot
// inputs (identity; in an inductive graph, none for the test documents).
func textGCNData(job *registry.Job) (*gnn.Data, schema.GraphInfo, error) {
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
	if info.Docs <= 0 {
		return nil, info, fmt.Errorf("graph %s is not a corpus graph of documents and words (load a textgcn dataset with view = \"transductive\" or \"inductive_corpus\")", info.Name)
	}
	d := &gnn.Data{Classes: max(info.Classes, 2)}
	if d.A, err = in.Sparse(schema.MemberAdj); err != nil {
		return nil, info, fmt.Errorf("graph %s: %w", info.Name, err)
	}
	if d.Labels, err = in.Ints(schema.MemberLabels); err != nil {
		return nil, info, fmt.Errorf("graph %s: %w", info.Name, err)
	}
	for _, m := range []struct {
		name string
		dst  *[]int
	}{{schema.MemberTrain, &d.Train}, {schema.MemberVal, &d.Val}, {schema.MemberTest, &d.Test}} {
		if *m.dst, err = in.Ints(m.name); err != nil {
			return nil, info, fmt.Errorf("graph %s: %w", info.Name, err)
		}
	}
	n := d.A.Rows
	var unseen []int
	if info.Inductive {
		unseen = d.Test
	}
	d.X = textGCNInputs(n, unseen)
	return d, info, nil
}

// textGCNInputs returns the n-row one-hot input matrix: one column per node
// in order, except the unseen nodes, whose rows are empty.
func textGCNInputs(n int, unseen []int) *sparse.CSR {
	skip := make([]bool, n)
	for _, i := range unseen {
		if i >= 0 && i < n {
			skip[i] = true
		}
	}
	x := &sparse.CSR{Rows: n, Indptr: make([]int, n+1), Indices: make([]int32, 0, n), Data: make([]float64, 0, n)}
	for i := 0; i < n; i++ {
		if !skip[i] {
			x.Indices = append(x.Indices, int32(x.Cols))
			x.Data = append(x.Data, 1)
			x.Cols++
		}
		x.Indptr[i+1] = len(x.Data)
	}
	return x
}

func textGCNRun(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	d, info, err := textGCNData(job)
	if err != nil {
		return nil, fmt.Errorf("textgcn: %w", err)
	}
	for _, name := range []string{"lr", "weight_decay"} {
		if v := p.Float(name); !(v >= 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("textgcn: %s = %v, want a finite value ≥ 0", name, v)
		}
	}
	m, err := gnn.NewTextGCN(d, p.Int("hidden"), p.Float("dropout"), p.Float("weight_decay"), job.Stream("init"))
	if err != nil {
		return nil, fmt.Errorf("textgcn: %w", err)
	}
	res, msPerEpoch, err := trainGNN(ctx, job, m, d)
	if err != nil {
		return nil, fmt.Errorf("textgcn on %s: %w", info.Name, err)
	}
	label := p.String("label")
	if label == "" {
		label = "textgcn"
	}
	setting := "transductive"
	if info.Inductive {
		setting = "inductive"
	}
	job.Logf("%s (%s) on %s: test %.4f (epoch %d of %d%s), %.2f ms/epoch",
		label, setting, info.Name, res.Test, res.StopEpoch, p.Int("epochs"), map[bool]string{true: ", stopped early"}[res.StoppedEarly],
		msPerEpoch)
	return gnnResult(m, res, map[string]any{"dataset": info.Name, "model": label, "seed": p.Int("seed"), "setting": setting})
}
