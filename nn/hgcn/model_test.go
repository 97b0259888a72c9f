package hgcn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/nn/autodiff"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// communities returns a graph of k communities of size m (dense inside,
// sparse across), noisy sparse features that hint at the community, the
// labels and a split (train 5 per class, val 10, test the rest).
func communities(seed uint64, k, m int) (*sparse.CSR, *sparse.CSR, *Split) {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := k * m
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			p := 0.01
			if i/m == j/m {
				p = 0.25
			}
			if rng.Float64() < p {
				ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, 1, 1)
			}
		}
	}
	adj, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		panic(err)
	}
	f := 3 * k
	x := mat.NewDense(n, f, nil)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = i / m
		for j := 0; j < f; j++ {
			if rng.Float64() < 0.15 || (j%k == labels[i] && rng.Float64() < 0.3) {
				x.Set(i, j, 1)
			}
		}
	}
	s := &Split{Labels: labels, Classes: k}
	perm := rng.Perm(n)
	count := make([]int, k)
	for _, i := range perm {
		switch {
		case count[labels[i]] < 5:
			count[labels[i]]++
			s.Train = append(s.Train, i)
		case len(s.Val) < 10*k:
			s.Val = append(s.Val, i)
		default:
			s.Test = append(s.Test, i)
		}
	}
	return adj, sparse.RowNormalize(sparse.FromDense(x)), s
}

func newNet(t *testing.T, kind string, learnC bool, adj, x *sparse.CSR, classes int, seed uint64) *Net {
	t.Helper()
	a, err := RowNormalizeSelfLoops(adj)
	if err != nil {
		t.Fatal(err)
	}
	// "hgcn-att": HGCN with attention.
	att := kind == "hgcn-att"
	kind = strings.TrimSuffix(kind, "-att")
	net, err := New(Config{Kind: kind, Dim: 8, Layers: 2, Act: "relu", Bias: true, C: 1, LearnC: learnC, Att: att,
		Classes: classes, Input: x, Adj: a}, rand.New(rand.NewPCG(seed, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// TestNetGradients checks the whole network's loss gradient (every
// parameter, the learnt curvature included) against finite differences.
func TestNetGradients(t *testing.T) {
	adj, x, s := communities(3, 2, 6)
	for _, tc := range []struct {
		kind   string
		learnC bool
		lp     bool
		att    bool
	}{{"hgcn", true, false, false}, {"hgcn", false, false, false}, {"hnn", true, false, false}, {"hgcn", true, true, false},
		{"lgcn", true, false, false}, {"lgcn", true, true, false}, {"hgcn", true, false, true}, {"hgcn", false, true, true}} {
		a, _ := RowNormalizeSelfLoops(adj)
		classes := 2
		if tc.lp {
			classes = 0
		}
		net, err := New(Config{Kind: tc.kind, Dim: 3, Layers: 2, Act: "relu", Bias: true, C: 0.8, LearnC: tc.learnC,
			Classes: classes, LinkPred: tc.lp, Att: tc.att, Input: x, Adj: a}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		// Move the biases off zero so their gradients are generic.
		for _, p := range net.Params() {
			if strings.HasSuffix(p.Name, ".b") {
				for i := range p.Value.RawMatrix().Data {
					p.Value.RawMatrix().Data[i] = 0.1 * float64(i+1)
				}
			}
		}
		loss := func(tp *autodiff.Tape, nodes []*autodiff.Node) *autodiff.Node {
			h := net.Encode(tp, nodes, false, nil)
			if tc.lp {
				return tp.MeanAll(tp.Softplus(net.SqDist(tp, nodes, h, []int{0, 1, 2}, []int{3, 7, 11})))
			}
			l, err := tp.CrossEntropy(net.Logits(tp, nodes, h, false, nil), s.Train, s.Labels)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		ps := net.Params()
		tp := autodiff.New(1)
		nodes := make([]*autodiff.Node, len(ps))
		for i, p := range ps {
			nodes[i] = tp.Param(p.Value)
		}
		if err := tp.Backward(loss(tp, nodes)); err != nil {
			t.Fatal(err)
		}
		eval := func() float64 {
			tp := autodiff.New(1)
			ns := make([]*autodiff.Node, len(ps))
			for i, p := range ps {
				ns[i] = tp.Param(p.Value)
			}
			return loss(tp, ns).Scalar()
		}
		if tc.att {
			// The attention parameters are there and the loss depends on
			// them (else the finite differences below would be zero too).
			found := 0
			for pi, p := range ps {
				if strings.Contains(p.Name, ".att.") {
					found++
					if g := nodes[pi].Grad; g == nil || mat.Norm(g, 2) == 0 {
						t.Errorf("%s (lp %v): %s has no gradient", tc.kind, tc.lp, p.Name)
					}
				}
			}
			if layers := map[bool]int{false: 1, true: 2}[tc.lp]; found != 3*layers {
				t.Errorf("%s (lp %v): %d attention parameters, want %d", tc.kind, tc.lp, found, 3*layers)
			}
		}
		for pi, p := range ps {
			raw := p.Value.RawMatrix().Data
			for k := range raw {
				old := raw[k]
				const h = 1e-6
				raw[k] = old + h
				up := eval()
				raw[k] = old - h
				down := eval()
				raw[k] = old
				want := (up - down) / (2 * h)
				got := 0.0
				if g := nodes[pi].Grad; g != nil {
					got = g.RawMatrix().Data[k]
				}
				if math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
					t.Errorf("%s (learn c %v, lp %v, att %v): %s[%d]: gradient %.9g, finite difference %.9g", tc.kind, tc.learnC, tc.lp, tc.att, p.Name, k, got, want)
				}
			}
		}
	}
}

func TestTrainLearnsAndIsDeterministic(t *testing.T) {
	adj, x, s := communities(5, 3, 30)
	for _, kind := range []string{"hgcn", "hnn", "lgcn", "hgcn-att"} {
		run := func(workers int) *Result {
			net := newNet(t, kind, kind != "hnn", adj, x, 3, 4)
			res, err := Train(context.Background(), net, s, adj.Rows, TrainConfig{Epochs: 120, LR: 0.01, Select: "accuracy", Workers: workers},
				rand.New(rand.NewPCG(6, 6)))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		a, b := run(1), run(3)
		if a.Test != b.Test || !mat.Equal(a.Embeddings, b.Embeddings) || a.Curvature != b.Curvature {
			t.Fatalf("%s: different results with 1 and 3 workers", kind)
		}
		// The graph makes the communities easy for HGCN; HNN sees only
		// the noisy features.
		want := map[string]float64{"hgcn": 0.9, "hnn": 0.6, "lgcn": 0.9, "hgcn-att": 0.9}[kind]
		if a.Test < want {
			t.Errorf("%s: test accuracy %.3f, want ≥ %.2f", kind, a.Test, want)
		}
		if kind != "hnn" && a.Curvature == 1 {
			t.Errorf("%s: the learnt curvature did not move from 1", kind)
		}
		if kind == "lgcn" {
			continue // points of the hyperboloid, not the ball
		}
		for i := 0; i < a.Embeddings.RawMatrix().Rows; i++ {
			if nrm := mat.Norm(a.Embeddings.RowView(i), 2); !(nrm < 1/math.Sqrt(a.Curvature)) {
				t.Fatalf("%s: embedding %d has norm %v, outside the ball of curvature %v", kind, i, nrm, a.Curvature)
			}
		}
	}
}

// TestTrainRecyclingSameResults: training with each pass reusing the
// previous pass's memory gives the bits of training without it (curves,
// metrics, best parameters, embeddings), for every model kind.
func TestTrainRecyclingSameResults(t *testing.T) {
	adj, x, s := communities(5, 3, 30)
	for _, kind := range []string{"hgcn", "hnn", "lgcn", "hgcn-att"} {
		run := func(recycle bool) *Result {
			defer func(old bool) { recyclePasses = old }(recyclePasses)
			recyclePasses = recycle
			net := newNet(t, kind, kind != "hnn", adj, x, 3, 4)
			res, err := Train(context.Background(), net, s, adj.Rows, TrainConfig{Epochs: 40, LR: 0.01, Select: "accuracy", Workers: 2},
				rand.New(rand.NewPCG(8, 8)))
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		a, b := run(false), run(true)
		if len(a.Curves) != len(b.Curves) {
			t.Fatalf("%s: %d epochs without recycling, %d with", kind, len(a.Curves), len(b.Curves))
		}
		for e := range a.Curves {
			if a.Curves[e] != b.Curves[e] {
				t.Fatalf("%s: epoch %d: %+v without recycling, %+v with", kind, e, a.Curves[e], b.Curves[e])
			}
		}
		if !mat.Equal(a.Embeddings, b.Embeddings) || a.Test != b.Test || a.StopEpoch != b.StopEpoch {
			t.Fatalf("%s: different best results with and without recycling", kind)
		}
		for name, p := range a.BestParams {
			if !mat.Equal(p, b.BestParams[name]) {
				t.Fatalf("%s: best %s differs with recycling", kind, name)
			}
		}
	}
}

// TestDivergenceIsReported forces divergence with an absurd learning rate:
// training must fail with an error naming the epoch and a parameter, not
// return NaN metrics.
func TestDivergenceIsReported(t *testing.T) {
	adj, x, s := communities(5, 2, 20)
	net := newNet(t, "hgcn", true, adj, x, 2, 4)
	_, err := Train(context.Background(), net, s, adj.Rows, TrainConfig{Epochs: 50, LR: 1e6, Select: "accuracy", Workers: 1},
		rand.New(rand.NewPCG(6, 6)))
	var d *DivergedError
	if !errors.As(err, &d) {
		t.Fatalf("lr 1e6: error %v, want a DivergedError", err)
	}
	if !strings.Contains(err.Error(), "epoch") || !(strings.Contains(d.What, "layer") || strings.Contains(d.What, "c") || strings.Contains(d.What, "decoder")) {
		t.Fatalf("message %q does not name the epoch and a parameter", err)
	}
	t.Logf("diverged: %v", err)
}

// TestAttention checks HGCN's attention aggregation against the formula
// computed by hand on a 3-node graph, that it starts from the same weights
// as the model without attention, and that it is refused for the other
// models.
func TestAttention(t *testing.T) {
	adj, err := sparse.FromCOO(3, 3, []int{0, 1, 1, 2}, []int{1, 0, 2, 1}, []float64{1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	a, err := RowNormalizeSelfLoops(adj)
	if err != nil {
		t.Fatal(err)
	}
	x := sparse.FromDense(mat.NewDense(3, 2, []float64{1, 0, 0, 1, 0.5, 0.5}))
	cfg := Config{Kind: "hgcn", Dim: 2, Layers: 2, Act: "relu", Bias: true, C: 1, Classes: 2, Input: x, Adj: a}
	plain, err := New(cfg, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Att = true
	net, err := New(cfg, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	if len(net.Params()) != len(plain.Params())+3 {
		t.Fatalf("%d parameters with attention, %d without: want 3 more", len(net.Params()), len(plain.Params()))
	}
	for i, p := range plain.Params() {
		if q := net.Params()[i]; q.Name != p.Name || !mat.Equal(q.Value, p.Value) {
			t.Errorf("parameter %d: %s differs from %s without attention", i, q.Name, p.Name)
		}
	}
	ly := net.layers[0]
	ps := net.Params()
	ps[ly.attDst].Value = mat.NewDense(2, 1, []float64{0.3, -0.2})
	ps[ly.attSrc].Value = mat.NewDense(2, 1, []float64{-0.5, 0.4})
	ps[ly.attB].Value = mat.NewDense(1, 1, []float64{0.1})
	tv := mat.NewDense(3, 2, []float64{0.2, -0.1, 0.4, 0.3, -0.6, 0.5})
	tp := autodiff.New(1)
	nodes := make([]*autodiff.Node, len(ps))
	for i, p := range ps {
		nodes[i] = tp.Param(p.Value)
	}
	got := net.attend(tp, nodes, ly, tp.Const(tv)).Value
	// D^-1(A+I) of the path 0–1–2: rows (1/2, 1/2, 0), (1/3, 1/3, 1/3), (0, 1/2, 1/2).
	p := [3][3]float64{{0.5, 0.5, 0}, {1.0 / 3, 1.0 / 3, 1.0 / 3}, {0, 0.5, 0.5}}
	for i := 0; i < 3; i++ {
		for q := 0; q < 2; q++ {
			var want float64
			for j := 0; j < 3; j++ {
				if p[i][j] == 0 {
					continue
				}
				e := 0.3*tv.At(i, 0) - 0.2*tv.At(i, 1) - 0.5*tv.At(j, 0) + 0.4*tv.At(j, 1) + 0.1
				want += p[i][j] / (1 + math.Exp(-e)) * tv.At(j, q)
			}
			if math.Abs(got.At(i, q)-want) > 1e-15 {
				t.Errorf("out[%d][%d] = %.17g, want %.17g", i, q, got.At(i, q), want)
			}
		}
	}
	for _, kind := range []string{"hnn", "lgcn"} {
		c := cfg
		c.Kind, c.Dim = kind, 3
		if _, err := New(c, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), "use_att") {
			t.Errorf("%s with attention: error %v, want one naming use_att", kind, err)
		}
	}
	for _, x := range []float64{-800, -1, 0, 1, 800} {
		if s := sigmoid(x); math.IsNaN(s) || s < 0 || s > 1 || math.Abs(s-(1-sigmoid(-x))) > 1e-16 {
			t.Errorf("sigmoid(%v) = %v", x, s)
		}
	}
}
