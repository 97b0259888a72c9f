package hyla

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestKernelLambdaMethodsAgree compares the analytic continuation of ₂F₁
// with the quadrature of the defining expectation over ω.
func TestKernelLambdaMethodsAgree(t *testing.T) {
	worst := 0.0
	for _, n := range []int{2, 3, 4, 5, 8, 16} {
		for _, lambda := range []float64{0, 0.05, 0.3, 1, -2.5, 6} {
			for _, d := range []float64{0, 1e-3, 0.1, 0.7, 1.5, 3, 6, 10, 18, 25} {
				a, err := KernelLambda(n, lambda, d)
				if err != nil {
					t.Fatal(err)
				}
				b, err := KernelLambdaQuad(n, lambda, d)
				if err != nil {
					t.Fatal(err)
				}
				worst = math.Max(worst, math.Abs(a-b))
				if math.Abs(a-b) > 1e-8 || math.IsNaN(a) {
					t.Errorf("n=%d λ=%g d=%g: ₂F₁ continuation %.15g, quadrature %.15g (diff %.2g)", n, lambda, d, a, b, a-b)
				}
			}
		}
	}
	t.Logf("largest |continuation − quadrature| = %.3g", worst)
}

// TestKernelLambdaClosedForms checks k_λ(0) = ½ and the closed form of the
// spherical function of H³: k_λ(d) = ½·sin(λd)/(λ sinh d).
func TestKernelLambdaClosedForms(t *testing.T) {
	for _, n := range []int{2, 3, 7} {
		if k, _ := KernelLambda(n, 1.3, 0); k != 0.5 {
			t.Errorf("n=%d: k_λ(0) = %.17g, want ½", n, k)
		}
	}
	for _, lambda := range []float64{0, 1e-9, 0.2, 1, 4, 9} {
		for _, d := range []float64{0.01, 0.5, 2, 5, 12, 30, 60} {
			var want float64
			if lambda == 0 {
				want = 0.5 * d / math.Sinh(d)
			} else {
				want = 0.5 * math.Sin(lambda*d) / (lambda * math.Sinh(d))
			}
			got, err := KernelLambda(3, lambda, d)
			if err != nil {
				t.Fatal(err)
			}
			// Relative to the envelope ½·d/sinh d.
			env := 0.5 * d / math.Sinh(d)
			if math.Abs(got-want) > 1e-10*env {
				t.Errorf("n=3 λ=%g d=%g: %.15g, closed form %.15g (rel. to envelope %.2g)", lambda, d, got, want, math.Abs(got-want)/env)
			}
		}
	}
}

// TestKernelSeriesInsideDisk compares the continuation with the plain power
// series where it converges (|z| = sinh²(d/2) < 1).
func TestKernelSeriesInsideDisk(t *testing.T) {
	for _, n := range []int{2, 5} {
		for _, d := range []float64{0.5, 1, 1.6} {
			lambda := 0.8
			s := math.Sinh(d / 2)
			z := -s * s
			rho, c := float64(n-1)/2, float64(n)/2
			sum, term := 1.0, 1.0
			for k := 0; k < 5000; k++ {
				kf := float64(k)
				term *= ((rho+kf)*(rho+kf) + lambda*lambda) / ((c + kf) * (kf + 1)) * z
				sum += term
			}
			got, _ := KernelLambda(n, lambda, d)
			if math.Abs(got-sum/2) > 1e-12 {
				t.Errorf("n=%d d=%g: continuation %.15g, series %.15g", n, d, got, sum/2)
			}
		}
	}
}

func TestKernelArgs(t *testing.T) {
	for _, tc := range []struct {
		n       int
		lam, d  float64
		wantErr bool
	}{
		{1, 0, 1, true}, {2, 0, -1, true}, {2, math.NaN(), 1, true}, {2, 0, math.NaN(), true},
		{2, 0, 1e4, true}, {2, 1, 600, false},
	} {
		_, err := KernelLambda(tc.n, tc.lam, tc.d)
		if (err != nil) != tc.wantErr {
			t.Errorf("KernelLambda(%d, %g, %g): error %v, want error %v", tc.n, tc.lam, tc.d, err, tc.wantErr)
		}
	}
	if _, err := KernelGaussian(2, -1, 1, 0); err == nil {
		t.Error("negative scale accepted")
	}
	if _, err := HeatKernel(4, 1, 1); err == nil {
		t.Error("heat kernel for n = 4 accepted")
	}
}

// TestKernelGaussian checks the Gaussian-ρ kernel against the n = 3 closed
// form, where E[½ sin(λd)/(λ sinh d)] with E[sin(λd)/λ] = ∫_0^d e^{−s²u²/2} du
// = √(π/2)/s·erf(sd/√2), and checks Gauss–Hermite convergence (96 vs 300
// nodes) and the Legendre panels against Gauss–Hermite where both apply.
func TestKernelGaussian(t *testing.T) {
	for _, s := range []float64{0.1, 0.5, 1, 2} {
		for _, d := range []float64{0, 0.5, 2, 5, 10, 30} {
			got, err := KernelGaussian(3, s, d, 0)
			if err != nil {
				t.Fatal(err)
			}
			// E[sin(λd)/λ] = ∫_0^d E[cos(λu)] du = ∫_0^d e^{−s²u²/2} du = √(π/2)/s·erf(sd/√2).
			var want float64
			if d == 0 {
				want = 0.5
			} else {
				want = 0.5 * math.Sqrt(math.Pi/2) / s * math.Erf(s*d/math.Sqrt2) / math.Sinh(d)
			}
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("n=3 s=%g d=%g: Gaussian-ρ kernel %.15g, closed form %.15g", s, d, got, want)
			}
			if s*d > 8 {
				continue
			}
			for _, n := range []int{2, 16} {
				a, _ := KernelGaussian(n, s, d, 0)
				b, _ := KernelGaussian(n, s, d, 300)
				if c := kernelGaussianPanels(n, s, d); math.Abs(a-c) > 1e-10 {
					t.Errorf("n=%d s=%g d=%g: Gauss–Hermite %.15g, Legendre panels %.15g", n, s, d, a, c)
				}
				if math.Abs(a-b) > 1e-10 {
					t.Errorf("n=%d s=%g d=%g: 96 nodes %.15g, 300 nodes %.15g", n, s, d, a, b)
				}
			}
		}
	}
}

// TestHeatKernel checks that p_t integrates to 1 over H² and H³ and that the
// n = 2 kernel solves the heat equation ∂_t p = p” + coth(d)·p'.
func TestHeatKernel(t *testing.T) {
	for _, n := range []int{2, 3} {
		for _, tm := range []float64{0.5, 2, 6} {
			// ∫ p_t dV = ∫_0^∞ p_t(r)·|S^{n−1}|·sinh^{n−1}(r) dr.
			area := 2 * math.Pi
			if n == 3 {
				area = 4 * math.Pi
			}
			f := func(r float64) float64 {
				p, err := HeatKernel(n, tm, r)
				if err != nil {
					t.Fatal(err)
				}
				return p * area * math.Pow(math.Sinh(r), float64(n-1))
			}
			var total float64
			rmax := 2*tm + 20*math.Sqrt(tm) + 10
			for i := 0; i < 200; i++ {
				total += glPanel(f, rmax*float64(i)/200, rmax*float64(i+1)/200)
			}
			if math.Abs(total-1) > 1e-8 {
				t.Errorf("n=%d t=%g: ∫ p_t dV = %.12g, want 1", n, tm, total)
			}
		}
	}
	// Heat equation for n = 2 by finite differences.
	for _, d := range []float64{0.5, 2, 4} {
		tm, h := 1.5, 1e-3
		p := func(t, d float64) float64 { v, _ := HeatKernel(2, t, d); return v }
		dt := (p(tm+h, d) - p(tm-h, d)) / (2 * h)
		dd := (p(tm, d+h) - p(tm, d-h)) / (2 * h)
		d2 := (p(tm, d+h) - 2*p(tm, d) + p(tm, d-h)) / (h * h)
		if lap := d2 + dd/math.Tanh(d); math.Abs(dt-lap) > 1e-5*math.Abs(dt)+1e-9 {
			t.Errorf("d=%g: ∂_t p = %.10g, Δp = %.10g", d, dt, lap)
		}
	}
}

// mcKernel returns (1/D)·Σ_j φ_j(x)φ_j(y) for HyLa samples in the paper convention.
func mcKernel(s *Samples, x, y []float64) float64 {
	fm := NewHyLaMap(s, ConventionPaper)
	fm.SetWorkers(1)
	z := mat.NewDense(2, len(x), nil)
	z.SetRow(0, x)
	z.SetRow(1, y)
	out := mat.NewDense(2, s.Features(), nil)
	fm.Forward(z, out)
	return mat.Dot(out.RowView(0), out.RowView(1)) / float64(s.Features())
}

// TestMonteCarloKernel checks that ⟨φ(x), φ(y)⟩/D with D = 20000 estimates
// the Gaussian-ρ kernel k(d_H(x, y)), and that the estimate is unchanged
// (within its Monte-Carlo error) when a random isometry moves both points.
func TestMonteCarloKernel(t *testing.T) {
	const D = 20000
	for _, tc := range []struct {
		n     int
		scale float64
	}{{2, 0.5}, {3, 1}, {5, 0.5}} {
		t.Run(fmt.Sprintf("n=%d/s=%g", tc.n, tc.scale), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.n), 99))
			for trial := 0; trial < 4; trial++ {
				x := randomBallPoint(rng, tc.n, 0.6)
				y := randomBallPoint(rng, tc.n, 0.6)
				d := Dist(x, y)
				want, err := KernelGaussian(tc.n, tc.scale, d, 0)
				if err != nil {
					t.Fatal(err)
				}
				s := SampleHyLa(rng, D, tc.n, tc.scale)
				got := mcKernel(s, x, y)
				// Standard error of the mean of φ_j(x)φ_j(y), estimated from the samples.
				se := mcStdErr(s, x, y)
				if math.Abs(got-want) > 5*se {
					t.Errorf("d=%.3g: Monte Carlo %.5g ± %.2g, kernel %.5g", d, got, se, want)
				}
				// Isometry invariance: the same features at g·x, g·y estimate the same
				// kernel; fresh samples keep the comparison independent of g.
				g := RandomIsometry(rng, tc.n, 0.5)
				gx, gy := g.Apply(x), g.Apply(y)
				if dd := Dist(gx, gy); math.Abs(dd-d) > 1e-9 {
					t.Fatalf("isometry changed the distance %g → %g", d, dd)
				}
				s2 := SampleHyLa(rng, D, tc.n, tc.scale)
				got2 := mcKernel(s2, gx, gy)
				se2 := mcStdErr(s2, gx, gy)
				if math.Abs(got2-want) > 5*se2 {
					t.Errorf("after an isometry, d=%.3g: Monte Carlo %.5g ± %.2g, kernel %.5g", d, got2, se2, want)
				}
			}
		})
	}
}

func mcStdErr(s *Samples, x, y []float64) float64 {
	f := 1.0
	var sum, sum2 float64
	D := s.Features()
	for j := 0; j < D; j++ {
		w := s.Omega.RawRowView(j)
		v := HyLa(f*s.Lambda[j], s.B[j], w, x) * HyLa(f*s.Lambda[j], s.B[j], w, y)
		sum += v
		sum2 += v * v
	}
	mean := sum / float64(D)
	return math.Sqrt((sum2/float64(D) - mean*mean) / float64(D))
}

func BenchmarkKernelLambda(b *testing.B) {
	for _, d := range []float64{1, 10} {
		b.Run(fmt.Sprintf("d=%g", d), func(b *testing.B) {
			for b.Loop() {
				_, _ = KernelLambda(2, 1, d)
			}
		})
	}
}
