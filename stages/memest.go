package stages

import (
	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// Memory estimates of the stages whose memory matters (registry.Type's
// EstimateMem), from their inputs' stored sizes and array shapes. The
// factors are measured: peak RSS of `hylaflow run --force STAGE` with
// every input cached (one process per stage, GOMEMLIMIT=256MiB so the
// collector keeps the heap near the live data) on the TextGCN corpora,
// the largest inputs of the shipped pipelines (docs/reliability.md has
// the table). Each estimate is meant to be at least the real peak and at
// most about twice it.

// memBase is what any stage adds to its arrays: the decoder's buffers,
// the Go runtime's spans, small per-stage state.
const memBase = 64 << 20

// memInputBytes returns the total stored size of every input.
func memInputBytes(in map[string][]registry.InputSize) int64 {
	var n int64
	for _, list := range in {
		for _, s := range list {
			n += s.Bytes
		}
	}
	return n
}

// memNormalize: the graph decoded, S built beside A, the output encoded
// (measured: Ohsumed's 97 MB graph peaks at 218 MB RSS; estimate 323 MB).
func memNormalize(_ registry.Values, in map[string][]registry.InputSize) int64 {
	return 3*memInputBytes(in) + memBase
}

// memPrecompute: the graph decoded plus the dense S^K X it makes (a graph
// without features: its sparse factors, below). The
// shapes say its size: n nodes (adj), f feature columns (features; none:
// the identity, f = n), and the rows kept (labelled: the split's nodes).
// Sparse X with K > 0 and dense X with K > 0 hold an n×f intermediate
// beside the kept rows; K = 0 and the identity make the kept rows only.
// Measured: MR's corpus (10 662 × 29 426 kept, 2.51 GB) peaks at 2.53 GB
// (estimate 2.65 GB), its documents (K = 0, 10 662 × 18 764) at 1.60 GB
// (estimate 1.67 GB), Ohsumed's corpus at 1.47 GB (estimate 1.70 GB).
func memPrecompute(p registry.Values, in map[string][]registry.InputSize) int64 {
	base := 2*memInputBytes(in) + memBase
	graphs := in["graph"]
	if len(graphs) != 1 {
		return base
	}
	sh := graphs[0].Shapes
	adj := sh[schema.MemberAdj]
	if len(adj) != 2 {
		// Shapes unknown (another format): the decoded graph only.
		return base
	}
	n := int64(adj[0])
	if p.String("level") == "nodes" {
		// S, and S^K while it stays under dataMaxSKEntries (12 bytes each).
		return base + min(int64(dataMaxSKEntries), n*n)*12*min(int64(p.Int("k")), 1)
	}
	rows := n
	if p.String("rows") == "labelled" {
		var labelled int64
		for _, m := range []string{schema.MemberTrain, schema.MemberVal, schema.MemberTest} {
			if s := sh[m]; len(s) == 1 {
				labelled += int64(s[0])
			}
		}
		if labelled > 0 {
			rows = min(labelled, n)
		}
	}
	f, identity := n, true
	if s := sh[schema.MemberFeatures]; len(s) == 2 {
		f, identity = int64(s[1]), false
	}
	if identity && !p.Bool("inductive") {
		// The factored X: A = the kept rows of S^{K−1} (for K ≤ 2 at most
		// S's entries, 12 bytes each; counted as S's share of the input,
		// whose decoded copy base holds), one row of n per worker for the
		// min-max pass, and the columns' ranges. K > 2 forms S^{K−2}
		// products sparse: up to rows × n entries.
		est := base + memInputBytes(in) + 4*n*8
		if p.Int("k") > 2 {
			est += rows * n * 12
		}
		return est
	}
	dense := rows * f * 8
	if !identity && (p.Int("k") > 0 || p.Bool("inductive")) {
		dense += n * f * 8
	}
	return base + dense
}

// memTrain: the features decoded and the arrays training works on (the
// rows each step uses, gradients), plus what the inputs' sizes do not
// show: for hyla and rff the embedding's in×D arrays (φ(Z), ∂L/∂φ and the
// map's buffer; in = Z's rows, the feature columns or the nodes), the
// classifier's arrays, and for optimizer lbfgs L-BFGS's history (R52's
// TextSGC keeps up to 60 pairs of 52 × 17 992 weights, 0.9 GB beside
// 59 MB of features). Measured peak RSS of one stage alone:
// MR's dense corpus features (2.51 GB): HyLa-SGC and RFF-SGC 4.22 GB,
// TextSGC 3.97 GB (estimates 5.0 and 4.7 GB); on the factored X (Table 2,
// docs/performance.md): R52 TextSGC 1.11 GB (estimate 1.3 GB), Ohsumed
// TextSGC 0.69 GB (0.85 GB), HyLa-SGC 0.50 GB (0.6 GB), MR HyLa-SGC
// 0.36 GB (0.55 GB).
func memTrain(p registry.Values, in map[string][]registry.InputSize) int64 {
	est := memInputBytes(in)*9/5 + 2*memBase
	sh, ok := memTrainInputShapes(p, in)
	if !ok {
		return est
	}
	width := sh.cols
	if p.String("model") != "sgc" {
		width = sh.d
		est += trainEmbeddingArrays*sh.rows*sh.d*8 + 4*sh.rows*sh.dim*8
	}
	params := sh.classes*width + sh.classes
	est += trainClassifierArrays * params * 8
	if p.String("optimizer") == "lbfgs" {
		// One L-BFGS step (train.lbfgsStep) per epoch.
		est += nn.NewLBFGS(1, int(params)).StateBytes(p.Int("epochs"))
	}
	return est
}

// trainEmbeddingArrays is the number of in×D float64 arrays memTrain
// counts for hyla and rff: φ(Z), ∂L/∂φ and the feature map's buffer.
const trainEmbeddingArrays = 3

// trainClassifierArrays is the number of classifier-sized float64 arrays
// memTrain counts beside the optimiser's history: W and b, their
// gradient, Adam's two moments (or L-BFGS's flat parameter vector), the
// best-validation and the last epoch's copies, and a margin.
const trainClassifierArrays = 8

// trainShapes are the sizes of a train stage that its inputs' sizes do
// not show: classes C (the logits: 1 for a binary dataset), feature columns, Z's rows, and for hyla and rff
// the random features D and Z's dimension.
type trainShapes struct {
	classes, cols, rows, d, dim int64
}

// memTrainInputShapes reads trainShapes from the inputs' shapes: C from
// the features' info.classes and info.binary (bundle.Shapes reads them); the columns from
// X, X_train or the factored X's X_cols; the rows from S (level nodes) or
// the columns; D and the dimension from the samples' omega (D × dim). ok
// is false when a size the model needs is unknown.
func memTrainInputShapes(p registry.Values, in map[string][]registry.InputSize) (trainShapes, bool) {
	feats := in["features"]
	if len(feats) != 1 {
		return trainShapes{}, false
	}
	sh := feats[0].Shapes
	var t trainShapes
	if c := sh[schema.MemberInfo+".classes"]; len(c) == 1 {
		t.classes = int64(c[0])
	}
	if b := sh[schema.MemberInfo+".binary"]; len(b) == 1 && b[0] == 1 {
		t.classes = 1 // one logit: sigmoid and binary cross-entropy
	}
	for _, m := range []string{schema.MemberX, schema.MemberXTrain, schema.MemberXCols} {
		if s := sh[m]; len(s) >= 1 {
			t.cols = int64(s[len(s)-1])
			break
		}
	}
	t.rows = t.cols
	if p.String("level") == "nodes" {
		t.rows = 0
		if s := sh[schema.MemberS]; len(s) == 2 {
			t.rows = int64(s[0])
		}
	}
	if p.String("model") == "sgc" {
		return t, t.classes > 0 && t.cols > 0
	}
	if sm := in["samples"]; len(sm) == 1 {
		if s := sm[0].Shapes[schema.MemberOmega]; len(s) == 2 {
			t.d, t.dim = int64(s[0]), int64(s[1])
		}
	}
	return t, t.classes > 0 && t.rows > 0 && t.d > 0
}

// memTextGCN: the normalised corpus graph decoded (S and the raw A) and
// S's transpose for the backward pass, plus TextGCN's dense arrays. Fitted
// to the measured peaks of all eight Table 2 stages (docs/performance.md,
// "TextGCN's memory"; TestMemTextGCNAgainstMeasuredPeaks): about 10 n×hidden float64
// arrays (W1 with its gradient and Adam's moments, the lookup, S·W1, ReLU,
// the dropout and their gradients) and about 67 n×classes ones (the
// second layer's products, the softmax and its gradient, and the tape's
// recycled buffers of those sizes), which the estimate counts with a
// margin: textGCNDenseArrays and textGCNClassArrays. Without the classes
// (an older graph) the hidden width stands in for them.
func memTextGCN(p registry.Values, in map[string][]registry.InputSize) int64 {
	base := 2*memInputBytes(in) + memBase
	graphs := in["graph"]
	if len(graphs) != 1 {
		return base
	}
	adj := graphs[0].Shapes[schema.MemberAdj]
	if len(adj) != 2 {
		return base
	}
	n, h := int64(adj[0]), int64(max(p.Int("hidden"), 1))
	c := h
	if cl := graphs[0].Shapes[schema.MemberInfo+".classes"]; len(cl) == 1 && cl[0] > 0 {
		c = int64(cl[0])
	}
	return base + textGCNDenseArrays*n*h*8 + textGCNClassArrays*n*c*8
}

// textGCNDenseArrays and textGCNClassArrays are the numbers of n×hidden
// and n×classes float64 arrays memTextGCN counts: the fitted 10 and 67
// with the margin that keeps every measured stage's estimate at 1.1–1.6
// times its peak.
const (
	textGCNDenseArrays = 28
	textGCNClassArrays = 64
)

// gnnShapes are the sizes a GNN stage's memory depends on, from its graph
// input: nodes, stored adjacency entries, feature columns and stored
// feature entries (a dense feature matrix counts every entry). ok is false
// when the shapes are unknown.
type gnnShapes struct {
	n, nnzA, f, nnzX int64
	ok               bool
}

func gnnInputShapes(in map[string][]registry.InputSize) gnnShapes {
	graphs := in["graph"]
	if len(graphs) != 1 {
		return gnnShapes{}
	}
	sh := graphs[0].Shapes
	adj := sh[schema.MemberAdj]
	if len(adj) != 2 {
		return gnnShapes{}
	}
	s := gnnShapes{n: int64(adj[0]), ok: true}
	// Entries unknown (an older store): every stored byte an entry of A.
	s.nnzA = graphs[0].Bytes / 12
	if d := sh[schema.MemberAdj+".data"]; len(d) == 1 {
		s.nnzA = int64(d[0])
	}
	if x := sh[schema.MemberFeatures]; len(x) == 2 {
		s.f, s.nnzX = int64(x[1]), int64(x[0])*int64(x[1])
		if d := sh[schema.MemberFeatures+".data"]; len(d) == 1 {
			s.nnzX = int64(d[0])
		}
	}
	return s
}

// gnnBase is what every GNN stage holds besides its per-step arrays: the
// decoded inputs, the sparse adjacency and features with their transposes
// (12 bytes an entry), and the runtime.
func gnnBase(s gnnShapes, in map[string][]registry.InputSize) int64 {
	return memInputBytes(in) + memBase + 2*12*(s.nnzA+s.nnzX)
}

// memGCN: gnnBase plus the n×hidden arrays of a training and an
// evaluation pass (values, dropout masks and gradients, which the tape
// recycles from pass to pass, and the sparse products' outputs, which the
// collector frees: gcnDenseArrays of them with its headroom) and the kept
// entries of the dropped-out features. Measured peaks: docs/performance.md.
func memGCN(p registry.Values, in map[string][]registry.InputSize) int64 {
	s := gnnInputShapes(in)
	if !s.ok {
		return 2*memInputBytes(in) + memBase
	}
	h := int64(max(p.Int("hidden"), 1))
	return gnnBase(s, in) + gcnDenseArrays*s.n*h*8 + 12*s.nnzX
}

// memGAT: gnnBase plus the n×(heads·hidden) arrays of both passes
// (gatDenseArrays of them), the per-edge arrays of each attention layer
// (coefficients, dropped coefficients, masks and score gradients for
// every head: gatEdgeArrays per head and edge) and the kept features.
func memGAT(p registry.Values, in map[string][]registry.InputSize) int64 {
	s := gnnInputShapes(in)
	if !s.ok {
		return 2*memInputBytes(in) + memBase
	}
	width := int64(max(p.Int("heads"), 1) * max(p.Int("hidden"), 1))
	heads := int64(max(p.Int("heads"), 1) + max(p.Int("output_heads"), 1))
	return gnnBase(s, in) + gatDenseArrays*s.n*width*8 + gatEdgeArrays*heads*s.nnzA*8 + 12*s.nnzX
}

// memHyLaGCN: memGCN's arrays plus φ(Z) and its intermediates: rows × D
// (rows the feature columns at level features, the nodes at level nodes;
// D the samples' features), hylaGCNMapArrays of them.
func memHyLaGCN(p registry.Values, in map[string][]registry.InputSize) int64 {
	s := gnnInputShapes(in)
	if !s.ok {
		return 2*memInputBytes(in) + memBase
	}
	rows := s.f
	if p.String("level") == "nodes" {
		rows = s.n
	}
	var d int64
	if sm := in["samples"]; len(sm) == 1 {
		if l := sm[0].Shapes[schema.MemberLambda]; len(l) == 1 {
			d = int64(l[0])
		}
	}
	return memGCN(p, in) + hylaGCNMapArrays*rows*d*8
}

// The array counts of memGCN, memGAT and memHyLaGCN (fitted so that each
// estimate is at least the measured peak and at most about twice it).
const (
	gcnDenseArrays   = 48
	gatDenseArrays   = 40
	gatEdgeArrays    = 10
	hylaGCNMapArrays = 8
)
