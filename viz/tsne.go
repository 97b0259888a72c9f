package viz

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// TSNEOptions configures TSNE. Zero fields take the defaults in brackets.
type TSNEOptions struct {
	Dims              int     // output dimension [2]
	Perplexity        float64 // effective number of neighbours [30]; must be < n−1
	Iterations        int     // gradient steps [1000]
	LearningRate      float64 // step size η; 0 = max(n/Exaggeration/4, 50) (Belkina et al. 2019)
	Exaggeration      float64 // early exaggeration factor of P [12]
	ExaggerationIters int     // steps with exaggeration [250]
	Momentum          float64 // momentum during the first MomentumSwitch steps [0.5]
	FinalMomentum     float64 // momentum afterwards [0.8]
	MomentumSwitch    int     // [250]
	MinGain           float64 // floor of the adaptive gains [0.01]
	// Init is "pca" (the first Dims principal components scaled to a standard
	// deviation of 1e-4 in the first coordinate, as scikit-learn) or "random"
	// (N(0, 1e-4²) entries drawn from Seed, as the 2008 paper) ["pca"].
	Init string
	Seed uint64
	// Workers is the number of goroutines (≤ 0: runtime.GOMAXPROCS). The
	// result is bit-identical for every value.
	Workers int
	// Progress, if set, is called every 50 steps and after the last with the
	// step count and KL(P‖Q) (without exaggeration).
	Progress func(iter int, kl float64)
}

func (o *TSNEOptions) defaults(n int) {
	if o.Dims == 0 {
		o.Dims = 2
	}
	if o.Perplexity == 0 {
		o.Perplexity = 30
	}
	if o.Iterations == 0 {
		o.Iterations = 1000
	}
	if o.Exaggeration == 0 {
		o.Exaggeration = 12
	}
	if o.ExaggerationIters == 0 {
		o.ExaggerationIters = 250
	}
	if o.LearningRate == 0 {
		o.LearningRate = math.Max(float64(n)/o.Exaggeration/4, 50)
	}
	if o.Momentum == 0 {
		o.Momentum = 0.5
	}
	if o.FinalMomentum == 0 {
		o.FinalMomentum = 0.8
	}
	if o.MomentumSwitch == 0 {
		o.MomentumSwitch = 250
	}
	if o.MinGain == 0 {
		o.MinGain = 0.01
	}
	if o.Init == "" {
		o.Init = "pca"
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

func (o *TSNEOptions) check(n, d int) error {
	switch {
	case n < 3:
		return fmt.Errorf("%d points, want at least 3", n)
	case n > MaxTSNEPoints:
		return fmt.Errorf("%d points: exact t-SNE takes at most %d (8n² bytes for P); subsample the points", n, MaxTSNEPoints)
	case o.Dims < 1 || o.Dims > 3:
		return fmt.Errorf("output dimension %d, want 1..3", o.Dims)
	case o.Dims > d && o.Init == "pca":
		return fmt.Errorf("output dimension %d with PCA initialisation of %d-dimensional data", o.Dims, d)
	case !(o.Perplexity >= 1) || o.Perplexity >= float64(n-1):
		return fmt.Errorf("perplexity %v with %d points, want 1 ≤ perplexity < n−1 = %d", o.Perplexity, n, n-1)
	case o.Iterations < 1 || o.Iterations > 1_000_000:
		return fmt.Errorf("iterations %d, want 1..1000000", o.Iterations)
	case !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 0):
		return fmt.Errorf("learning rate %v, want a finite value > 0", o.LearningRate)
	case !(o.Exaggeration >= 1) || math.IsInf(o.Exaggeration, 0):
		return fmt.Errorf("exaggeration %v, want a finite value ≥ 1", o.Exaggeration)
	case o.ExaggerationIters < 0 || o.MomentumSwitch < 0:
		return fmt.Errorf("negative step counts (exaggeration %d, momentum switch %d)", o.ExaggerationIters, o.MomentumSwitch)
	case !(o.Momentum >= 0 && o.Momentum < 1) || !(o.FinalMomentum >= 0 && o.FinalMomentum < 1):
		return fmt.Errorf("momentum %v/%v, want values in [0, 1)", o.Momentum, o.FinalMomentum)
	case !(o.MinGain > 0) || o.MinGain > 1:
		return fmt.Errorf("minimum gain %v, want 0 < g ≤ 1", o.MinGain)
	case o.Init != "pca" && o.Init != "random":
		return fmt.Errorf("init %q, want pca or random", o.Init)
	}
	return nil
}

// MaxTSNEPoints bounds the number of points of the exact method: its dense
// n×n matrix P takes 8n² bytes (800 MB at the bound).
const MaxTSNEPoints = 10000

// TSNEResult is the outcome of TSNE.
type TSNEResult struct {
	Y          *mat.Dense // the embedding, n×Dims, centred
	KL         float64    // final KL(P‖Q)
	Iterations int        // steps taken
	// Sigmas are the Gaussian bandwidths σ_i = (2β_i)^{-1/2} found by the
	// perplexity calibration; MaxEntropyError is the largest |H(P_i) −
	// log(perplexity)| over the points (nats).
	Sigmas          []float64
	MaxEntropyError float64
}

// TSNE embeds the rows of x with exact t-SNE. Inputs of more than about 50
// dimensions are usually reduced with PCA first (the 2008 paper's practice);
// TSNE itself uses x as given, with squared Euclidean distances.
func TSNE(ctx context.Context, x *mat.Dense, opts TSNEOptions) (*TSNEResult, error) {
	n, d := x.Dims()
	opts.defaults(n)
	if err := opts.check(n, d); err != nil {
		return nil, fmt.Errorf("viz: t-SNE: %w", err)
	}
	if err := checkFiniteMatrix(x); err != nil {
		return nil, fmt.Errorf("viz: t-SNE: input %w", err)
	}
	p, betas, maxErr, err := jointProbabilities(ctx, x, opts.Perplexity, opts.Workers)
	if err != nil {
		return nil, err
	}
	sigmas := make([]float64, n)
	for i, b := range betas {
		sigmas[i] = 1 / math.Sqrt(2*b)
	}
	y, err := tsneInit(x, opts)
	if err != nil {
		return nil, err
	}
	dims := opts.Dims
	t := &tsneState{n: n, dims: dims, p: p, y: y, workers: opts.Workers,
		grad: make([]float64, n*dims), upd: make([]float64, n*dims), gains: make([]float64, n*dims),
		rowZ: make([]float64, n), rep: make([]float64, n*dims)}
	for i := range t.gains {
		t.gains[i] = 1
	}
	kl := math.NaN()
	for it := 0; it < opts.Iterations; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		exag := 1.0
		if it < opts.ExaggerationIters {
			exag = opts.Exaggeration
		}
		mom := opts.Momentum
		if it >= opts.MomentumSwitch {
			mom = opts.FinalMomentum
		}
		t.gradient(exag)
		t.step(mom, opts.LearningRate, opts.MinGain)
		if last := it == opts.Iterations-1; last || (it+1)%50 == 0 {
			if last || opts.Progress != nil {
				kl = t.kl()
			}
			if opts.Progress != nil {
				opts.Progress(it+1, kl)
			}
		}
	}
	for _, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("viz: t-SNE diverged (non-finite coordinates); lower the learning rate %v", opts.LearningRate)
		}
	}
	return &TSNEResult{Y: mat.NewDense(n, dims, y), KL: kl, Iterations: opts.Iterations, Sigmas: sigmas, MaxEntropyError: maxErr}, nil
}

// tsneInit returns the initial embedding as a row-major n×dims slice.
func tsneInit(x *mat.Dense, opts TSNEOptions) ([]float64, error) {
	n, _ := x.Dims()
	dims := opts.Dims
	y := make([]float64, n*dims)
	if opts.Init == "random" {
		rng := rand.New(rand.NewPCG(opts.Seed, 0x7453_4e45)) // "tSNE"
		for i := range y {
			y[i] = 1e-4 * rng.NormFloat64()
		}
		return y, nil
	}
	pca, err := PCA(x, dims)
	if err != nil {
		return nil, fmt.Errorf("viz: t-SNE initialisation: %w", err)
	}
	sd := 0.0
	for i := 0; i < n; i++ {
		v := pca.Coords.At(i, 0)
		sd += v * v
	}
	sd = math.Sqrt(sd / float64(n)) // the coordinates are centred
	if sd == 0 {
		sd = 1
	}
	for i := 0; i < n; i++ {
		for c := 0; c < dims; c++ {
			y[i*dims+c] = pca.Coords.At(i, c) / sd * 1e-4
		}
	}
	return y, nil
}

// parallelRows runs f over [0, n) in contiguous blocks on up to workers
// goroutines. Callers keep per-row results only, so any split gives the same bits.
func parallelRows(n, workers int, f func(lo, hi int)) {
	if workers <= 1 || n < 64 {
		f(0, n)
		return
	}
	// Small blocks handed out in order balance the triangular workloads.
	parallel.Balanced(context.Background(), n, 32, workers, f)
}

// sqDistRow sets out[j] = ‖x_i − x_j‖² for every j (out[i] = 0).
func sqDistRow(x *mat.Dense, i int, out []float64) {
	n, d := x.Dims()
	raw := x.RawMatrix()
	xi := raw.Data[i*raw.Stride : i*raw.Stride+d]
	for j := 0; j < n; j++ {
		xj := raw.Data[j*raw.Stride : j*raw.Stride+d]
		s := 0.0
		for k, v := range xi {
			t := v - xj[k]
			s += t * t
		}
		out[j] = s
	}
	out[i] = 0
}

// calibrateRow finds β such that the conditional distribution
// p_j ∝ exp(−β·d2[j]) over j ≠ self has entropy log(perplexity) (nats),
// writes it to p (p[self] = 0) and returns β and the entropy reached.
func calibrateRow(d2 []float64, self int, perplexity float64, p []float64) (beta, entropy float64) {
	target := math.Log(perplexity)
	dmin, mean, cnt := math.Inf(1), 0.0, 0
	for j, v := range d2 {
		if j != self {
			dmin = math.Min(dmin, v)
			mean += v
			cnt++
		}
	}
	mean = mean/float64(cnt) - dmin
	beta = 1
	if mean > 0 {
		beta = 1 / mean
	}
	lo, hi := 0.0, math.Inf(1)
	const tol = 1e-10
	for step := 0; step < 200; step++ {
		entropy = rowEntropy(d2, self, dmin, beta, p)
		diff := entropy - target
		if math.Abs(diff) < tol {
			break
		}
		if diff > 0 { // too flat: sharpen
			lo = beta
			if math.IsInf(hi, 1) {
				beta *= 2
			} else {
				beta = (beta + hi) / 2
			}
		} else {
			hi = beta
			beta = (beta + lo) / 2
		}
		if !math.IsInf(hi, 1) && hi-lo <= 1e-15*hi {
			entropy = rowEntropy(d2, self, dmin, beta, p)
			break
		}
	}
	return beta, entropy
}

// rowEntropy fills p with the normalised exp(−β(d2−dmin)) and returns its entropy.
func rowEntropy(d2 []float64, self int, dmin, beta float64, p []float64) float64 {
	sum, dot := 0.0, 0.0
	for j, v := range d2 {
		if j == self {
			p[j] = 0
			continue
		}
		s := v - dmin
		e := math.Exp(-beta * s)
		p[j] = e
		sum += e
		dot += s * e
	}
	for j := range p {
		p[j] /= sum
	}
	return math.Log(sum) + beta*dot/sum
}

// jointProbabilities returns the symmetrised n×n P (row-major), the β of
// each point and the largest entropy error of the calibration.
func jointProbabilities(ctx context.Context, x *mat.Dense, perplexity float64, workers int) ([]float64, []float64, float64, error) {
	n, _ := x.Dims()
	p := make([]float64, n*n)
	betas := make([]float64, n)
	errs := make([]float64, n)
	target := math.Log(perplexity)
	parallelRows(n, workers, func(lo, hi int) {
		d2 := make([]float64, n)
		for i := lo; i < hi; i++ {
			if ctx.Err() != nil {
				return
			}
			sqDistRow(x, i, d2)
			var h float64
			betas[i], h = calibrateRow(d2, i, perplexity, p[i*n:(i+1)*n])
			errs[i] = math.Abs(h - target)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, err
	}
	maxErr := 0.0
	for i, e := range errs {
		if math.IsNaN(e) || math.IsNaN(betas[i]) {
			return nil, nil, 0, fmt.Errorf("viz: t-SNE: perplexity calibration of point %d failed (non-finite distances?)", i)
		}
		maxErr = math.Max(maxErr, e)
	}
	scale := 1 / (2 * float64(n))
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := (p[i*n+j] + p[j*n+i]) * scale
			p[i*n+j], p[j*n+i] = v, v
		}
	}
	return p, betas, maxErr, nil
}

// tsneState holds the optimisation state; y, grad, upd and gains are row-major n×dims.
type tsneState struct {
	n, dims int
	p       []float64
	y       []float64
	grad    []float64
	upd     []float64
	gains   []float64
	rowZ    []float64
	rep     []float64
	workers int
}

// gradient sets grad to ∂KL(exag·P‖Q)/∂y. With w_ij = (1+‖y_i−y_j‖²)⁻¹ and
// Z = Σ w, the gradient of row i is 4(Σ_j exag·p_ij w_ij (y_i−y_j) −
// Z⁻¹ Σ_j w_ij² (y_i−y_j)); both sums are collected in one pass and Z is
// applied afterwards.
func (t *tsneState) gradient(exag float64) {
	dims := t.dims
	rep := t.rep
	if dims == 2 {
		t.gradient2(exag)
	} else {
		t.gradientN(exag)
	}
	z := 0.0
	for _, v := range t.rowZ {
		z += v
	}
	inv := 1 / z
	for k := range t.grad {
		t.grad[k] = 4 * (t.grad[k] - inv*rep[k])
	}
}

// gradient2 is gradientN's pass for dims = 2 with the loops written out (the
// same operations in the same order; about twice as fast).
func (t *tsneState) gradient2(exag float64) {
	n := t.n
	parallelRows(n, t.workers, func(lo, hi int) {
		y := t.y[:2*n]
		for i := lo; i < hi; i++ {
			yi0, yi1 := y[2*i], y[2*i+1]
			prow := t.p[i*n : (i+1)*n]
			var a0, a1, r0, r1, z float64
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				d0, d1 := yi0-y[2*j], yi1-y[2*j+1]
				w := 1 / (1 + (d0*d0 + d1*d1))
				z += w
				a, r := exag*prow[j]*w, w*w
				a0 += a * d0
				a1 += a * d1
				r0 += r * d0
				r1 += r * d1
			}
			t.rowZ[i] = z
			t.grad[2*i], t.grad[2*i+1] = a0, a1
			t.rep[2*i], t.rep[2*i+1] = r0, r1
		}
	})
}

// gradientN collects, per row, Σ_j exag·p_ij w_ij (y_i−y_j) into grad,
// Σ_j w_ij² (y_i−y_j) into rep and Σ_j w_ij into rowZ.
func (t *tsneState) gradientN(exag float64) {
	n, dims := t.n, t.dims
	rep := t.rep
	parallelRows(n, t.workers, func(lo, hi int) {
		var diff [3]float64
		for i := lo; i < hi; i++ {
			yi := t.y[i*dims : (i+1)*dims]
			prow := t.p[i*n : (i+1)*n]
			var attr, rp [3]float64
			z := 0.0
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				yj := t.y[j*dims : (j+1)*dims]
				d2 := 0.0
				for c := range yi {
					diff[c] = yi[c] - yj[c]
					d2 += diff[c] * diff[c]
				}
				w := 1 / (1 + d2)
				z += w
				a, r := exag*prow[j]*w, w*w
				for c := range yi {
					attr[c] += a * diff[c]
					rp[c] += r * diff[c]
				}
			}
			t.rowZ[i] = z
			for c := range yi {
				t.grad[i*dims+c] = attr[c]
				rep[i*dims+c] = rp[c]
			}
		}
	})
}

// step applies momentum, the adaptive gains and re-centres y.
func (t *tsneState) step(mom, eta, minGain float64) {
	for k, g := range t.grad {
		if (g > 0) != (t.upd[k] > 0) {
			t.gains[k] += 0.2
		} else {
			t.gains[k] *= 0.8
		}
		if t.gains[k] < minGain {
			t.gains[k] = minGain
		}
		t.upd[k] = mom*t.upd[k] - eta*t.gains[k]*g
		t.y[k] += t.upd[k]
	}
	for c := 0; c < t.dims; c++ {
		mean := 0.0
		for i := 0; i < t.n; i++ {
			mean += t.y[i*t.dims+c]
		}
		mean /= float64(t.n)
		for i := 0; i < t.n; i++ {
			t.y[i*t.dims+c] -= mean
		}
	}
}

// kl returns KL(P‖Q) = Σ p log p − Σ p log w + log Z (Σ p = 1).
func (t *tsneState) kl() float64 {
	return klDivergence(t.p, t.y, t.n, t.dims, t.workers)
}

func klDivergence(p, y []float64, n, dims, workers int) float64 {
	rowZ := make([]float64, n)
	rowPL := make([]float64, n)
	rowP := make([]float64, n)
	parallelRows(n, workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			yi := y[i*dims : (i+1)*dims]
			z, pl, ps := 0.0, 0.0, 0.0
			for j := 0; j < n; j++ {
				if j == i {
					continue
				}
				yj := y[j*dims : (j+1)*dims]
				d2 := 0.0
				for c := range yi {
					t := yi[c] - yj[c]
					d2 += t * t
				}
				w := 1 / (1 + d2)
				z += w
				if pij := p[i*n+j]; pij > 0 {
					pl += pij * math.Log(pij/w)
					ps += pij
				}
			}
			rowZ[i], rowPL[i], rowP[i] = z, pl, ps
		}
	})
	z, pl, ps := 0.0, 0.0, 0.0
	for i := 0; i < n; i++ {
		z += rowZ[i]
		pl += rowPL[i]
		ps += rowP[i]
	}
	return pl + ps*math.Log(z)
}
