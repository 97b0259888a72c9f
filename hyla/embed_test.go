package hyla

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// treeGraph returns the symmetric adjacency of a complete tree with the given
// branching factor and depth (node 0 is the root) and each node's depth.
func treeGraph(t *testing.T, branching, depth int) (*sparse.CSR, []int) {
	t.Helper()
	var ri, ci []int
	level := []int{0}
	depths := []int{0}
	next := 1
	for l := 1; l <= depth; l++ {
		var nl []int
		for _, p := range level {
			for b := 0; b < branching; b++ {
				ri = append(ri, p, next)
				ci = append(ci, next, p)
				depths = append(depths, l)
				nl = append(nl, next)
				next++
			}
		}
		level = nl
	}
	adj, err := sparse.FromCOO(next, next, ri, ci, nil)
	if err != nil {
		t.Fatal(err)
	}
	return adj, depths
}

func TestEmbedLossGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	n, dim := 6, 3
	z := randomBallPoints(rng, n, dim, 0.8)
	batch := []embedExample{
		{u: 0, v: 1, negs: []int{2, 3, 4}},
		{u: 1, v: 0, negs: []int{5, 2}},
		{u: 3, v: 4, negs: []int{0, 1, 5, 2}},
	}
	grad := mat.NewDense(n, dim, nil)
	touched := make([]bool, n)
	var list []int
	embedLoss(z, batch, grad, touched, &list)
	loss := func() float64 {
		g := mat.NewDense(n, dim, nil)
		var l []int
		return embedLoss(z, batch, g, make([]bool, n), &l)
	}
	for i := 0; i < n; i++ {
		for k := 0; k < dim; k++ {
			x := z.At(i, k)
			h := 1e-6
			z.Set(i, k, x+h)
			lp := loss()
			z.Set(i, k, x-h)
			lm := loss()
			z.Set(i, k, x)
			fd := (lp - lm) / (2 * h)
			if math.Abs(fd-grad.At(i, k)) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂L/∂z[%d,%d]: analytic %.10g, finite difference %.10g", i, k, grad.At(i, k), fd)
			}
		}
	}
	if len(list) != n {
		t.Errorf("touched rows %v, want all %d", list, n)
	}
}

// TestDistGradientNearCoincident checks the distance gradient for close and
// equal points (no NaN) against finite differences.
func TestDistGradientNearCoincident(t *testing.T) {
	x := []float64{0.3, -0.2}
	for _, eps := range []float64{1e-3, 1e-7, 0} {
		y := []float64{0.3 + eps, -0.2 - eps/2}
		gx := make([]float64, 2)
		gy := make([]float64, 2)
		distGradAdd(x, y, 1, gx, gy)
		for _, g := range append(gx, gy...) {
			if math.IsNaN(g) || math.IsInf(g, 0) {
				t.Fatalf("eps=%g: gradient %v %v", eps, gx, gy)
			}
		}
		if eps >= 1e-3 {
			for k := range x {
				h := 1e-8
				xp := slices.Clone(x)
				xp[k] += h
				xm := slices.Clone(x)
				xm[k] -= h
				fd := (Dist(xp, y) - Dist(xm, y)) / (2 * h)
				if math.Abs(fd-gx[k]) > 1e-5 {
					t.Errorf("eps=%g ∂d/∂x_%d: %.10g vs %.10g", eps, k, gx[k], fd)
				}
			}
		}
	}
}

func TestEmbedPoincareTree(t *testing.T) {
	adj, depths := treeGraph(t, 3, 3) // 40 nodes
	opts := EmbedOptions{Epochs: 60, LR: 0.5, Seed: 7}
	if testing.Short() {
		opts.Epochs = 30
	}
	z, losses, err := EmbedPoincare(context.Background(), adj, 2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(losses) != opts.Epochs || !(losses[len(losses)-1] < 0.7*losses[0]) {
		t.Errorf("loss did not decrease: first %.4g, last %.4g", losses[0], losses[len(losses)-1])
	}
	n := adj.Rows
	var edgeSum, nonSum float64
	var edgeN, nonN int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d := Dist(z.RawRowView(i), z.RawRowView(j))
			if adj.At(i, j) != 0 {
				edgeSum += d
				edgeN++
			} else {
				nonSum += d
				nonN++
			}
		}
	}
	edgeMean, nonMean := edgeSum/float64(edgeN), nonSum/float64(nonN)
	t.Logf("mean distance: edges %.3f, non-edges %.3f", edgeMean, nonMean)
	if !(edgeMean < 0.5*nonMean) {
		t.Errorf("connected nodes are not closer: edges %.3f, non-edges %.3f", edgeMean, nonMean)
	}
	for i := 0; i < n; i++ {
		if r := math.Sqrt(sqNorm(z.RawRowView(i))); !(r <= MaxNorm) {
			t.Fatalf("node %d has norm %g", i, r)
		}
	}
	// The hierarchy shows in the norms: the root lies nearer the origin than the leaves.
	var leafNorm float64
	var leaves int
	for i, dp := range depths {
		if dp == 3 {
			leafNorm += math.Sqrt(sqNorm(z.RawRowView(i)))
			leaves++
		}
	}
	leafNorm /= float64(leaves)
	rootNorm := math.Sqrt(sqNorm(z.RawRowView(0)))
	t.Logf("root norm %.3f, mean leaf norm %.3f", rootNorm, leafNorm)
	if !(rootNorm < leafNorm) {
		t.Errorf("root norm %.3f ≥ mean leaf norm %.3f", rootNorm, leafNorm)
	}
	// Same seed ⇒ same bits; another seed ⇒ another embedding.
	z2, _, _ := EmbedPoincare(context.Background(), adj, 2, opts)
	if !mat.Equal(z, z2) {
		t.Error("EmbedPoincare is not deterministic for a fixed seed")
	}
	opts.Seed = 8
	z3, _, _ := EmbedPoincare(context.Background(), adj, 2, opts)
	if mat.Equal(z, z3) {
		t.Error("different seeds give the same embedding")
	}
}

func TestEmbedPoincareErrors(t *testing.T) {
	ctx := context.Background()
	empty, _ := sparse.FromCOO(3, 3, nil, nil, nil)
	if _, _, err := EmbedPoincare(ctx, empty, 2, EmbedOptions{}); err == nil {
		t.Error("graph without edges accepted")
	}
	rect, _ := sparse.FromCOO(2, 3, []int{0}, []int{1}, nil)
	if _, _, err := EmbedPoincare(ctx, rect, 2, EmbedOptions{}); err == nil {
		t.Error("rectangular adjacency accepted")
	}
	adj, _ := treeGraph(t, 2, 2)
	if _, _, err := EmbedPoincare(ctx, adj, 0, EmbedOptions{}); err == nil {
		t.Error("dimension 0 accepted")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := EmbedPoincare(canceled, adj, 2, EmbedOptions{}); err == nil {
		t.Error("canceled context ignored")
	}
}

// A learning rate that throws every point to the ball's edge ends with a
// loss no lower than chance's, ln(1 + negatives): an *EmbedDivergedError
// naming the last epoch, with nothing returned; the same tree at the
// usual rates, and a run that is all burn-in, pass.
func TestEmbedPoincareDiverges(t *testing.T) {
	adj, _ := treeGraph(t, 3, 3)
	for _, tc := range []struct {
		lr       float64
		epochs   int
		diverged bool
	}{
		{0.3, 30, false}, {1, 30, false}, {1e3, 30, true}, {1e6, 30, true},
		{1e6, 10, false}, // all burn-in: not judged
	} {
		z, losses, err := EmbedPoincare(context.Background(), adj, 2, EmbedOptions{Epochs: tc.epochs, LR: tc.lr, Seed: 7})
		var d *EmbedDivergedError
		switch {
		case tc.diverged && (!errors.As(err, &d) || z != nil || losses != nil):
			t.Errorf("lr %g: %v, want an *EmbedDivergedError and nothing returned", tc.lr, err)
		case tc.diverged && (d.Epoch != tc.epochs-1 || math.Abs(d.Chance-math.Log(11)) > 0.1 || d.Loss < d.Chance ||
			!strings.Contains(err.Error(), "no lower than chance's")):
			t.Errorf("lr %g: %+v (%v), want the last epoch and a chance of about ln 11", tc.lr, d, err)
		case !tc.diverged && err != nil:
			t.Errorf("lr %g, %d epochs: %v", tc.lr, tc.epochs, err)
		}
	}
}
