package viz

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gaussianClusters returns `per` points around each of `k` centres in R^d
// (centres sep apart along the axes, unit-variance noise) and their labels.
func gaussianClusters(seed uint64, k, per, d int, sep float64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	x := mat.NewDense(k*per, d, nil)
	labels := make([]int, k*per)
	for c := range k {
		for p := range per {
			i := c*per + p
			labels[i] = c
			for j := range d {
				v := rng.NormFloat64()
				if j == c%d {
					v += sep
				}
				x.Set(i, j, v)
			}
		}
	}
	return x, labels
}

func TestCalibrationHitsPerplexity(t *testing.T) {
	x, _ := gaussianClusters(3, 3, 30, 5, 6)
	n, _ := x.Dims()
	d2 := make([]float64, n)
	p := make([]float64, n)
	for _, perp := range []float64{2, 5, 30, 60} {
		for i := range n {
			sqDistRow(x, i, d2)
			beta, h := calibrateRow(d2, i, perp, p)
			// Entropy recomputed independently from the returned distribution.
			hp, sum := 0.0, 0.0
			for j, v := range p {
				if j == i && v != 0 {
					t.Fatalf("p[self] = %v", v)
				}
				if v > 0 {
					hp -= v * math.Log(v)
				}
				sum += v
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Fatalf("perplexity %v row %d: Σp = %v", perp, i, sum)
			}
			if math.Abs(hp-math.Log(perp)) > 1e-8 || math.Abs(h-hp) > 1e-9 {
				t.Fatalf("perplexity %v row %d: entropy %v (reported %v), want log(perp) = %v (β = %v)", perp, i, hp, h, math.Log(perp), beta)
			}
			// p_j ∝ exp(−β d2_j): ratios follow the calibrated β.
			j1, j2 := (i+1)%n, (i+2)%n
			if want := math.Exp(-beta * (d2[j1] - d2[j2])); math.Abs(p[j1]/p[j2]-want) > 1e-9*want {
				t.Fatalf("p ratio %v, want %v", p[j1]/p[j2], want)
			}
		}
	}
}

func TestJointProbabilities(t *testing.T) {
	x, _ := gaussianClusters(4, 2, 20, 3, 4)
	n, _ := x.Dims()
	p, betas, maxErr, err := jointProbabilities(context.Background(), x, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	if maxErr > 1e-8 {
		t.Errorf("max entropy error %v", maxErr)
	}
	sum := 0.0
	for i := range n {
		if betas[i] <= 0 {
			t.Errorf("β[%d] = %v", i, betas[i])
		}
		if p[i*n+i] != 0 {
			t.Errorf("p[%d][%d] = %v", i, i, p[i*n+i])
		}
		for j := range n {
			if p[i*n+j] != p[j*n+i] || p[i*n+j] < 0 {
				t.Fatalf("p not symmetric/non-negative at (%d,%d)", i, j)
			}
			sum += p[i*n+j]
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("Σ p = %v, want 1", sum)
	}
}

// The analytic gradient against central differences of the objective
// f(y) = −Σ α p_ij log w_ij + log Σ w_ij, which is KL(P‖Q) + const for α = 1
// and the early-exaggeration objective otherwise.
func TestGradientFiniteDifference(t *testing.T) {
	x, _ := gaussianClusters(5, 3, 5, 4, 3)
	n, _ := x.Dims()
	p, _, _, err := jointProbabilities(context.Background(), x, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, dims := range []int{1, 2, 3} {
		for _, alpha := range []float64{1, 12} {
			y := make([]float64, n*dims)
			for i := range y {
				y[i] = rng.NormFloat64()
			}
			objective := func(y []float64) float64 {
				if alpha == 1 {
					return klDivergence(p, y, n, dims, 1)
				}
				s, z := 0.0, 0.0
				for i := range n {
					for j := range n {
						if i == j {
							continue
						}
						d2 := 0.0
						for c := range dims {
							d2 += (y[i*dims+c] - y[j*dims+c]) * (y[i*dims+c] - y[j*dims+c])
						}
						w := 1 / (1 + d2)
						s -= alpha * p[i*n+j] * math.Log(w)
						z += w
					}
				}
				return s + math.Log(z)
			}
			st := &tsneState{n: n, dims: dims, p: p, y: y, workers: 2, grad: make([]float64, n*dims),
				rowZ: make([]float64, n), rep: make([]float64, n*dims)}
			st.gradient(alpha)
			const h = 1e-6
			maxRel := 0.0
			for k := range y {
				old := y[k]
				y[k] = old + h
				fp := objective(y)
				y[k] = old - h
				fm := objective(y)
				y[k] = old
				fd := (fp - fm) / (2 * h)
				rel := math.Abs(fd-st.grad[k]) / math.Max(1e-3, math.Abs(fd))
				maxRel = math.Max(maxRel, rel)
				if rel > 1e-5 {
					t.Errorf("dims %d α %v: ∂/∂y[%d] = %v, finite difference %v", dims, alpha, k, st.grad[k], fd)
				}
			}
			t.Logf("dims %d α %v: max relative error %.2e", dims, alpha, maxRel)
		}
	}
}

// The KL of the definition Σ p log(p/q), computed directly.
func TestKLDivergenceDefinition(t *testing.T) {
	x, _ := gaussianClusters(6, 2, 8, 3, 3)
	n, _ := x.Dims()
	p, _, _, err := jointProbabilities(context.Background(), x, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	y := make([]float64, 2*n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	z := 0.0
	q := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if i != j {
				dx, dy := y[2*i]-y[2*j], y[2*i+1]-y[2*j+1]
				q[i*n+j] = 1 / (1 + dx*dx + dy*dy)
				z += q[i*n+j]
			}
		}
	}
	want := 0.0
	for k := range q {
		if p[k] > 0 {
			want += p[k] * math.Log(p[k]/(q[k]/z))
		}
	}
	if got := klDivergence(p, y, n, 2, 3); math.Abs(got-want) > 1e-12 {
		t.Errorf("KL = %v, want %v", got, want)
	}
}

// Well-separated Gaussian clusters stay separated and neighbourhoods survive.
func TestTSNESeparatesClusters(t *testing.T) {
	x, labels := gaussianClusters(11, 4, 40, 10, 12)
	var kls []float64
	res, err := TSNE(context.Background(), x, TSNEOptions{Perplexity: 15, Iterations: 500, Seed: 1, Workers: 2,
		Progress: func(_ int, kl float64) { kls = append(kls, kl) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxEntropyError > 1e-8 {
		t.Errorf("calibration error %v", res.MaxEntropyError)
	}
	if len(kls) != 10 || res.KL != kls[len(kls)-1] {
		t.Fatalf("progress KLs %v, final %v", kls, res.KL)
	}
	// After the exaggeration phase (250 steps) the KL keeps decreasing.
	if !(kls[9] < kls[5]) || res.KL > 1.0 {
		t.Errorf("KL after 300 steps %v, after 500 %v: want a decrease to < 1", kls[5], kls[9])
	}
	nbLow, err := Neighbors(context.Background(), res.Y, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	nbHigh, err := Neighbors(context.Background(), x, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	if acc := KNNAccuracy(nbLow, labels, 1); acc < 0.99 {
		t.Errorf("1-NN accuracy in the embedding %v, want ≥ 0.99", acc)
	}
	pres, err := NeighborPreservation(nbHigh, nbLow, 10)
	if err != nil {
		t.Fatal(err)
	}
	if pres < 0.5 {
		t.Errorf("10-NN preservation %v, want ≥ 0.5", pres)
	}
	// Separation: every cluster's points are closer to their own centroid
	// than to any other cluster's centroid, by a margin.
	cent := make([][2]float64, 4)
	for i, l := range labels {
		cent[l][0] += res.Y.At(i, 0) / 40
		cent[l][1] += res.Y.At(i, 1) / 40
	}
	for i, l := range labels {
		own := math.Hypot(res.Y.At(i, 0)-cent[l][0], res.Y.At(i, 1)-cent[l][1])
		for c := range 4 {
			if c != l {
				if other := math.Hypot(res.Y.At(i, 0)-cent[c][0], res.Y.At(i, 1)-cent[c][1]); other < 2*own {
					t.Fatalf("point %d (class %d): distance %v to its centroid, %v to class %d's", i, l, own, other, c)
				}
			}
		}
	}
	t.Logf("KL %.4f, 10-NN preservation %.3f", res.KL, pres)
}

func TestTSNEDeterministicAcrossWorkers(t *testing.T) {
	x, _ := gaussianClusters(12, 3, 50, 6, 5)
	for _, init := range []string{"pca", "random"} {
		var ref *mat.Dense
		for _, w := range []int{1, 2, 5} {
			res, err := TSNE(context.Background(), x, TSNEOptions{Perplexity: 10, Iterations: 120, Seed: 3, Workers: w, Init: init})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = res.Y
				continue
			}
			if !mat.Equal(ref, res.Y) {
				t.Errorf("init %s: workers %d gives a different embedding than workers 1", init, w)
			}
		}
	}
	a, _ := TSNE(context.Background(), x, TSNEOptions{Iterations: 20, Seed: 1, Init: "random"})
	b, _ := TSNE(context.Background(), x, TSNEOptions{Iterations: 20, Seed: 2, Init: "random"})
	if mat.Equal(a.Y, b.Y) {
		t.Error("random initialisation ignores the seed")
	}
}

func TestTSNEErrors(t *testing.T) {
	x, _ := gaussianClusters(1, 2, 5, 3, 2)
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 1, math.Inf(1))
	for _, tc := range []struct {
		name string
		x    *mat.Dense
		opts TSNEOptions
		want string
	}{
		{"perplexity too large", x, TSNEOptions{Perplexity: 9}, "perplexity 9 with 10 points"},
		{"perplexity below 1", x, TSNEOptions{Perplexity: 0.5}, "want 1 ≤ perplexity"},
		{"too few points", mat.NewDense(2, 2, []float64{1, 2, 3, 4}), TSNEOptions{Perplexity: 1}, "at least 3"},
		{"too many points", mat.NewDense(MaxTSNEPoints+1, 1, nil), TSNEOptions{}, "exact t-SNE takes at most"},
		{"dims", x, TSNEOptions{Perplexity: 3, Dims: 4}, "output dimension 4"},
		{"init", x, TSNEOptions{Perplexity: 3, Init: "spectral"}, `init "spectral"`},
		{"learning rate", x, TSNEOptions{Perplexity: 3, LearningRate: -1}, "learning rate -1"},
		{"non-finite", nan, TSNEOptions{Perplexity: 3}, "entry (3, 1) is +Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := TSNE(context.Background(), tc.x, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := TSNE(ctx, x, TSNEOptions{Perplexity: 3}); err != context.Canceled {
		t.Errorf("canceled context: error %v", err)
	}
}

// The 2-D fast path agrees with the general loop.
func TestGradient2MatchesGeneral(t *testing.T) {
	x, _ := gaussianClusters(8, 3, 30, 5, 3)
	n, _ := x.Dims()
	p, _, _, err := jointProbabilities(context.Background(), x, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	y := make([]float64, 2*n)
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	mk := func() *tsneState {
		return &tsneState{n: n, dims: 2, p: p, y: y, workers: 2, grad: make([]float64, 2*n), rowZ: make([]float64, n), rep: make([]float64, 2*n)}
	}
	a, b := mk(), mk()
	a.gradient2(12)
	b.gradientN(12)
	for k := range a.grad {
		if math.Abs(a.grad[k]-b.grad[k]) > 1e-15*math.Abs(b.grad[k]) || math.Abs(a.rep[k]-b.rep[k]) > 1e-15*math.Abs(b.rep[k]) {
			t.Fatalf("entry %d: %v/%v vs %v/%v", k, a.grad[k], a.rep[k], b.grad[k], b.rep[k])
		}
	}
	for i := range n {
		if math.Abs(a.rowZ[i]-b.rowZ[i]) > 1e-15*b.rowZ[i] {
			t.Fatalf("row %d: Z %v vs %v", i, a.rowZ[i], b.rowZ[i])
		}
	}
}
