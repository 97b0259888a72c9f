package stages

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/viz"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// Members of the visualize stage's KindFigure artifact:
//
//	scatter.png, scatter.svg   the 2-D projection coloured by class
//	coords                     dense m×2, the projected points (.npy)
//	labels                     ints m, their classes (−1 = unlabelled)
//	rows                       ints m, their node indices in the graph
//	summary.json               visSummary: method, sizes, KL / explained variance, kNN scores
const (
	visOutFigure     = "figure"
	visMemberPNG     = "scatter.png"
	visMemberSVG     = "scatter.svg"
	visMemberCoords  = "coords"
	visMemberLabels  = "labels"
	visMemberRows    = "rows"
	visMemberSummary = "summary"
	visScoreK        = 10 // neighbours of the preservation score
	visVoteK         = 5  // neighbours of the kNN accuracy
)

func registerVisual(r *registry.Registry) error {
	for _, t := range []*registry.Type{visStageType(), visPanelsType()} {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

func visStageType() *registry.Type {
	return &registry.Type{
		Name:    "visualize",
		Version: "4", // 4: common random numbers: draws from the seed and the stage type, not the cache key
		Doc: "Projects learned node representations to 2-D and plots them coloured by class (the paper's " +
			"Figure 3). representation features: the node features the classifier sees, X̄ = (S^K X)·φ(Z) at " +
			"feature level or S^K·φ(Z) at node level, with Z from the model and φ from the samples (plain S^K X " +
			"for sgc); logits: X̄·W + b; input: S^K X without learning. method tsne: exact t-SNE after a PCA to " +
			"pca_dims dimensions (perplexity calibration, early exaggeration, momentum and gains; seeded, " +
			"identical for any thread count); method pca: the first two principal components (gonum stat.PC). " +
			"Writes scatter.png/.svg, coords/labels/rows as .npy and summary.json with the t-SNE KL or the " +
			"explained variance and kNN scores: leave-one-out 5-NN accuracy in 2-D and in the space the " +
			"projection starts from (for t-SNE after the PCA reduction), and the fraction of each node's 10 " +
			"nearest neighbours there that stay among its 10 nearest in 2-D.",
		Params: []registry.Param{
			{Name: "method", Type: registry.String, Default: "tsne", Enum: []string{"tsne", "pca"}, Doc: "projection"},
			{Name: "representation", Type: registry.String, Default: "features", Enum: []string{"features", "logits", "input"}, Doc: "what is projected (see above)"},
			{Name: "rows", Type: registry.String, Default: "test", Enum: []string{"test", "all", "labelled", "train", "val"}, Doc: "which nodes are shown"},
			{Name: "max_points", Type: registry.Int, Range: registry.AtLeast(0), Default: 5000, Doc: "show a seeded random subset of this many of the selected nodes when there are more (0 = all; t-SNE takes at most 10000)"},
			{Name: "state", Type: registry.String, Default: "last", Enum: []string{"last", "best"}, Doc: "model parameters after the last epoch or at the best-validation epoch"},
			{Name: "k", Type: registry.Int, Range: registry.Between(-1, 64), Default: -1, Doc: "node level: propagation steps; -1 takes K from the precompute (as train)"},
			{Name: "perplexity", Type: registry.Float, Range: registry.Above(0), Default: 30.0, Doc: "t-SNE perplexity (effective number of neighbours)"},
			{Name: "iterations", Type: registry.Int, Range: registry.AtLeast(1), Default: 1000, Doc: "t-SNE gradient steps"},
			{Name: "learning_rate", Type: registry.Float, Range: registry.AtLeast(0), Default: 0.0, Doc: "t-SNE step size; 0 = max(n/exaggeration/4, 50)"},
			{Name: "exaggeration", Type: registry.Float, Range: registry.Above(0), Default: 12.0, Doc: "t-SNE early exaggeration (first 250 steps)"},
			{Name: "init", Type: registry.String, Default: "pca", Enum: []string{"pca", "random"}, Doc: "t-SNE initialisation"},
			{Name: "pca_dims", Type: registry.Int, Range: registry.AtLeast(0), Default: 50, Doc: "t-SNE: reduce the representation to this many principal components first (0 = no reduction)"},
			{Name: "title", Type: registry.String, Default: "", Doc: "plot title (default: dataset, method, representation, rows)"},
			{Name: "class_names", Type: registry.Strings, Default: []string{}, Doc: "legend names of classes 0, 1, … (default: class 0, class 1, …)"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the random t-SNE initialisation"},
		},
		Inputs: []registry.Input{
			{Name: "features", Kind: schema.KindFeatures, Doc: "the precompute the model was trained on (labels, split, S^K X or S)"},
			{Name: "model", Kind: schema.KindModel, Optional: true, Doc: "a train stage's model output (representation features, logits)"},
			{Name: "samples", Kind: schema.KindSamples, Optional: true, Doc: "the samples the model was trained with (hyla, rff)"},
		},
		Outputs: []registry.Output{{Name: visOutFigure, Kind: schema.KindFigure,
			Doc: "scatter.png, scatter.svg, coords, labels, rows (.npy), summary.json"}},
		Run: visRun,
	}
}

// visSummary is the summary.json member.
type visSummary struct {
	Dataset        string    `json:"dataset"`
	Method         string    `json:"method"`
	Representation string    `json:"representation"`
	Model          string    `json:"model"`
	Rows           string    `json:"rows"`
	Points         int       `json:"points"`
	InputDims      int       `json:"input_dims"`     // columns of the representation
	ProjectedDims  int       `json:"projected_dims"` // columns t-SNE saw (after PCA) or PCA's input
	Classes        int       `json:"classes"`
	Perplexity     float64   `json:"perplexity,omitempty"`
	Iterations     int       `json:"iterations,omitempty"`
	KL             float64   `json:"kl,omitempty"`
	EntropyError   float64   `json:"entropy_error,omitempty"`
	Explained      []float64 `json:"explained_variance_ratio,omitempty"` // PCA: of the two components
	ReducedRatio   float64   `json:"reduced_variance_ratio,omitempty"`   // t-SNE: variance kept by the PCA reduction
	Title          string    `json:"title"`
	XLabel         string    `json:"x_label"`
	YLabel         string    `json:"y_label"`
	KNN2D          float64   `json:"knn5_accuracy_2d"`
	KNNInput       float64   `json:"knn5_accuracy_input"`
	Preservation   float64   `json:"neighbor_preservation_10"`
}

func visRun(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	feats, err := dataOneInput(job, "features")
	if err != nil {
		return nil, fmt.Errorf("visualize: %w", err)
	}
	var info schema.GraphInfo
	if err := feats.JSON(schema.MemberInfo, &info); err != nil {
		return nil, fmt.Errorf("visualize: features input: %w", err)
	}
	labels, err := feats.Ints(schema.MemberLabels)
	if err != nil {
		return nil, fmt.Errorf("visualize: features input of %s: %w", info.Name, err)
	}
	rows, err := visRows(feats, p.String("rows"), labels)
	if err != nil {
		return nil, fmt.Errorf("visualize %s: %w", info.Name, err)
	}
	if mp := p.Int("max_points"); mp < 0 {
		return nil, fmt.Errorf("visualize: max_points = %d, want ≥ 0", mp)
	} else if mp > 0 && len(rows) > mp {
		rows = visSubsample(rows, mp, job.Seed)
	}
	if len(rows) < 3 {
		return nil, fmt.Errorf("visualize %s: %d %s nodes, want at least 3", info.Name, len(rows), p.String("rows"))
	}
	workers := max(job.Workers, 1)
	x, model, err := visRepresentation(ctx, job, feats, rows, workers)
	if err != nil {
		return nil, fmt.Errorf("visualize %s: %w", info.Name, err)
	}
	m, d := x.Dims()
	rowLabels := make([]int, m)
	for i, r := range rows {
		rowLabels[i] = labels[r]
	}
	sum := visSummary{Dataset: info.Name, Method: p.String("method"), Representation: p.String("representation"),
		Model: model, Rows: p.String("rows"), Points: m, InputDims: d, Classes: info.Classes}
	job.Progress.Report(0, 0, fmt.Sprintf("%s: %d points × %d", p.String("method"), m, d))
	var coords, projected *mat.Dense
	var xlab, ylab string
	switch p.String("method") {
	case "pca":
		res, err := viz.PCA(x, min(2, d))
		if err != nil {
			return nil, fmt.Errorf("visualize %s: %w", info.Name, err)
		}
		coords, projected = res.Coords, x
		if d < 2 { // a single column: plot it against zero
			coords = mat.NewDense(m, 2, nil)
			coords.Slice(0, m, 0, 1).(*mat.Dense).Copy(res.Coords)
		}
		sum.Explained = res.ExplainedRatio()
		xlab = fmt.Sprintf("PC 1 (%.1f%% of the variance)", 100*sum.Explained[0])
		if len(sum.Explained) > 1 {
			ylab = fmt.Sprintf("PC 2 (%.1f%%)", 100*sum.Explained[1])
		}
	default:
		projected = x
		if pd := p.Int("pca_dims"); pd > 0 && d > pd && m > pd {
			res, err := viz.PCA(x, pd)
			if err != nil {
				return nil, fmt.Errorf("visualize %s: reduction to %d dimensions: %w", info.Name, pd, err)
			}
			projected = res.Coords
			for _, r := range res.ExplainedRatio() {
				sum.ReducedRatio += r
			}
		} else if pd < 0 {
			return nil, fmt.Errorf("visualize: pca_dims = %d, want ≥ 0", pd)
		}
		iters := p.Int("iterations")
		res, err := viz.TSNE(ctx, projected, viz.TSNEOptions{
			Perplexity: p.Float("perplexity"), Iterations: iters, LearningRate: p.Float("learning_rate"),
			Exaggeration: p.Float("exaggeration"), Init: p.String("init"), Seed: job.Seed, Workers: workers,
			Progress: func(it int, kl float64) {
				job.Progress.Report(it, iters, fmt.Sprintf("t-SNE step %d KL %.4f", it, kl))
			},
		})
		if err != nil {
			return nil, fmt.Errorf("visualize %s (%d %s nodes): %w", info.Name, m, p.String("rows"), err)
		}
		coords = res.Y
		sum.Perplexity, sum.Iterations, sum.KL, sum.EntropyError = p.Float("perplexity"), iters, res.KL, res.MaxEntropyError
		xlab, ylab = "t-SNE 1", "t-SNE 2"
	}
	_, sum.ProjectedDims = projected.Dims()
	if m > visScoreK {
		if err := visScores(ctx, &sum, projected, coords, rowLabels, workers); err != nil {
			return nil, fmt.Errorf("visualize %s: %w", info.Name, err)
		}
	} else {
		sum.KNN2D, sum.KNNInput, sum.Preservation = math.NaN(), math.NaN(), math.NaN()
	}
	title := p.String("title")
	if title == "" {
		title = visTitle(info.Name, sum)
	}
	sum.Title, sum.XLabel, sum.YLabel = title, xlab, ylab
	plt, err := viz.ScatterPlot(coords, rowLabels, viz.ScatterOptions{Title: title, XLabel: xlab, YLabel: ylab,
		ClassNames: p.Strings("class_names"), NoTicks: p.String("method") == "tsne"})
	if err != nil {
		return nil, fmt.Errorf("visualize %s: %w", info.Name, err)
	}
	out := bundle.New(schema.KindFigure)
	for name, format := range map[string]string{visMemberPNG: "png", visMemberSVG: "svg"} {
		b, err := viz.Render(plt, 6*vg.Inch, 4.5*vg.Inch, format)
		if err != nil {
			return nil, fmt.Errorf("visualize %s: %w", info.Name, err)
		}
		out.SetFile(name, b)
	}
	out.SetDense(visMemberCoords, coords)
	out.SetInts(visMemberLabels, rowLabels)
	out.SetInts(visMemberRows, rows)
	js := sum
	for _, v := range []*float64{&js.KNN2D, &js.KNNInput, &js.Preservation} {
		if math.IsNaN(*v) {
			*v = -1 // JSON has no NaN: −1 marks a score that could not be computed
		}
	}
	if err := out.SetJSON(visMemberSummary, js); err != nil {
		return nil, err
	}
	job.Logf("%s: %s of %s (%d points): 5-NN accuracy %.3f in 2-D, %.3f before; 10-NN preservation %.3f",
		info.Name, sum.Method, sum.Representation, m, sum.KNN2D, sum.KNNInput, sum.Preservation)
	return map[string]artifact.Artifact{visOutFigure: out}, ctx.Err()
}

// visRows returns the node indices the rows parameter selects.
func visRows(feats *bundle.Bundle, which string, labels []int) ([]int, error) {
	switch which {
	case "all":
		rows := make([]int, len(labels))
		for i := range rows {
			rows[i] = i
		}
		return rows, nil
	case "labelled":
		var rows []int
		for i, l := range labels {
			if l >= 0 {
				rows = append(rows, i)
			}
		}
		return rows, nil
	}
	name := map[string]string{"test": schema.MemberTest, "train": schema.MemberTrain, "val": schema.MemberVal}[which]
	rows, err := feats.Ints(name)
	if err != nil {
		return nil, fmt.Errorf("rows %q: %w (connect a split to the precompute)", which, err)
	}
	for k, r := range rows {
		if r < 0 || r >= len(labels) {
			return nil, fmt.Errorf("%s[%d] = %d is not a node index (%d nodes)", name, k, r, len(labels))
		}
	}
	return rows, nil
}

// visSubsample returns k of rows, drawn without replacement with a PCG
// seeded by seed, in their original order.
func visSubsample(rows []int, k int, seed uint64) []int {
	idx := rand.New(rand.NewPCG(seed, 0x5ab5)).Perm(len(rows))[:k]
	sort.Ints(idx)
	out := make([]int, k)
	for i, j := range idx {
		out[i] = rows[j]
	}
	return out
}

// visRepresentation computes the selected rows of the representation and
// names the model it comes from.
func visRepresentation(ctx context.Context, job *registry.Job, feats *bundle.Bundle, rows []int, workers int) (*mat.Dense, string, error) {
	p := job.Params
	repr := p.String("representation")
	if repr == "input" {
		x, err := featuresX(ctx, feats, workers)
		if err != nil {
			return nil, "", fmt.Errorf("representation input needs a feature-level precompute: %w", err)
		}
		return visGather(x, rows), "input", nil
	}
	models, err := inputBundles(job, "model")
	if err != nil {
		return nil, "", err
	}
	if len(models) != 1 {
		return nil, "", fmt.Errorf("representation %s needs the model input (a train stage's model output)", repr)
	}
	model := models[0]
	zName, wName, bName := schema.MemberZ, schema.MemberW, schema.MemberBias
	if p.String("state") == "best" {
		zName, wName, bName = learnMemberZBest, learnMemberWBest, learnMemberBiasBest
	}
	var (
		xbar  *mat.Dense
		label string
	)
	if !model.Has(zName) { // SGC: the classifier sees S^K X
		x, err := featuresX(ctx, feats, workers)
		if err != nil {
			return nil, "", fmt.Errorf("model without %s (sgc) needs a feature-level precompute: %w", zName, err)
		}
		xbar, label = visGather(x, rows), "sgc"
	} else {
		z, err := model.Dense(zName)
		if err != nil {
			return nil, "", fmt.Errorf("model input: %w", err)
		}
		s, err := inputBundles(job, "samples")
		if err != nil {
			return nil, "", err
		}
		if len(s) != 1 {
			return nil, "", errors.New("the model has an embedding Z: connect the samples input it was trained with")
		}
		fm, sinfo, err := learnSamples(s[0])
		if err != nil {
			return nil, "", fmt.Errorf("samples input: %w", err)
		}
		zr, zc := z.Dims()
		if zc != fm.Dim() {
			return nil, "", fmt.Errorf("model Z is %d×%d but the samples have dimension %d (the samples of another run?)", zr, zc, fm.Dim())
		}
		fm.SetWorkers(workers)
		phi := mat.NewDense(zr, fm.Features(), nil)
		fm.Forward(z, phi)
		label = sinfo.Kind
		if xbar, err = visPropagate(ctx, feats, phi, rows, p.Int("k"), workers); err != nil {
			return nil, "", err
		}
	}
	if repr == "logits" {
		w, err := model.Dense(wName)
		if err != nil {
			return nil, "", fmt.Errorf("model input: %w", err)
		}
		b, err := model.Floats(bName)
		if err != nil {
			return nil, "", fmt.Errorf("model input: %w", err)
		}
		_, xc := xbar.Dims()
		wr, wc := w.Dims()
		if wr != xc || len(b) != wc {
			return nil, "", fmt.Errorf("model W is %d×%d with %d biases but the features have %d columns", wr, wc, len(b), xc)
		}
		var logits mat.Dense
		logits.Mul(xbar, w)
		for i := range len(rows) {
			row := logits.RawRowView(i)
			for c := range row {
				row[c] += b[c]
			}
		}
		xbar = &logits
	}
	return xbar, label, nil
}

// visPropagate returns rows of (S^K X)·φ (feature level: Z has one row per
// input feature) or of S^K·φ (node level: one row per node).
func visPropagate(ctx context.Context, feats *bundle.Bundle, phi *mat.Dense, rows []int, k, workers int) (*mat.Dense, error) {
	pr, _ := phi.Dims()
	if featuresHasX(feats) {
		x, err := featuresX(ctx, feats, workers)
		if err != nil {
			return nil, err
		}
		if _, xc := x.Dims(); xc == pr {
			var out mat.Dense
			out.Mul(visGather(x, rows), phi)
			return &out, nil
		}
	}
	if !feats.Has(schema.MemberS) {
		return nil, fmt.Errorf("model Z has %d rows: neither the number of feature columns nor a node-level precompute (no S)", pr)
	}
	s, err := feats.Sparse(schema.MemberS)
	if err != nil {
		return nil, err
	}
	if s.Rows != pr {
		return nil, fmt.Errorf("model Z has %d rows but the graph has %d nodes", pr, s.Rows)
	}
	var h *mat.Dense
	if k < 0 && feats.Has(dataMemberSK) {
		sk, err := feats.Sparse(dataMemberSK)
		if err != nil {
			return nil, err
		}
		if h, err = sparse.MulDense(ctx, sk, phi, workers); err != nil {
			return nil, err
		}
	} else {
		if k, err = learnNodeK(ctx, feats, s, k); err != nil {
			return nil, err
		}
		h = phi
		for range k {
			if h, err = sparse.MulDense(ctx, s, h, workers); err != nil {
				return nil, err
			}
		}
	}
	return visGather(h, rows), nil
}

// visGather copies the given rows of x (rows is never empty).
func visGather(x *mat.Dense, rows []int) *mat.Dense {
	_, c := x.Dims()
	out := mat.NewDense(len(rows), c, nil)
	for i, r := range rows {
		copy(out.RawRowView(i), x.RawRowView(r))
	}
	return out
}

// visScores fills the neighbourhood scores of the summary.
func visScores(ctx context.Context, sum *visSummary, high, low *mat.Dense, labels []int, workers int) error {
	nbLow, err := viz.Neighbors(ctx, low, visScoreK, workers)
	if err != nil {
		return err
	}
	nbHigh, err := viz.Neighbors(ctx, high, visScoreK, workers)
	if err != nil {
		return err
	}
	sum.KNN2D = viz.KNNAccuracy(nbLow, labels, visVoteK)
	sum.KNNInput = viz.KNNAccuracy(nbHigh, labels, visVoteK)
	sum.Preservation, err = viz.NeighborPreservation(nbHigh, nbLow, visScoreK)
	return err
}

func visTitle(dataset string, s visSummary) string {
	name := datasets.MetaOf(dataset).Display
	method := map[string]string{"tsne": "t-SNE", "pca": "PCA"}[s.Method]
	what := map[string]string{"hyla": "HyLa features", "rff": "RFF features", "sgc": "SGC features (S^K X)", "input": "S^K X"}[s.Model]
	if s.Representation == "logits" {
		what = map[string]string{"hyla": "HyLa-SGC", "rff": "RFF-SGC", "sgc": "SGC"}[s.Model] + " logits"
	}
	return fmt.Sprintf("%s: %s of %s (%s nodes)", name, method, what, s.Rows)
}

// ---------------------------------------------------------------- panels

// Members of the panels stage's KindFigure artifact: panels.png, panels.svg
// and summary.json (the list of the input figures' summaries).
const (
	visMemberPanelsPNG = "panels.png"
	visMemberPanelsSVG = "panels.svg"
)

func visPanelsType() *registry.Type {
	return &registry.Type{
		Name:    "panels",
		Version: "1",
		Doc: "Lays the figures of visualize stages out side by side in one image, as the paper's Figure 3 " +
			"(t-SNE on Cora, t-SNE on Airport, PCA on Disease in a row): each panel is re-drawn from its " +
			"figure's coords, labels and summary (title, axis labels), with data areas of equal size. Writes " +
			"panels.png, panels.svg and summary.json (the panels' summaries in order).",
		Params: []registry.Param{
			{Name: "columns", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "panels per row (0 = all in one row)"},
			{Name: "titles", Type: registry.Strings, Default: []string{}, Doc: "panel titles in input order (default: each figure's own title)"},
			{Name: "class_names", Type: registry.Strings, Default: []string{}, Doc: "legend names of classes 0, 1, … in every panel"},
			{Name: "panel_width", Type: registry.Float, Range: registry.Above(0), Default: 4.5, Doc: "width of one panel in inches"},
			{Name: "panel_height", Type: registry.Float, Range: registry.Above(0), Default: 4.0, Doc: "height of one panel in inches"},
		},
		Inputs: []registry.Input{{Name: "figures", Kind: schema.KindFigure, Many: true, Doc: "visualize stages' figures, in panel order"}},
		Outputs: []registry.Output{{Name: visOutFigure, Kind: schema.KindFigure,
			Doc: "panels.png, panels.svg, summary.json"}},
		Run: visRunPanels,
	}
}

func visRunPanels(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	figs, err := inputBundles(job, "figures")
	if err != nil {
		return nil, fmt.Errorf("panels: %w", err)
	}
	if len(figs) == 0 {
		return nil, errors.New("panels: no figures connected")
	}
	titles := p.Strings("titles")
	if len(titles) > len(figs) {
		return nil, fmt.Errorf("panels: %d titles for %d figures", len(titles), len(figs))
	}
	pw, ph := p.Float("panel_width"), p.Float("panel_height")
	if !(pw >= 1 && pw <= 40) || !(ph >= 1 && ph <= 40) {
		return nil, fmt.Errorf("panels: panel size %v×%v inches, want 1..40 each", pw, ph)
	}
	var (
		plots []*plot.Plot
		sums  []visSummary
	)
	for k, fig := range figs {
		label := fmt.Sprintf("figure %d", k)
		if ls := job.InputLabels["figures"]; k < len(ls) {
			label = ls[k]
		}
		coords, err := fig.Dense(visMemberCoords)
		if err != nil {
			return nil, fmt.Errorf("panels: %s (is it a visualize figure?): %w", label, err)
		}
		labels, err := fig.Ints(visMemberLabels)
		if err != nil {
			return nil, fmt.Errorf("panels: %s: %w", label, err)
		}
		var sum visSummary
		if err := fig.JSON(visMemberSummary, &sum); err != nil {
			return nil, fmt.Errorf("panels: %s: %w", label, err)
		}
		title := sum.Title
		if k < len(titles) && titles[k] != "" {
			title = titles[k]
		}
		plt, err := viz.ScatterPlot(coords, labels, viz.ScatterOptions{Title: title, XLabel: sum.XLabel, YLabel: sum.YLabel,
			ClassNames: p.Strings("class_names"), NoTicks: sum.Method == "tsne"})
		if err != nil {
			return nil, fmt.Errorf("panels: %s: %w", label, err)
		}
		plots = append(plots, plt)
		sums = append(sums, sum)
	}
	out := bundle.New(schema.KindFigure)
	for name, format := range map[string]string{visMemberPanelsPNG: "png", visMemberPanelsSVG: "svg"} {
		b, err := viz.RenderGrid(plots, p.Int("columns"), vg.Length(pw)*vg.Inch, vg.Length(ph)*vg.Inch, format)
		if err != nil {
			return nil, fmt.Errorf("panels: %w", err)
		}
		out.SetFile(name, b)
	}
	if err := out.SetJSON(visMemberSummary, sums); err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{visOutFigure: out}, ctx.Err()
}
