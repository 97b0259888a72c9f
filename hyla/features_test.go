package hyla

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cputime"
	"gonum.org/v1/gonum/mat"
)

// randomBallPoints returns m points of R^d with norms drawn uniformly in [0, maxNorm].
func randomBallPoints(rng *rand.Rand, m, d int, maxNorm float64) *mat.Dense {
	z := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		x := SampleSphere(rng, d)
		r := maxNorm * rng.Float64()
		for k := range x {
			z.Set(i, k, r*x[k])
		}
	}
	return z
}

func randomDense(rng *rand.Rand, r, c int) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := range m.RawMatrix().Data {
		m.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return m
}

// lossOf returns Σ G∘φ(Z).
func lossOf(fm FeatureMap, z, g *mat.Dense) float64 {
	m, _ := z.Dims()
	out := mat.NewDense(m, fm.Features(), nil)
	fm.Forward(z, out)
	return mat.Sum(mulElem(out, g))
}

func mulElem(a, b *mat.Dense) *mat.Dense {
	var c mat.Dense
	c.MulElem(a, b)
	return &c
}

// checkGradient compares Backward against central finite differences of Σ G∘φ(Z).
func checkGradient(t *testing.T, fm FeatureMap, z *mat.Dense, rng *rand.Rand, tol float64) {
	t.Helper()
	m, d0 := z.Dims()
	g := randomDense(rng, m, fm.Features())
	out := mat.NewDense(m, fm.Features(), nil)
	fm.Forward(z, out)
	grad := mat.NewDense(m, d0, nil)
	fm.Backward(g, grad)
	for i := 0; i < m; i++ {
		for k := 0; k < d0; k++ {
			x := z.At(i, k)
			h := 1e-6 * math.Max(1, math.Abs(x))
			z.Set(i, k, x+h)
			lp := lossOf(fm, z, g)
			z.Set(i, k, x-h)
			lm := lossOf(fm, z, g)
			z.Set(i, k, x)
			fd := (lp - lm) / (2 * h)
			an := grad.At(i, k)
			if err := math.Abs(fd - an); err > tol*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂L/∂Z[%d,%d]: analytic %.10g, finite difference %.10g (error %.3g)", i, k, an, fd, err)
			}
		}
	}
}

func TestHyLaGradient(t *testing.T) {
	for _, tc := range []struct {
		d0, D   int
		scale   float64
		conv    Convention
		maxNorm float64
	}{
		{2, 7, 1, ConventionCode, 0.9},
		{2, 7, 1, ConventionPaper, 0.9},
		{3, 11, 0.5, ConventionPaper, 0.8},
		{5, 13, 2, ConventionCode, 0.7},
		{16, 20, 0.1, ConventionCode, 0.6},
		{16, 20, 1, ConventionPaper, 0.95},
	} {
		t.Run(fmt.Sprintf("d0=%d/%s/s=%g", tc.d0, tc.conv, tc.scale), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.d0), 7))
			s := SampleHyLa(rng, tc.D, tc.d0, tc.scale)
			fm := NewHyLaMap(s, tc.conv)
			z := randomBallPoints(rng, 4, tc.d0, tc.maxNorm)
			checkGradient(t, fm, z, rng, 2e-6)
		})
	}
}

func TestRFFGradient(t *testing.T) {
	for _, tc := range []struct {
		d0, D int
		scale float64
	}{{1, 5, 1}, {2, 9, 0.5}, {16, 30, 2}} {
		t.Run(fmt.Sprintf("d0=%d", tc.d0), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.d0), 9))
			s := SampleRFF(rng, tc.D, tc.d0, tc.scale)
			z := randomDense(rng, 3, tc.d0)
			checkGradient(t, NewRFFMap(s), z, rng, 1e-7)
		})
	}
}

// TestHyLaForwardMatchesDefinition compares the optimised Forward (shared
// log, power by squaring) with eq. (1) evaluated by Exp, Log and Cos.
func TestHyLaForwardMatchesDefinition(t *testing.T) {
	for _, d0 := range []int{2, 3, 16, 50} {
		for _, conv := range []Convention{ConventionCode, ConventionPaper} {
			rng := rand.New(rand.NewPCG(uint64(d0), 1))
			s := SampleHyLa(rng, 40, d0, 1)
			fm := NewHyLaMap(s, conv)
			z := randomBallPoints(rng, 10, d0, 0.99)
			out := mat.NewDense(10, 40, nil)
			fm.Forward(z, out)
			f := 0.5
			if conv == ConventionPaper {
				f = 1
			}
			for i := 0; i < 10; i++ {
				for j := 0; j < 40; j++ {
					want := HyLa(f*s.Lambda[j], s.B[j], s.Omega.RawRowView(j), z.RawRowView(i))
					if got := out.At(i, j); math.Abs(got-want) > 1e-11*math.Max(1, math.Abs(want)) {
						t.Fatalf("d0=%d %s φ[%d,%d] = %.15g, definition gives %.15g", d0, conv, i, j, got, want)
					}
				}
			}
		}
	}
}

func TestRFFForwardMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	s := SampleRFF(rng, 25, 4, 1.5)
	z := randomDense(rng, 6, 4)
	out := mat.NewDense(6, 25, nil)
	NewRFFMap(s).Forward(z, out)
	var arg mat.Dense
	arg.Mul(z, s.Omega.T())
	for i := 0; i < 6; i++ {
		for j := 0; j < 25; j++ {
			want := math.Sqrt(2.0/4) * math.Cos(arg.At(i, j)+s.B[j])
			if got := out.At(i, j); math.Abs(got-want) > 1e-13 {
				t.Fatalf("φ[%d,%d] = %g, want %g", i, j, got, want)
			}
		}
	}
}

// bigHorocycle evaluates (1−‖z‖²)/‖z−ω‖² in 200-bit arithmetic.
func bigRatio(omega, z []float64) float64 {
	prec := uint(200)
	one := new(big.Float).SetPrec(prec).SetFloat64(1)
	nz := new(big.Float).SetPrec(prec)
	q := new(big.Float).SetPrec(prec)
	for k := range z {
		zk := new(big.Float).SetPrec(prec).SetFloat64(z[k])
		nz.Add(nz, new(big.Float).SetPrec(prec).Mul(zk, zk))
		d := new(big.Float).SetPrec(prec).Sub(zk, new(big.Float).SetPrec(prec).SetFloat64(omega[k]))
		q.Add(q, new(big.Float).SetPrec(prec).Mul(d, d))
	}
	a := new(big.Float).SetPrec(prec).Sub(one, nz)
	r, _ := new(big.Float).SetPrec(prec).Quo(a, q).Float64()
	return r
}

// TestHyLaNearBoundary sweeps norms from 0 to MaxNorm, towards and away from
// the boundary points: values and gradients are finite, and values match a
// 200-bit evaluation of the Poisson ratio.
func TestHyLaNearBoundary(t *testing.T) {
	for _, d0 := range []int{2, 16} {
		rng := rand.New(rand.NewPCG(uint64(d0), 5))
		s := SampleHyLa(rng, 8, d0, 1)
		fm := NewHyLaMap(s, ConventionPaper)
		norms := []float64{0, 0.5, 0.9, 0.99, 0.999, 0.9999, 1 - 3e-5, MaxNorm}
		// Rows: for each norm, a point towards ω_0, away from ω_0, and a random direction.
		z := mat.NewDense(3*len(norms), d0, nil)
		dir := SampleSphere(rng, d0)
		for i, r := range norms {
			for k := 0; k < d0; k++ {
				z.Set(3*i, k, r*s.Omega.At(0, k))
				z.Set(3*i+1, k, -r*s.Omega.At(0, k))
				z.Set(3*i+2, k, r*dir[k])
			}
		}
		m, _ := z.Dims()
		out := mat.NewDense(m, 8, nil)
		fm.Forward(z, out)
		grad := mat.NewDense(m, d0, nil)
		ones := mat.NewDense(m, 8, nil)
		for i := range ones.RawMatrix().Data {
			ones.RawMatrix().Data[i] = 1
		}
		fm.Backward(ones, grad)
		rho := float64(d0-1) / 2
		for i := 0; i < m; i++ {
			for j := 0; j < 8; j++ {
				v := out.At(i, j)
				p := bigRatio(s.Omega.RawRowView(j), z.RawRowView(i))
				want := math.Pow(p, rho) * math.Cos(s.Lambda[j]*math.Log(p)+s.B[j])
				if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v-want) > 1e-9*math.Max(math.Pow(p, rho), 1e-300) {
					t.Errorf("d0=%d row %d (‖z‖=%g) feature %d: %g, 200-bit reference %g", d0, i, norms[i/3], j, v, want)
				}
			}
			for k := 0; k < d0; k++ {
				if g := grad.At(i, k); math.IsNaN(g) || math.IsInf(g, 0) {
					t.Errorf("d0=%d row %d (‖z‖=%g): gradient %g", d0, i, norms[i/3], g)
				}
			}
		}
	}
}

// TestFeatureMapWorkersDeterministic checks bit-identical results for 1…5 workers.
func TestFeatureMapWorkersDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	hs := SampleHyLa(rng, 300, 16, 0.5)
	rs := SampleRFF(rng, 300, 16, 0.5)
	z := randomBallPoints(rng, 257, 16, 0.99)
	g := randomDense(rng, 257, 300)
	for name, mk := range map[string]func() FeatureMap{
		"hyla": func() FeatureMap { return NewHyLaMap(hs, ConventionCode) },
		"rff":  func() FeatureMap { return NewRFFMap(rs) },
	} {
		var refOut, refGrad *mat.Dense
		for w := 1; w <= 5; w++ {
			fm := mk()
			fm.SetWorkers(w)
			out := mat.NewDense(257, 300, nil)
			grad := mat.NewDense(257, 16, nil)
			fm.Forward(z, out)
			fm.Backward(g, grad)
			if refOut == nil {
				refOut, refGrad = out, grad
				continue
			}
			if !mat.Equal(out, refOut) || !mat.Equal(grad, refGrad) {
				t.Errorf("%s: %d workers give different bits than 1 worker", name, w)
			}
		}
	}
}

// TestFeatureMapAllocations checks that repeated calls allocate no buffers
// (only the few bytes of the worker goroutines).
func TestFeatureMapAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	s := SampleHyLa(rng, 200, 16, 0.5)
	fm := NewHyLaMap(s, ConventionCode)
	fm.SetWorkers(2)
	z := randomBallPoints(rng, 100, 16, 0.9)
	out := mat.NewDense(100, 200, nil)
	g := randomDense(rng, 100, 200)
	grad := mat.NewDense(100, 16, nil)
	fm.Forward(z, out)
	fm.Backward(g, grad)
	allocs := testing.AllocsPerRun(10, func() {
		fm.Forward(z, out)
		fm.Backward(g, grad)
	})
	if allocs > 12 {
		t.Errorf("Forward+Backward allocate %v times per call after the first", allocs)
	}
}

func TestFeatureMapErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	h := SampleHyLa(rng, 3, 2, 1)
	r := SampleRFF(rng, 3, 2, 1)
	if _, err := NewHyLa(r, ConventionCode); err == nil {
		t.Error("NewHyLa accepted RFF samples")
	}
	if _, err := NewRFF(h); err == nil {
		t.Error("NewRFF accepted HyLa samples")
	}
	if _, err := NewHyLa(h, "halved"); err == nil {
		t.Error("NewHyLa accepted an unknown convention")
	}
	bad := *h
	bad.Lambda = bad.Lambda[:2]
	if _, err := NewHyLa(&bad, ConventionCode); err == nil {
		t.Error("NewHyLa accepted 3 boundary points with 2 λ")
	}
}

func benchmarkMap(b *testing.B, fm FeatureMap, m, d0 int, backward bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	z := randomBallPoints(rng, m, d0, 0.9)
	out := mat.NewDense(m, fm.Features(), nil)
	g := randomDense(rng, m, fm.Features())
	grad := mat.NewDense(m, d0, nil)
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		fm.Forward(z, out)
		if backward {
			fm.Backward(g, grad)
		}
	}
	entries := float64(b.N) * float64(m*fm.Features())
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/entries, "ns/entry")
	// CPU time of the whole process per entry: less sensitive than wall time
	// to other processes on a shared machine.
	b.ReportMetric(float64(cputime.Process()-cpu0)/entries, "cpu-ns/entry")
}

// BenchmarkHyLa measures the Citeseer-sized map (3703×500, d0 = 16).
func BenchmarkHyLa(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := SampleHyLa(rng, 500, 16, 0.01)
	for _, w := range []int{1, 2} {
		for _, bw := range []bool{false, true} {
			name := fmt.Sprintf("workers=%d/forward", w)
			if bw {
				name += "+backward"
			}
			b.Run(name, func(b *testing.B) {
				fm := NewHyLaMap(s, ConventionCode)
				fm.SetWorkers(w)
				benchmarkMap(b, fm, 3703, 16, bw)
			})
		}
	}
}

// BenchmarkHyLaNaive is the reference point: eq. (1) with Log, Exp and Sincos per entry.
func BenchmarkHyLaNaive(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	s := SampleHyLa(rng, 500, 16, 0.01)
	z := randomBallPoints(rng, 3703, 16, 0.9)
	out := mat.NewDense(3703, 500, nil)
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		for i := 0; i < 3703; i++ {
			zi := z.RawRowView(i)
			o := out.RawRowView(i)
			for j := 0; j < 500; j++ {
				o[j] = HyLa(s.Lambda[j]/2, s.B[j], s.Omega.RawRowView(j), zi)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(3703*500), "ns/entry")
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/(3703*500), "cpu-ns/entry")
}

// BenchmarkRFF measures the Citeseer-sized RFF map (3703×500, d0 = 16) with
// narrow frequencies (s = 0.01, Table 1) and wide ones (s = 5, Table 2's
// RFF-SGC, where the arguments leave the AVX-512 polynomial's range).
func BenchmarkRFF(b *testing.B) {
	for _, scale := range []float64{0.01, 5} {
		b.Run(fmt.Sprintf("s=%v", scale), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			s := SampleRFF(rng, 500, 16, scale)
			fm := NewRFFMap(s)
			fm.SetWorkers(1)
			benchmarkMap(b, fm, 3703, 16, true)
		})
	}
}

// TestReleaseReusesArrays: after Release, the next map's Forward takes the
// released arrays from the pool (no fresh memory), and a map reused after
// Release gives the same results as a fresh one.
func TestReleaseReusesArrays(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	s := SampleHyLa(rng, 120, 16, 0.5)
	z := randomBallPoints(rng, 90, 16, 0.9)
	g := randomDense(rng, 90, 120)
	big := func(h *HyLaMap) *float64 {
		if h.vec != nil {
			return &h.vec.e2[:1][0]
		}
		return &h.e2[:1][0]
	}
	run := func(h *HyLaMap) (*mat.Dense, *mat.Dense) {
		out, grad := mat.NewDense(90, 120, nil), mat.NewDense(90, 16, nil)
		h.Forward(z, out)
		h.Backward(g, grad)
		return out, grad
	}
	a, _ := NewHyLa(s, ConventionCode)
	refOut, refGrad := run(a)
	p := big(a)
	a.Release()
	b, _ := NewHyLa(s, ConventionCode)
	out, grad := run(b)
	if !mat.Equal(out, refOut) || !mat.Equal(grad, refGrad) {
		t.Error("a map on released arrays gives other results")
	}
	reused := false
	for _, h := range []*HyLaMap{b} {
		reused = reused || big(h) == p
		if h.vec != nil {
			reused = reused || &h.vec.phi[:1][0] == p || &h.vec.e1[:1][0] == p
		} else {
			reused = reused || &h.e1[:1][0] == p
		}
	}
	if !reused {
		t.Error("the second map did not take the released array")
	}
	b.Release()
	out, grad = run(b)
	if !mat.Equal(out, refOut) || !mat.Equal(grad, refGrad) {
		t.Error("a map used again after Release gives other results")
	}
	b.Release()
}

// BenchmarkLinearR52 measures the fused forward and backward passes of the
// maps with a linear layer at R52's transductive shape (52 classes, D =
// 500, d0 = 50; 4096 of its 17,992 feature rows), one worker: the products
// with the weights grouped over rows (hylaWideClasses, the default) and
// row by row, in the same run.
//
//	go test ./hyla -run '^$' -bench LinearR52
func BenchmarkLinearR52(b *testing.B) {
	const m, D, d0, c = 4096, 500, 50, 52
	rng := rand.New(rand.NewPCG(3, 3))
	for _, kind := range []string{"hyla", "rff"} {
		var s *Samples
		var z *mat.Dense
		if kind == "rff" {
			s, z = SampleRFF(rng, D, d0, 5), randomDense(rng, m, d0)
		} else {
			s, z = SampleHyLa(rng, D, d0, 0.5), randomBallPoints(rng, m, d0, 0.9)
		}
		wT, gyT := randomDense(rng, c, D), randomDense(rng, c, m)
		for _, grouping := range []string{"grouped", "rows"} {
			b.Run(kind+"/"+grouping, func(b *testing.B) {
				if grouping == "rows" {
					defer func(old int) { hylaWideClasses = old }(hylaWideClasses)
					hylaWideClasses = 1 << 30
				}
				var fm interface {
					ForwardLinear(z, wT, yT *mat.Dense) bool
					BackwardLinear(gyT, wT, gradZ, gradWT *mat.Dense) bool
					SetWorkers(int)
				}
				if kind == "rff" {
					fm, _ = NewRFF(s)
				} else {
					fm, _ = NewHyLa(s, ConventionCode)
				}
				fm.SetWorkers(1)
				y, gz, gw := mat.NewDense(c, m, nil), mat.NewDense(m, d0, nil), mat.NewDense(c, D, nil)
				b.ResetTimer()
				cpu0 := cputime.Process()
				for b.Loop() {
					if !fm.ForwardLinear(z, wT, y) || !fm.BackwardLinear(gyT, wT, gz, gw) {
						b.Fatal("fused kernels not available")
					}
				}
				b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}
