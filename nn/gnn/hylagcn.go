package gnn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// ---------------------------------------------------------------- HyLa-GCN

// HyLaGCN is the paper's first future direction ("HyLa with non-linear
// graph networks such as GCN"): the HyLa feature map Φ of an embedding Z on
// the Poincaré ball feeds Kipf & Welling's two-layer GCN in place of
// HyLa-SGC's linear head on S^K·Φ. At the level of input features (Z has
// one row per feature, the node features are X·Φ(Z), as HyLa-SGC's):
//
//	logits = Â · drop(ReLU(Â · drop(X) · Φ(Z) · W1)) · W2,
//
// the GCN with its first weight matrix factored through Φ(Z). At the level
// of nodes (Z has one row per node, the node features are Φ(Z)):
//
//	logits = Â · drop(ReLU(Â · drop(Φ(Z)) · W1)) · W2.
//
// With Center, the first layer's input is centred over the nodes (see
// HyLaGCNConfig.Center).
//
// Z and the GCN are trained together: Z by Riemannian SGD on the Poincaré
// ball at its own learning rate (exactly HyLa-SGC's update, hyla.RSGDStep),
// W1 and W2 by Adam as the GCN (no biases, Glorot initialisation, weight
// decay on W1 only).
type HyLaGCN struct {
	Z, W1, W2 *Param
	Dropout   float64
	center    bool
	nodes     bool
	a         *autodiff.Sparse
	x         *autodiff.Sparse // level features only
	layer     *autodiff.MapLayer
}

// HyLaGCNConfig describes a HyLa-GCN.
type HyLaGCNConfig struct {
	// Map is the HyLa feature map (hyla.HyLaMap).
	Map autodiff.FeatureMap
	// Z0 is the initial embedding (copied): d.X.Cols rows at level
	// "features", one per node at level "nodes"; Map.Dim() columns, every
	// row inside the unit ball.
	Z0 *mat.Dense
	// Level is "features" or "nodes".
	Level string
	// LREmbedding is the learning rate of Z (Riemannian SGD).
	LREmbedding float64
	// Center subtracts the mean over the nodes from the first layer's
	// input (after W1, the same thing): φ(Z) starts nearly equal for every
	// node (Z near the origin), and without centring Adam's first steps
	// move all nodes' hidden units together until the ReLUs die and the
	// model predicts one class.
	Center bool
	// Hidden, Dropout and WeightDecay are the GCN's.
	Hidden               int
	Dropout, WeightDecay float64
}

// NewHyLaGCN returns a HyLa-GCN for d, W1 (D×Hidden) then W2 drawn from rng.
func NewHyLaGCN(d *Data, cfg HyLaGCNConfig, rng *rand.Rand) (*HyLaGCN, error) {
	if cfg.Map == nil {
		return nil, fmt.Errorf("gnn: HyLa-GCN without a feature map")
	}
	if cfg.Hidden < 1 {
		return nil, fmt.Errorf("gnn: HyLa-GCN hidden width %d, want ≥ 1", cfg.Hidden)
	}
	if !(cfg.Dropout >= 0 && cfg.Dropout < 1) {
		return nil, fmt.Errorf("gnn: dropout %v, want 0 ≤ p < 1", cfg.Dropout)
	}
	if !(cfg.LREmbedding >= 0) || math.IsInf(cfg.LREmbedding, 0) {
		return nil, fmt.Errorf("gnn: embedding learning rate %v, want a finite value ≥ 0", cfg.LREmbedding)
	}
	var rows int
	switch cfg.Level {
	case "features":
		rows = d.X.Cols
	case "nodes":
		rows = d.A.Rows
	default:
		return nil, fmt.Errorf("gnn: HyLa-GCN level %q, want features or nodes", cfg.Level)
	}
	if cfg.Z0 == nil {
		return nil, fmt.Errorf("gnn: HyLa-GCN without an initial embedding")
	}
	if r, c := cfg.Z0.Dims(); r != rows || c != cfg.Map.Dim() {
		return nil, fmt.Errorf("gnn: initial embedding is %d×%d, want %d×%d (level %s, dimension %d)", r, c, rows, cfg.Map.Dim(), cfg.Level, cfg.Map.Dim())
	}
	z := mat.DenseCopyOf(cfg.Z0)
	for i := 0; i < rows; i++ {
		var sq float64
		for _, v := range z.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("gnn: initial embedding row %d is not finite", i)
			}
			sq += v * v
		}
		if sq >= 1 {
			return nil, fmt.Errorf("gnn: initial embedding row %d has norm %.4g, outside the Poincaré ball", i, math.Sqrt(sq))
		}
	}
	m := &HyLaGCN{
		Z:       &Param{Name: "Z", Value: z},
		W1:      newParam("W1", glorot(rng, cfg.Map.Features(), cfg.Hidden), cfg.WeightDecay),
		W2:      newParam("W2", glorot(rng, cfg.Hidden, d.Classes), 0),
		Dropout: cfg.Dropout, center: cfg.Center, nodes: cfg.Level == "nodes",
		a: autodiff.NewSparse(d.A), layer: autodiff.NewMapLayer(cfg.Map),
	}
	if !m.nodes {
		m.x = autodiff.NewSparse(d.X)
	}
	lr := cfg.LREmbedding
	m.Z.step = func(g *mat.Dense) { hyla.RSGDStep(z, g, lr) }
	return m, nil
}

// Params returns Z, W1 and W2.
func (m *HyLaGCN) Params() []*Param { return []*Param{m.Z, m.W1, m.W2} }

// Forward returns the logits.
func (m *HyLaGCN) Forward(tp *autodiff.Tape, p []*autodiff.Node, train bool, rng *rand.Rand) *autodiff.Node {
	drop := 0.0
	if train {
		drop = m.Dropout
	}
	phi := tp.Features(m.layer, p[0])
	var xw *autodiff.Node
	if m.nodes {
		if train {
			phi = tp.Dropout(phi, drop, rng)
		}
		xw = tp.MatMul(phi, p[1])
	} else {
		xw = tp.SpMMDrop(m.x, tp.MatMul(phi, p[1]), drop, rng)
	}
	if m.center {
		xw = tp.CenterColumns(xw)
	}
	h := tp.ReLU(tp.SpMM(m.a, xw))
	if train {
		h = tp.Dropout(h, drop, rng)
	}
	return tp.SpMM(m.a, tp.MatMul(h, p[2]))
}
