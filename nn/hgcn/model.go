// Package hgcn trains the hyperbolic baselines of the paper's Table 1 as
// HGCN's public code (HazyResearch/hgcn) defines them: HNN (Ganea et al.
// 2018: hyperbolic linear layers and activations on the Poincaré ball),
// HGCN (Chami et al. 2019: hyperbolic linear layer, aggregation in the
// tangent space at the origin, activation that may change the curvature)
// and HGCN's "Shallow" classifier on pretrained embeddings, for node
// classification; and HGCN's link-prediction task (an edge split, the
// Fermi–Dirac decoder over hyperbolic distances, ROC-AUC and average
// precision) whose embeddings the Shallow classifier reads, as HGCN does on
// Cora and Pubmed.
//
// The geometry is package nn/manifold's (HGCN's clamps, every gradient
// checked), the gradients package autodiff's tape, the optimiser
// PyTorch's Adam (HGCN's default; its Riemannian Adam is only for shallow
// embeddings living on the ball, which these models do not have).
// Everything is float64 and deterministic: the same seeds give the same
// bits whatever the number of workers. A run whose loss, gradients or
// parameters stop being finite fails with an error naming the epoch and
// the parameter.
//
// HGCN's code, reproduced here on purpose:
//   - Only the last curvature is trainable ("--c None"): the encoder's
//     other curvatures are kept in a Python list, never registered with the
//     optimiser, so they stay at their initial 1.
//   - HypLinear drops entries of its weight matrix (not of its input), and
//     the Linear decoder applies dropout to its output logits.
//   - Weight decay is PyTorch Adam's, on every parameter (curvature and
//     biases included).
//   - Attention (HGCN's --use-att, DenseAtt, without --local-agg): edge
//     (i, j) of the propagation matrix is weighted by
//     σ(a_dst·t_i + a_src·t_j + b), t the log map at the origin of the
//     layer's points, and not renormalised (HGCN multiplies D^-1(A+I) by
//     the sigmoids); DenseAtt's dropout is never applied.
package hgcn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/nn/manifold"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Param is one trainable matrix with its Adam state.
type Param struct {
	Name  string
	Value *mat.Dense
	adam  *nn.Adam
	// positive marks a curvature: it must stay > 0.
	positive bool
}

func newParam(name string, v *mat.Dense) *Param {
	r, c := v.Dims()
	return &Param{Name: name, Value: v, adam: nn.NewAdam(0, r*c)}
}

// Model is a network: its parameters and its forward pass on a tape
// (train: with dropout drawn from rng). Forward returns node embeddings
// (Encode) or logits (Logits).
type Model interface {
	Params() []*Param
	// Encode returns the embeddings (n×dim), points of the ball for the
	// hyperbolic encoders.
	Encode(tp *autodiff.Tape, p []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node
	// Logits returns the class scores (n×classes) from the embeddings.
	Logits(tp *autodiff.Tape, p []*autodiff.Node, h *autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node
}

// Config describes a network.
type Config struct {
	Kind     string      // "hgcn", "hnn" or "shallow" (an MLP on fixed embeddings)
	Dim      int         // embedding dimension (HGCN's --dim, 16 in the paper)
	Layers   int         // HGCN's --num-layers (node classification: Layers−1 encoder layers; link prediction: Layers)
	Act      string      // "relu", "elu", "tanh" or "none"
	Dropout  float64     // HGCN's --dropout
	Bias     bool        // HGCN's --bias
	C        float64     // curvature (> 0); its initial value when LearnC
	LearnC   bool        // HGCN's "--c None": the last curvature is trained
	Att      bool        // HGCN's --use-att: attention-weighted aggregation (hgcn only)
	Classes  int         // 0 for link prediction (no decoder)
	LinkPred bool        // encoder for link prediction: one more layer, as get_dim_act_curv
	Input    *sparse.CSR // node features (shallow: the pretrained embeddings)
	Adj      *sparse.CSR // HGCN's propagation D^-1 (A+I) (hgcn only)
}

// layer is one hyperbolic layer: weight W (in×out), bias b (1×out),
// its input and output curvature indices.
type layer struct {
	w, b       int
	cIn, cOut  int
	aggregates bool
	// attention parameters (HGCN's DenseAtt: Linear(2·dim → 1) split into
	// the destination's and the source's halves, and its bias); −1 without.
	attDst, attSrc, attB int
}

// Net is HNN, HGCN or the Shallow classifier.
type Net struct {
	cfg    Config
	params []*Param
	layers []layer
	// curvature k is params[curv[k]] when ≥ 0, else the constant fixed.
	curv  []int
	fixed float64
	in    *manifold.Input
	a     *autodiff.Sparse
	// adjValues holds the stored entries of cfg.Adj (nnz×1), with attention.
	adjValues *mat.Dense
	emb       *mat.Dense // shallow: the fixed embeddings
	decW      int        // decoder weight index (−1 for link prediction)
	decB      int
	mlpW      int // shallow's hidden layer
	mlpB      int
	manifold  manifold.Poincare
}

// glorot returns an r×c matrix uniform in ±gain·√(6/(r+c)) (PyTorch's
// xavier_uniform_), drawn in row-major order.
func glorot(rng *rand.Rand, r, c int, gain float64) *mat.Dense {
	bound := gain * math.Sqrt(6/float64(r+c))
	m := mat.NewDense(r, c, nil)
	for i, raw := 0, m.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = bound * (2*rng.Float64() - 1)
	}
	return m
}

// linearInit returns nn.Linear's default initialisation for a in→out
// layer: weight (in×out) and bias uniform in ±1/√in.
func linearInit(rng *rand.Rand, in, out int) (*mat.Dense, *mat.Dense) {
	bound := 1 / math.Sqrt(float64(in))
	w := mat.NewDense(in, out, nil)
	for i, raw := 0, w.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = bound * (2*rng.Float64() - 1)
	}
	b := mat.NewDense(1, out, nil)
	for i, raw := 0, b.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = bound * (2*rng.Float64() - 1)
	}
	return w, b
}

// New builds a network from cfg, drawing its initial weights from rng
// (layer by layer: W then, for the decoder, its bias).
func New(cfg Config, rng *rand.Rand) (*Net, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	m := &Net{cfg: cfg, decW: -1, decB: -1, mlpW: -1, mlpB: -1}
	add := func(name string, v *mat.Dense) int {
		m.params = append(m.params, newParam(name, v))
		return len(m.params) - 1
	}
	f := cfg.Input.Cols
	if cfg.Kind == "shallow" {
		// HGCN's Shallow with pretrained embeddings: Linear(dim→dim,
		// act) layers (Layers−1 of them), then the Linear decoder.
		m.emb = cfg.Input.ToDense()
		in := f
		if cfg.Layers == 2 {
			w, b := linearInit(rng, in, cfg.Dim)
			m.mlpW, m.mlpB = add("layer0.W", w), add("layer0.b", b)
			in = cfg.Dim
		}
		w, b := linearInit(rng, in, cfg.Classes)
		m.decW, m.decB = add("decoder.W", w), add("decoder.b", b)
		return m, nil
	}
	n := cfg.Layers - 1
	if cfg.LinkPred {
		n = cfg.Layers
	}
	// Curvatures 0..n; the last is the model's (trainable with LearnC).
	m.fixed = cfg.C
	if cfg.LearnC {
		m.fixed = 1
	}
	m.curv = make([]int, n+1)
	for k := range m.curv {
		m.curv[k] = -1
	}
	if cfg.LearnC {
		m.curv[n] = add("c", mat.NewDense(1, 1, []float64{cfg.C}))
		m.params[m.curv[n]].positive = true
	}
	in := f
	for l := 0; l < n; l++ {
		ly := layer{aggregates: cfg.Kind != "hnn", attDst: -1, attSrc: -1, attB: -1}
		out := cfg.Dim
		if cfg.Kind == "lgcn" {
			// LorentzLinear maps the space part: dim−1 outputs, the time
			// coordinate follows from the hyperboloid.
			out = cfg.Dim - 1
		}
		ly.w = add(fmt.Sprintf("layer%d.W", l), glorot(rng, in, out, math.Sqrt2))
		if cfg.Bias {
			ly.b = add(fmt.Sprintf("layer%d.b", l), mat.NewDense(1, out, nil))
		} else {
			ly.b = -1
		}
		if cfg.Kind != "hnn" {
			ly.cIn, ly.cOut = l, l+1
		} else {
			// HNN: every layer on the model's curvature.
			ly.cIn, ly.cOut = n, n
		}
		m.layers = append(m.layers, ly)
		in = out
	}
	if cfg.Kind == "hnn" {
		// The input map uses the model's curvature too.
		for k := range m.curv[:n] {
			m.curv[k] = m.curv[n]
		}
		if !cfg.LearnC {
			m.fixed = cfg.C
		}
	}
	if cfg.Classes > 0 {
		w, b := linearInit(rng, cfg.Dim, cfg.Classes)
		m.decW = add("decoder.W", w)
		if cfg.Bias {
			m.decB = add("decoder.b", b)
		}
	}
	if cfg.Att {
		// Drawn after every other parameter, so that a model with and one
		// without attention start from the same weights for the same seed.
		for l := range m.layers {
			w, b := linearInit(rng, 2*cfg.Dim, 1)
			raw := w.RawMatrix().Data
			m.layers[l].attDst = add(fmt.Sprintf("layer%d.att.dst", l), mat.NewDense(cfg.Dim, 1, raw[:cfg.Dim]))
			m.layers[l].attSrc = add(fmt.Sprintf("layer%d.att.src", l), mat.NewDense(cfg.Dim, 1, raw[cfg.Dim:]))
			m.layers[l].attB = add(fmt.Sprintf("layer%d.att.b", l), b)
		}
	}
	m.in = manifold.NewInput(autodiff.NewSparse(cfg.Input))
	if cfg.Kind == "hgcn" || cfg.Kind == "lgcn" {
		m.a = autodiff.NewSparse(cfg.Adj)
	}
	if cfg.Att {
		// The propagation matrix's entries as an nnz×1 column (one row
		// when it has none, as the edge operations want).
		m.adjValues = mat.NewDense(max(cfg.Adj.NNZ(), 1), 1, nil)
		copy(m.adjValues.RawMatrix().Data, cfg.Adj.Data)
	}
	return m, nil
}

func (c *Config) check() error {
	switch c.Kind {
	case "hgcn", "hnn", "lgcn", "shallow":
	default:
		return fmt.Errorf("hgcn: model %q, want hgcn, hnn, lgcn or shallow", c.Kind)
	}
	if c.Input == nil {
		return fmt.Errorf("hgcn: no input features")
	}
	if c.Dim < 1 {
		return fmt.Errorf("hgcn: dimension %d, want ≥ 1", c.Dim)
	}
	if c.Layers < 2 && c.Kind != "shallow" {
		return fmt.Errorf("hgcn: %d layers, want ≥ 2 (HGCN's --num-layers counts the decoder)", c.Layers)
	}
	if c.Kind == "shallow" && (c.Layers < 1 || c.Layers > 2) {
		return fmt.Errorf("hgcn: shallow classifier with %d layers, want 1 or 2", c.Layers)
	}
	if !(c.Dropout >= 0 && c.Dropout < 1) {
		return fmt.Errorf("hgcn: dropout %v, want 0 ≤ p < 1", c.Dropout)
	}
	if !(c.C > 0) || math.IsInf(c.C, 0) {
		return fmt.Errorf("hgcn: curvature %v, want a finite value > 0", c.C)
	}
	switch c.Act {
	case "relu", "elu", "tanh", "none":
	default:
		return fmt.Errorf("hgcn: activation %q, want relu, elu, tanh or none", c.Act)
	}
	if !c.LinkPred && c.Classes < 2 {
		return fmt.Errorf("hgcn: %d classes, want ≥ 2", c.Classes)
	}
	if c.Kind == "lgcn" && c.Dim < 2 {
		return fmt.Errorf("hgcn: LGCN dimension %d, want ≥ 2 (it counts the time coordinate)", c.Dim)
	}
	if c.Att && c.Kind != "hgcn" {
		return fmt.Errorf("hgcn: attention (use_att) is HGCN's aggregation, not %s's", c.Kind)
	}
	if c.Kind == "hgcn" || c.Kind == "lgcn" {
		if c.Adj == nil || c.Adj.Rows != c.Input.Rows || c.Adj.Cols != c.Input.Rows {
			return fmt.Errorf("hgcn: the adjacency does not match the %d feature rows", c.Input.Rows)
		}
	}
	return nil
}

// Params returns the parameters in the order New drew them.
func (m *Net) Params() []*Param { return m.params }

// Curvature returns the model's (last) curvature as it is now.
func (m *Net) Curvature() float64 {
	if k := m.curv; len(k) > 0 && k[len(k)-1] >= 0 {
		return m.params[k[len(k)-1]].Value.At(0, 0)
	}
	return m.cfg.C
}

func (m *Net) curvature(tp *autodiff.Tape, p []*autodiff.Node, k int) *autodiff.Node {
	if i := m.curv[k]; i >= 0 {
		return p[i]
	}
	return manifold.Scalar(tp, m.fixed)
}

func (m *Net) act(tp *autodiff.Tape, x *autodiff.Node) *autodiff.Node {
	switch m.cfg.Act {
	case "relu":
		return tp.ReLU(x)
	case "elu":
		return tp.ELU(x)
	case "tanh":
		return tp.Map(x, math.Tanh, func(_, y float64) float64 { return 1 - y*y })
	}
	return x
}

// Encode returns the embeddings: points of the ball of the model's
// curvature for HNN and HGCN, the fixed embeddings for the Shallow model.
func (m *Net) Encode(tp *autodiff.Tape, p []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node {
	if m.cfg.Kind == "shallow" {
		return tp.Const(m.emb)
	}
	drop := 0.0
	if train {
		drop = m.cfg.Dropout
	}
	if m.cfg.Kind == "lgcn" {
		return m.encodeLorentz(tp, p, drop, rng)
	}
	ball := m.manifold
	var h *autodiff.Node
	for l, ly := range m.layers {
		cIn, cOut := m.curvature(tp, p, ly.cIn), m.curvature(tp, p, ly.cOut)
		w := tp.Dropout(p[ly.w], drop, rng)
		// HypLinear: Möbius product, projection, Möbius bias.
		if l == 0 {
			h = m.in.MobiusMatVec(tp, w, m.in.Scale(tp, cIn), cIn)
		} else {
			h = ball.MobiusMatVec(tp, w, h, cIn)
		}
		h = ball.Proj(tp, h, cIn)
		if ly.b >= 0 {
			hb := ball.Proj(tp, ball.ExpMap0(tp, p[ly.b], cIn), cIn)
			h = ball.Proj(tp, ball.MobiusAdd(tp, h, hb, cIn), cIn)
		}
		// HypAgg: aggregation in the tangent space at the origin.
		if ly.aggregates {
			t := ball.LogMap0(tp, h, cIn)
			var agg *autodiff.Node
			if ly.attDst >= 0 {
				agg = m.attend(tp, p, ly, t)
			} else {
				agg = tp.SpMM(m.a, t)
			}
			h = ball.Proj(tp, ball.ExpMap0(tp, agg, cIn), cIn)
		}
		// HypAct: the activation in the tangent space, onto the next
		// curvature.
		h = ball.Proj(tp, ball.ExpMap0(tp, m.act(tp, ball.LogMap0(tp, h, cIn)), cOut), cOut)
	}
	return h
}

// attend is HGCN's attention aggregation (HypAgg with use_att, DenseAtt):
// out_i = Σ_j a_ij·σ(a_dst·t_i + a_src·t_j + b)·t_j over the stored entries
// a_ij of D^-1(A+I), t the tangent vectors at the origin.
func (m *Net) attend(tp *autodiff.Tape, p []*autodiff.Node, ly layer, t *autodiff.Node) *autodiff.Node {
	g := m.cfg.Adj
	e := tp.EdgeScores(g, tp.MatMul(t, p[ly.attDst]), tp.MatMul(t, p[ly.attSrc]))
	e = tp.AddB(e, p[ly.attB])
	sig := tp.Map(e, sigmoid, func(_, y float64) float64 { return y * (1 - y) })
	return tp.EdgeAggregate(g, tp.MulB(sig, tp.Const(m.adjValues)), t)
}

// sigmoid is 1/(1+e^−x), computed without overflow for either sign.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	z := math.Exp(x)
	return z / (1 + z)
}

// Logits returns the decoder's class scores from the embeddings h: HGCN's
// LinearDecoder (log map at the origin, then a linear layer whose output
// gets dropout) or, for the Shallow model, its hidden layer first.
func (m *Net) Logits(tp *autodiff.Tape, p []*autodiff.Node, h *autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node {
	drop := 0.0
	if train {
		drop = m.cfg.Dropout
	}
	linear := func(x *autodiff.Node, w, b int) *autodiff.Node {
		y := tp.MatMul(x, p[w])
		if b >= 0 {
			y = tp.AddBias(y, p[b])
		}
		return tp.Dropout(y, drop, rng)
	}
	if m.cfg.Kind == "shallow" {
		if m.mlpW >= 0 {
			h = m.act(tp, linear(h, m.mlpW, m.mlpB))
		}
		return linear(h, m.decW, m.decB)
	}
	c := m.curvature(tp, p, len(m.curv)-1)
	var t *autodiff.Node
	if m.cfg.Kind == "lgcn" {
		t = manifold.Lorentz{}.LogMap0(tp, h, c) // its first coordinate is 0 (proj_tan0)
	} else {
		t = m.manifold.LogMap0(tp, h, c)
	}
	return linear(t, m.decW, m.decB)
}

// encodeLorentz is LGCN's encoder (Zhang et al. 2021, its public code):
// the features mapped onto the hyperboloid (exp map at the origin), then
// per layer LorentzLinear (log map at the origin, the weight — with
// dropout on its entries — and bias on the space part, exp map back), the
// Lorentzian centroid of the neighbourhood under D^-1 (A+I), and the
// activation in the tangent space at the origin onto the next curvature.
// The first layer's log map of the mapped features is a row scaling of
// the sparse features (manifold.Lorentz.SparseTangent).
func (m *Net) encodeLorentz(tp *autodiff.Tape, p []*autodiff.Node, drop float64, rng *rand.Rand) *autodiff.Node {
	var lor manifold.Lorentz
	var h *autodiff.Node
	for l, ly := range m.layers {
		cIn, cOut := m.curvature(tp, p, ly.cIn), m.curvature(tp, p, ly.cOut)
		w := tp.Dropout(p[ly.w], drop, rng)
		var mx *autodiff.Node
		if l == 0 {
			s := lor.SparseTangent(tp, tp.Const(m.in.Norms()), cIn)
			mx = tp.MulB(tp.SpMM(m.in.X, w), s)
		} else {
			t := lor.LogMap0(tp, h, cIn)
			mx = tp.MatMul(tp.ColSlice(t, 1, t.Cols()), w)
		}
		if ly.b >= 0 {
			mx = tp.AddBias(mx, p[ly.b])
		}
		h = lor.ExpMap0(tp, tp.ConcatCols(tp.Const(mat.NewDense(mx.Rows(), 1, nil)), mx), cIn)
		h = lor.Centroid(tp, m.a, h, cIn)
		h = lor.ExpMap0(tp, m.act(tp, lor.LogMap0(tp, h, cIn)), cOut)
	}
	return h
}

// SqDist returns the squared hyperbolic distances between the rows a[k]
// and b[k] of the embeddings h (the link-prediction decoder's input), on
// the model's curvature: the Poincaré ball's for HNN and HGCN, LGCN's
// squared Lorentzian distance for LGCN.
func (m *Net) SqDist(tp *autodiff.Tape, p []*autodiff.Node, h *autodiff.Node, a, b []int) *autodiff.Node {
	return m.sqDist(tp, tp.GatherRows(h, a), tp.GatherRows(h, b), m.curvature(tp, p, len(m.curv)-1))
}

// sqDist is the model's squared distance between the rows of x and y.
func (m *Net) sqDist(tp *autodiff.Tape, x, y, c *autodiff.Node) *autodiff.Node {
	if m.cfg.Kind == "lgcn" {
		return manifold.Lorentz{}.SqDist(tp, x, y, c)
	}
	return m.manifold.SqDist(tp, x, y, c)
}

// RowNormalizeSelfLoops returns HGCN's propagation matrix D^-1 (A + I),
// D the row sums of A + I (utils/data_utils.py's normalize(adj + eye)).
func RowNormalizeSelfLoops(a *sparse.CSR) (*sparse.CSR, error) {
	ai, err := a.AddIdentity()
	if err != nil {
		return nil, err
	}
	return sparse.RowNormalize(ai), nil
}
