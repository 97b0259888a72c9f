package hgcn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/hylaflow/hylaflow/nn"
	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Edge is an undirected node pair, I < J.
type Edge struct{ I, J int }

// EdgeSplit is HGCN's link-prediction split (utils/data_utils.py's
// mask_edges): the positive edges shuffled, the first ValProp·m for
// validation, the next TestProp·m for test, the rest for training (the
// only edges the encoder sees); as many negative pairs for validation and
// test as positives.
type EdgeSplit struct {
	N                   int
	Train, Val, Test    []Edge
	ValNeg, TestNeg     []Edge
	trainSet, positives map[Edge]bool
}

// SplitEdges splits the undirected graph adj (symmetric, no self loops
// needed; the diagonal is ignored) with proportions valProp and testProp
// (HGCN: 0.05 and 0.10), drawing from rng.
//
// HGCN enumerates every non-edge (an n×n dense matrix) and shuffles them;
// for Pubmed that is 194 million pairs, so negatives here are drawn by
// rejection: uniform pairs i < j that are not edges, without repeats. The
// distribution is the same (uniform over non-edges); HGCN's list also
// holds the diagonal pairs (i, i), which are not drawn here.
func SplitEdges(adj *sparse.CSR, valProp, testProp float64, rng *rand.Rand) (*EdgeSplit, error) {
	n := adj.Rows
	if adj.Cols != n {
		return nil, fmt.Errorf("hgcn: adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	if !(valProp >= 0 && testProp >= 0 && valProp+testProp < 1) {
		return nil, fmt.Errorf("hgcn: edge proportions val %v test %v, want ≥ 0 with a sum < 1", valProp, testProp)
	}
	var pos []Edge
	for i := 0; i < n; i++ {
		for k := adj.Indptr[i]; k < adj.Indptr[i+1]; k++ {
			if j := int(adj.Indices[k]); j > i && adj.Data[k] != 0 {
				pos = append(pos, Edge{i, j})
			}
		}
	}
	m := len(pos)
	nVal, nTest := int(float64(m)*valProp), int(float64(m)*testProp)
	if m-nVal-nTest < 1 || (valProp > 0 && nVal == 0) || (testProp > 0 && nTest == 0) {
		return nil, fmt.Errorf("hgcn: %d edges are too few for a %v/%v validation/test split", m, valProp, testProp)
	}
	rng.Shuffle(m, func(a, b int) { pos[a], pos[b] = pos[b], pos[a] })
	s := &EdgeSplit{N: n, Val: pos[:nVal], Test: pos[nVal : nVal+nTest], Train: pos[nVal+nTest:],
		positives: make(map[Edge]bool, m), trainSet: make(map[Edge]bool, m-nVal-nTest)}
	for _, e := range pos {
		s.positives[e] = true
	}
	for _, e := range s.Train {
		s.trainSet[e] = true
	}
	if pairs := float64(n) * float64(n-1) / 2; float64(m+nVal+nTest) > 0.5*pairs {
		return nil, fmt.Errorf("hgcn: the graph is too dense (%d edges of %.0f pairs) to draw %d negative pairs", m, pairs, nVal+nTest)
	}
	seen := make(map[Edge]bool, nVal+nTest)
	negs := make([]Edge, 0, nVal+nTest)
	for len(negs) < nVal+nTest {
		e, ok := randomPair(n, rng)
		if !ok || s.positives[e] || seen[e] {
			continue
		}
		seen[e] = true
		negs = append(negs, e)
	}
	s.ValNeg, s.TestNeg = negs[:nVal], negs[nVal:]
	return s, nil
}

// randomPair draws a uniform pair i < j (false for i == j).
func randomPair(n int, rng *rand.Rand) (Edge, bool) {
	i, j := rng.IntN(n), rng.IntN(n)
	if i == j {
		return Edge{}, false
	}
	if i > j {
		i, j = j, i
	}
	return Edge{i, j}, true
}

// TrainAdjacency returns the symmetric adjacency of the training edges.
func (s *EdgeSplit) TrainAdjacency() (*sparse.CSR, error) {
	ri := make([]int, 0, 2*len(s.Train))
	ci := make([]int, 0, 2*len(s.Train))
	v := make([]float64, 0, 2*len(s.Train))
	for _, e := range s.Train {
		ri, ci, v = append(ri, e.I, e.J), append(ci, e.J, e.I), append(v, 1, 1)
	}
	return sparse.FromCOO(s.N, s.N, ri, ci, v)
}

// TrainNegatives draws k training negatives: uniform pairs that are not
// training edges. As in HGCN, whose pool of training negatives is every
// non-edge plus the validation and test edges, a held-out edge can be
// drawn as a negative (the encoder never sees it as an edge).
func (s *EdgeSplit) TrainNegatives(k int, rng *rand.Rand) []Edge {
	out := make([]Edge, 0, k)
	for len(out) < k {
		e, ok := randomPair(s.N, rng)
		if !ok || s.trainSet[e] {
			continue
		}
		out = append(out, e)
	}
	return out
}

func ends(es []Edge) ([]int, []int) {
	a, b := make([]int, len(es)), make([]int, len(es))
	for k, e := range es {
		a[k], b[k] = e.I, e.J
	}
	return a, b
}

// FermiDirac is HGCN's decoder: the probability of an edge at squared
// distance d² is 1/(exp((d² − R)/T) + 1).
type FermiDirac struct{ R, T float64 }

// Prob returns the edge probability for a squared distance.
func (f FermiDirac) Prob(sq float64) float64 { return 1 / (math.Exp((sq-f.R)/f.T) + 1) }

// LPConfig is a link-prediction run.
type LPConfig struct {
	Epochs              int
	LR, WeightDecay     float64
	Patience, MinEpochs int // HGCN: 100, 100
	Decoder             FermiDirac
	Workers             int
	Progress            func(LPStats)
}

// LPStats is one epoch's record.
type LPStats struct {
	Epoch  int     `json:"epoch"`
	Loss   float64 `json:"loss"`
	ValROC float64 `json:"val_roc"`
	ValAP  float64 `json:"val_ap"`
	C      float64 `json:"c"`
}

// LPResult is the outcome: the metrics of the epoch with the best
// validation (ROC-AUC + AP)/2 (HGCN's rule) and its embeddings.
type LPResult struct {
	TestROC, TestAP, ValROC, ValAP float64
	StopEpoch, Epochs              int
	StoppedEarly                   bool
	Curvature                      float64
	Embeddings                     *mat.Dense
	Curves                         []LPStats
}

// TrainLinkPrediction fits the encoder m (built with LinkPred) on the
// split's training edges: each epoch, the binary cross-entropy of the
// Fermi–Dirac probabilities of the training edges and of as many negatives
// drawn from negRNG, one Adam step; the validation edges pick the epoch.
// Dropout masks come from dropRNG.
func TrainLinkPrediction(ctx context.Context, m *Net, s *EdgeSplit, cfg LPConfig, negRNG, dropRNG *rand.Rand) (*LPResult, error) {
	if cfg.Epochs < 1 {
		return nil, fmt.Errorf("hgcn: epochs = %d, want ≥ 1", cfg.Epochs)
	}
	if !(cfg.Decoder.T > 0) {
		return nil, fmt.Errorf("hgcn: Fermi-Dirac temperature %v, want > 0", cfg.Decoder.T)
	}
	ps := m.Params()
	tp := autodiff.New(cfg.Workers)
	nodes := make([]*autodiff.Node, len(ps))
	bind := func() {
		tp.Reset()
		for i, p := range ps {
			nodes[i] = tp.Param(p.Value)
		}
	}
	ta, tb := ends(s.Train)
	res := &LPResult{StopEpoch: -1}
	best := math.Inf(-1)
	counter := 0
	// Chance: both means of softplus(0) = ln 2.
	watch := nn.LossWatch{Chance: 2 * math.Ln2, Factor: LinkPredDivergenceFactor}
	tied := -1.0 // the last epoch's validation probability when all pairs tie, else −1
	for epoch := 0; epoch < cfg.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bind()
		h := m.Encode(tp, nodes, true, dropRNG)
		na, nb := ends(s.TrainNegatives(len(s.Train), negRNG))
		z := func(a, b []int) *autodiff.Node {
			return tp.Scale(tp.AddConst(m.SqDist(tp, nodes, h, a, b), -cfg.Decoder.R), 1/cfg.Decoder.T)
		}
		// −log p = softplus(z) for an edge, −log(1−p) = softplus(−z) for a
		// non-edge, z = (d² − R)/T.
		loss := tp.Add(tp.MeanAll(tp.Softplus(z(ta, tb))), tp.MeanAll(tp.Softplus(tp.Scale(z(na, nb), -1))))
		if err := watch.Check(epoch, loss.Scalar()); err != nil {
			return nil, lossDiverged(err)
		}
		if err := tp.Backward(loss); err != nil {
			return nil, err
		}
		if err := step(ps, nodes, cfg.LR, cfg.WeightDecay, epoch); err != nil {
			return nil, err
		}
		bind()
		h = m.Encode(tp, nodes, false, nil)
		if v, bad := firstNonFinite(h.Value); bad {
			return nil, &DivergedError{Epoch: epoch, What: "the embeddings", Value: v}
		}
		c := m.Curvature()
		valROC, valAP, tie := m.scoreEdgesTie(h.Value, c, cfg.Decoder, s.Val, s.ValNeg)
		tied = tie
		st := LPStats{Epoch: epoch, Loss: loss.Scalar(), ValROC: valROC, ValAP: valAP, C: c}
		res.Curves = append(res.Curves, st)
		res.Epochs = epoch + 1
		if cfg.Progress != nil {
			cfg.Progress(st)
		}
		if metric := (valROC + valAP) / 2; metric > best {
			best = metric
			res.ValROC, res.ValAP, res.StopEpoch, res.Curvature = valROC, valAP, epoch, c
			res.TestROC, res.TestAP = m.scoreEdges(h.Value, c, cfg.Decoder, s.Test, s.TestNeg)
			res.Embeddings = mat.DenseCopyOf(h.Value)
			counter = 0
		} else {
			counter++
			if cfg.Patience > 0 && counter >= cfg.Patience && epoch > cfg.MinEpochs {
				res.StoppedEarly = epoch+1 < cfg.Epochs
				break
			}
		}
	}
	if err := watch.Done(); err != nil {
		return nil, lossDiverged(err)
	}
	if tied >= 0 {
		return nil, &DivergedError{Epoch: res.Epochs - 1, Value: tied,
			What: "the link probability of every validation pair, the same for all (the embeddings collapsed),"}
	}
	return res, nil
}

// LinkPredDivergenceFactor is how many times its reference (the larger of
// the first epoch's loss and chance's, 2 ln 2) link prediction's last
// training loss may be. The Fermi-Dirac loss is bounded — the ball's
// projection bounds every distance — so a diverged run cannot grow a
// thousandfold as a classifier's does (nn.DivergenceFactor): at a learning
// rate of 1e6, HGCN's ends at twice chance's on the synthetic Disease tree,
// where a learning run ends at a third of it.
const LinkPredDivergenceFactor = 1.5

// scoreEdges returns ROC-AUC and AP of the decoder's probabilities for
// positive and negative pairs of the embeddings h.
func (m *Net) scoreEdges(h *mat.Dense, c float64, dec FermiDirac, pos, neg []Edge) (float64, float64) {
	roc, ap, _ := m.scoreEdgesTie(h, c, dec, pos, neg)
	return roc, ap
}

// scoreEdgesTie is scoreEdges that also returns the probability every pair
// gets when they all get the same one (a collapsed embedding: every node
// at one point), else −1.
func (m *Net) scoreEdgesTie(h *mat.Dense, c float64, dec FermiDirac, pos, neg []Edge) (float64, float64, float64) {
	tp := autodiff.New(1)
	cn := tp.Const(mat.NewDense(1, 1, []float64{c}))
	hn := tp.Const(h)
	score := func(es []Edge) []float64 {
		if len(es) == 0 {
			return nil
		}
		a, b := ends(es)
		d := m.sqDist(tp, tp.GatherRows(hn, a), tp.GatherRows(hn, b), cn).Value
		out := make([]float64, len(es))
		for k := range out {
			out[k] = dec.Prob(d.At(k, 0))
		}
		return out
	}
	ps, ns := score(pos), score(neg)
	tie := -1.0
	if all := append(slices.Clone(ps), ns...); len(all) > 1 {
		tie = all[0]
		for _, p := range all[1:] {
			if p != tie {
				tie = -1
				break
			}
		}
	}
	return ROCAUC(ps, ns), AveragePrecision(ps, ns), tie
}

// ROCAUC is the area under the ROC curve of scores for positives and
// negatives: the probability that a positive outscores a negative, ties
// counting one half (sklearn's roc_auc_score).
func ROCAUC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return math.NaN()
	}
	type sc struct {
		v   float64
		pos bool
	}
	all := make([]sc, 0, len(pos)+len(neg))
	for _, v := range pos {
		all = append(all, sc{v, true})
	}
	for _, v := range neg {
		all = append(all, sc{v, false})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].v < all[b].v })
	// Mann–Whitney U from average ranks.
	var rankSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		avg := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].pos {
				rankSum += avg
			}
		}
		i = j
	}
	np, nn := float64(len(pos)), float64(len(neg))
	return (rankSum - np*(np+1)/2) / (np * nn)
}

// AveragePrecision is sklearn's average_precision_score: Σ_k (R_k −
// R_{k−1})·P_k over the distinct score thresholds, from the highest down.
func AveragePrecision(pos, neg []float64) float64 {
	if len(pos) == 0 {
		return math.NaN()
	}
	scores := append(slices.Clone(pos), neg...)
	isPos := make([]bool, len(scores))
	for i := range pos {
		isPos[i] = true
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	var tp, fp, ap, lastRecall float64
	total := float64(len(pos))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			if isPos[idx[j]] {
				tp++
			} else {
				fp++
			}
			j++
		}
		recall := tp / total
		ap += (recall - lastRecall) * tp / (tp + fp)
		lastRecall = recall
		i = j
	}
	return ap
}
