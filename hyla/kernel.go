package hyla

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/integrate/quad"
)

// The kernels of Theorem 4.1, in the paper's λ convention (HyLa features
// with cos(λ·⟨ω,z⟩_H + b)) and with the theorem's factor ½, so k_λ(0) = ½:
//
//	k_λ(d) = ½·₂F₁((n−1)/2 + iλ, (n−1)/2 − iλ; n/2; (1 − cosh d)/2).
//
// Features drawn in the code convention (cos(λ/2·⟨ω,z⟩_H + b)) estimate
// k_{λ/2}, i.e. the Gaussian-ρ kernel of half the scale.

// MaxKernelDistance is the largest distance the kernel functions accept;
// beyond it cosh d overflows (and every kernel value is below 1e−100 anyway
// for n ≥ 2).
const MaxKernelDistance = 600

func checkKernelArgs(n int, d float64) error {
	if n < 2 {
		return fmt.Errorf("hyla: kernel: dimension n = %d, want n ≥ 2", n)
	}
	if !(d >= 0 && d <= MaxKernelDistance) { // also rejects NaN
		return fmt.Errorf("hyla: kernel: distance %g outside [0, %d]", d, MaxKernelDistance)
	}
	return nil
}

// KernelLambda returns k_λ(d) of Theorem 4.1 for the n-dimensional
// hyperbolic space (n ≥ 2), any real λ and 0 ≤ d ≤ MaxKernelDistance.
//
// F(z) = ₂F₁(a, b; n/2; z) with a, b = (n−1)/2 ± iλ is real on z ≤ 0 and
// solves the real hypergeometric equation z(1−z)F” + (n/2 − n·z)F' −
// ((n−1)²/4 + λ²)F = 0. Its power series converges only for |z| < 1 while
// z = −sinh²(d/2) reaches −∞, so F is continued analytically along the
// negative axis: the series at 0 gives F and F' at a small z₀, and the
// equation's Taylor recurrence re-expands F around successive points (each
// step a fraction of the distance to the singular point 0), up to z.
func KernelLambda(n int, lambda, d float64) (float64, error) {
	if err := checkKernelArgs(n, d); err != nil {
		return 0, err
	}
	if math.IsNaN(lambda) || math.IsInf(lambda, 0) {
		return 0, fmt.Errorf("hyla: kernel: λ = %g", lambda)
	}
	s := math.Sinh(d / 2)
	return 0.5 * hyp2f1Continued(n, lambda, -s*s), nil
}

// hyp2f1Continued evaluates F(zt) for zt ≤ 0 as described at KernelLambda.
func hyp2f1Continued(n int, lambda, zt float64) float64 {
	rho := float64(n-1) / 2
	c := float64(n) / 2
	ab := rho*rho + lambda*lambda
	al := math.Abs(lambda)
	// Series at 0 up to |z| ≤ r0: the ratio of consecutive terms,
	// ((ρ+k)²+λ²)|z|/((c+k)(k+1)), stays below ½ for every k, so the terms
	// never grow and there is no cancellation even for large λ.
	r0 := 0.5 / (1 + ab)
	z0 := math.Max(zt, -r0)
	f, fp := hyp2f1Series(rho, lambda, c, z0)
	if zt >= z0 {
		return f
	}
	// Taylor continuation. Relative step s: small enough that the phase of
	// the oscillating solutions (≈ λ·log|z|) turns by at most ½ per step.
	s := 0.5 / (1 + al)
	z := z0
	for z > zt {
		h := math.Max(-s*math.Abs(z), zt-z) // negative step
		f, fp = taylorStep(n, ab, z, h, f, fp)
		z += h
	}
	return f
}

// hyp2f1Series returns F(z) and F'(z) from the power series at 0 (|z| small).
func hyp2f1Series(rho, lambda, c, z float64) (f, fp float64) {
	term := 1.0 // (a)_k (b)_k / ((c)_k k!) z^k
	f = term
	for k := 0; k < 500; k++ {
		kf := float64(k)
		coef := ((rho+kf)*(rho+kf) + lambda*lambda) / ((c + kf) * (kf + 1))
		next := term * coef * z
		fp += term * coef * (kf + 1) // (k+1)·next/z, without dividing by z
		term = next
		f += term
		if math.Abs(term) <= 1e-18*math.Abs(f) && math.Abs(term*coef) <= 1e-18*(math.Abs(f)+math.Abs(fp)) {
			break
		}
	}
	return f, fp
}

// taylorStep advances (F, F') of the hypergeometric equation from z to z+h
// using the Taylor recurrence of the equation at the regular point z.
func taylorStep(n int, ab, z, h, f0, f1 float64) (float64, float64) {
	c := float64(n) / 2
	p0 := z * (1 - z)      // z(1−z) at z
	p1 := 1 - 2*z          // its derivative
	q0 := c - float64(n)*z // c − (a+b+1)z at z
	q1 := -float64(n)
	// Coefficients: F(z+t) = Σ f_k t^k; g_k = f_k h^k.
	gPrev, gCur := f0, f1*h // g_0, g_1
	val := gPrev + gCur
	der := f1 // Σ k f_k h^{k−1} = Σ k g_k / h
	scale := math.Abs(f0) + math.Abs(f1*h)
	small := 0
	for k := 0; k < 400; k++ {
		kf := float64(k)
		// p0 (k+2)(k+1) f_{k+2} = −[(p1 k + q0)(k+1) f_{k+1} + (−k(k−1) + q1 k − ab) f_k]
		// In scaled form g_{k+2} = f_{k+2} h^{k+2}.
		gNext := -((p1*kf+q0)*(kf+1)*gCur*h + (-kf*(kf-1)+q1*kf-ab)*gPrev*h*h) / (p0 * (kf + 2) * (kf + 1))
		val += gNext
		der += (kf + 2) * gNext / h
		gPrev, gCur = gCur, gNext
		if math.Abs(gNext) <= 1e-18*scale {
			small++
			if small >= 3 {
				break
			}
		} else {
			small = 0
		}
	}
	return val, der
}

// Gauss–Legendre panels for the quadratures of this file.
const glPoints = 24

var glOnce = sync.OnceValues(func() ([]float64, []float64) {
	x := make([]float64, glPoints)
	w := make([]float64, glPoints)
	quad.Legendre{}.FixedLocations(x, w, 0, 1)
	return x, w
})

// glPanel integrates f over [a, b] with a glPoints-point Gauss–Legendre rule.
func glPanel(f func(float64) float64, a, b float64) float64 {
	x, w := glOnce()
	var s float64
	for i := range x {
		s += w[i] * f(a+(b-a)*x[i])
	}
	return s * (b - a)
}

// KernelLambdaQuad computes k_λ(d) by a second, independent method: a 1-D
// quadrature of its definition, k_λ(x, O) = ½·E_ω[P^ρ cos(λ log P)] with
// P = (1−r²)/‖x−ω‖², r = tanh(d/2), over the angle θ between ω and x, whose
// density on [0, π] is sin^{n−2}θ / B(n). The integrand is concentrated
// within θ ≲ 1−r of 0, so the panels grow geometrically from 0 to π.
func KernelLambdaQuad(n int, lambda, d float64) (float64, error) {
	if err := checkKernelArgs(n, d); err != nil {
		return 0, err
	}
	rho := float64(n-1) / 2
	u := math.Exp(-d)
	r := (1 - u) / (1 + u)
	omr := 2 * u / (1 + u)           // 1 − r
	a := 4 * u / ((1 + u) * (1 + u)) // 1 − r²
	f := func(theta float64) float64 {
		sh := math.Sin(theta / 2)
		p := a / (omr*omr + 4*r*sh*sh)
		dens := 1.0
		if n > 2 {
			dens = math.Pow(math.Sin(theta), float64(n-2))
		}
		return dens * math.Pow(p, rho) * math.Cos(lambda*math.Log(p))
	}
	// Panels [0, e], [e, 2e], … with e ~ (1−r)/4, refined for large |λ|.
	e := math.Min(omr/4, math.Pi/8)
	grow := 2.0
	if al := math.Abs(lambda); al > 2 {
		grow = 1 + 2/al
	}
	var sum float64
	lo, hi := 0.0, e
	for lo < math.Pi {
		hi = math.Min(hi, math.Pi)
		sum += glPanel(f, lo, hi)
		lo, hi = hi, hi+(hi-lo)*grow
		if hi-lo > math.Pi/8 {
			hi = lo + math.Pi/8
		}
	}
	// B(n) = ∫_0^π sin^{n−2}θ dθ = √π Γ((n−1)/2)/Γ(n/2).
	lg1, _ := math.Lgamma(float64(n-1) / 2)
	lg2, _ := math.Lgamma(float64(n) / 2)
	bn := math.Sqrt(math.Pi) * math.Exp(lg1-lg2)
	return 0.5 * sum / bn, nil
}

// KernelGaussian returns the kernel of Gaussian-distributed λ ~ N(0, scale²)
// (paper convention): k(d) = ∫ k_λ(d) ρ(λ) dλ. With nodes > 0 it uses
// Gauss–Hermite quadrature with that many nodes. With nodes = 0 it chooses:
// 96 Gauss–Hermite nodes while scale·d ≤ 12 (where they are exact to about
// 1e−14; beyond, k_λ(d) oscillates in λ faster than the nodes resolve) and
// composite Gauss–Legendre panels over λ ∈ [0, 9·scale] otherwise. k_λ is
// even in λ, so only λ ≥ 0 is evaluated.
func KernelGaussian(n int, scale, d float64, nodes int) (float64, error) {
	if err := checkKernelArgs(n, d); err != nil {
		return 0, err
	}
	if !(scale >= 0) || math.IsInf(scale, 0) {
		return 0, fmt.Errorf("hyla: kernel: scale %g, want a finite s ≥ 0", scale)
	}
	if scale == 0 || d == 0 { // k_λ(0) = ½ for every λ
		return KernelLambda(n, 0, d)
	}
	if nodes < 0 || nodes == 1 || nodes > 1000 {
		return 0, fmt.Errorf("hyla: kernel: %d Gauss–Hermite nodes, want 2…1000 (or 0 for automatic)", nodes)
	}
	if nodes == 0 {
		if scale*d > 12 {
			return kernelGaussianPanels(n, scale, d), nil
		}
		nodes = 96
	}
	x, w := hermiteRule(nodes)
	var sum float64
	for i := range x {
		if x[i] < 0 {
			continue
		}
		k, err := KernelLambda(n, math.Sqrt2*scale*x[i], d)
		if err != nil {
			return 0, err
		}
		wi := w[i]
		if x[i] > 0 {
			wi *= 2
		}
		sum += wi * k
	}
	return sum / math.Sqrt(math.Pi), nil
}

// kernelGaussianPanels integrates 2·k_λ(d)·N(λ; 0, s²) over λ ∈ [0, 9s]
// (the tail beyond is below 1e−17) with Gauss–Legendre panels short enough
// to resolve the oscillation of k_λ(d) in λ (period ≈ 2π/d).
func kernelGaussianPanels(n int, scale, d float64) float64 {
	L := 9 * scale
	panels := int(math.Ceil(L*d/math.Pi)) + 4
	norm := 2 / (scale * math.Sqrt(2*math.Pi))
	f := func(l float64) float64 {
		k, _ := KernelLambda(n, l, d) // arguments already checked
		return k * math.Exp(-l*l/(2*scale*scale))
	}
	var sum float64
	for i := 0; i < panels; i++ {
		sum += glPanel(f, L*float64(i)/float64(panels), L*float64(i+1)/float64(panels))
	}
	return norm * sum
}

var (
	hermiteMu    sync.Mutex
	hermiteRules = map[int][2][]float64{}
)

func hermiteRule(nodes int) ([]float64, []float64) {
	hermiteMu.Lock()
	defer hermiteMu.Unlock()
	if r, ok := hermiteRules[nodes]; ok {
		return r[0], r[1]
	}
	x := make([]float64, nodes)
	w := make([]float64, nodes)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	hermiteRules[nodes] = [2][]float64{x, w}
	return x, w
}

// HeatKernel returns the heat kernel p_t(d) of the n-dimensional hyperbolic
// space (curvature −1, ∂_t p = Δ p) for n = 2 and n = 3:
//
//	n = 3: p_t(d) = (4πt)^{−3/2} · d/sinh d · exp(−t − d²/(4t)),
//	n = 2: p_t(d) = √2 e^{−t/4} (4πt)^{−3/2} ∫_d^∞ s e^{−s²/(4t)} / √(cosh s − cosh d) ds
//
// (the second by quadrature after s = d + v², which removes the endpoint singularity).
func HeatKernel(n int, t, d float64) (float64, error) {
	if err := checkKernelArgs(n, d); err != nil {
		return 0, err
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("hyla: heat kernel: time %g, want t > 0", t)
	}
	pre := math.Pow(4*math.Pi*t, -1.5)
	switch n {
	case 3:
		ratio := 1.0
		if d > 0 {
			ratio = d / math.Sinh(d)
		}
		return pre * ratio * math.Exp(-t-d*d/(4*t)), nil
	case 2:
		f := func(v float64) float64 {
			v2 := v * v
			s := d + v2
			// cosh s − cosh d = 2 sinh(d + v²/2) sinh(v²/2); divide by v² analytically.
			den := 2 * math.Sinh(d+v2/2) * sinhc(v2/2) / 2 // = (cosh s − cosh d)/v²
			return 2 * s * math.Exp(-s*s/(4*t)) / math.Sqrt(den)
		}
		// e^{−s²/4t} < 1e−40 beyond s = d + 20√t (and s ≥ d).
		vmax := math.Sqrt(20 * math.Sqrt(t) * 1.1)
		var sum float64
		const panels = 16
		for i := 0; i < panels; i++ {
			sum += glPanel(f, vmax*float64(i)/panels, vmax*float64(i+1)/panels)
		}
		return math.Sqrt2 * math.Exp(-t/4) * pre * sum, nil
	default:
		return 0, fmt.Errorf("hyla: heat kernel: dimension %d not implemented (n = 2 or 3)", n)
	}
}

// sinhc returns sinh(x)/x.
func sinhc(x float64) float64 {
	if math.Abs(x) < 1e-4 {
		return 1 + x*x/6
	}
	return math.Sinh(x) / x
}
