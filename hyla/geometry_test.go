package hyla

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomBallPoint(rng *rand.Rand, d int, maxNorm float64) []float64 {
	x := SampleSphere(rng, d)
	r := maxNorm * rng.Float64()
	for k := range x {
		x[k] *= r
	}
	return x
}

func TestDist(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{2, 3, 16} {
		for trial := 0; trial < 50; trial++ {
			x := randomBallPoint(rng, d, 0.95)
			y := randomBallPoint(rng, d, 0.95)
			// arcosh form.
			nx, ny := sqNorm(x), sqNorm(y)
			want := math.Acosh(1 + 2*sqDist(x, y)/((1-nx)*(1-ny)))
			if got := Dist(x, y); math.Abs(got-want) > 1e-9*math.Max(1, want) {
				t.Fatalf("Dist = %.15g, arcosh form %.15g", got, want)
			}
			if math.Abs(Dist(x, y)-Dist(y, x)) > 1e-14 {
				t.Fatal("Dist is not symmetric")
			}
			g := RandomIsometry(rng, d, 0.9)
			if got, want := Dist(g.Apply(x), g.Apply(y)), Dist(x, y); math.Abs(got-want) > 1e-8*math.Max(1, want) {
				t.Fatalf("isometry changes the distance: %.15g vs %.15g", got, want)
			}
		}
	}
	origin := []float64{0, 0, 0}
	for _, r := range []float64{0, 0.3, 0.9, 0.999, MaxNorm} {
		x := []float64{0, r, 0}
		if got, want := Dist(origin, x), NormToDist(r); math.Abs(got-want) > 1e-10*math.Max(1, want) {
			t.Errorf("Dist(O, ‖x‖=%g) = %.15g, want 2·artanh = %.15g", r, got, want)
		}
		if got := DistToNorm(NormToDist(r)); math.Abs(got-r) > 1e-12 {
			t.Errorf("DistToNorm(NormToDist(%g)) = %g", r, got)
		}
	}
}

func TestHorocycle(t *testing.T) {
	// On the geodesic from the origin towards ω the horocycle distance is
	// the hyperbolic distance; away from ω it is minus the distance.
	omega := []float64{0.6, 0.8}
	for _, r := range []float64{0, 0.1, 0.5, 0.99, MaxNorm} {
		d := NormToDist(r)
		towards := []float64{r * 0.6, r * 0.8}
		away := []float64{-r * 0.6, -r * 0.8}
		if got := Horocycle(omega, towards); math.Abs(got-d) > 1e-9*math.Max(1, d) {
			t.Errorf("⟨ω, rω⟩_H = %.15g, want %.15g", got, d)
		}
		if got := Horocycle(omega, away); math.Abs(got+d) > 1e-9*math.Max(1, d) {
			t.Errorf("⟨ω, −rω⟩_H = %.15g, want %.15g", got, -d)
		}
	}
	// Busemann cocycle: ⟨gω, gz⟩_H = ⟨ω, z⟩_H + ⟨gω, g0⟩_H for an isometry g.
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		n := 2 + trial%4
		g := RandomIsometry(rng, n, 0.8)
		w := SampleSphere(rng, n)
		z := randomBallPoint(rng, n, 0.9)
		gw := g.Apply(w)
		if math.Abs(sqNorm(gw)-1) > 1e-12 {
			t.Fatalf("isometry moves a boundary point off the sphere: ‖gω‖² = %.15g", sqNorm(gw))
		}
		lhs := Horocycle(gw, g.Apply(z))
		rhs := Horocycle(w, z) + Horocycle(gw, g.Apply(make([]float64, n)))
		if math.Abs(lhs-rhs) > 1e-9 {
			t.Fatalf("cocycle: %.15g vs %.15g", lhs, rhs)
		}
	}
	// Poisson kernel = exp((n−1)·⟨ω,z⟩_H) = ((1−‖z‖²)/‖z−ω‖²)^{n−1}.
	z := []float64{0.1, -0.2, 0.3}
	w := []float64{0, 0, 1}
	want := math.Pow((1-sqNorm(z))/sqDist(z, w), 2)
	if got := Poisson(w, z); math.Abs(got-want) > 1e-14*want {
		t.Errorf("Poisson = %g, want %g", got, want)
	}
}

// TestHyLaEigenfunction checks that eq. (1) is an eigenfunction of the
// Laplace–Beltrami operator of the ball with eigenvalue −(λ² + ρ²):
// Δ_H f = ((1−‖x‖²)²/4)·Δf + ((n−2)(1−‖x‖²)/2)·⟨x, ∇f⟩, by finite differences.
func TestHyLaEigenfunction(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{2, 3, 5} {
		for trial := 0; trial < 10; trial++ {
			w := SampleSphere(rng, n)
			lambda := 2 * rng.NormFloat64()
			b := 2 * math.Pi * rng.Float64()
			x := randomBallPoint(rng, n, 0.7)
			f := func(y []float64) float64 { return HyLa(lambda, b, w, y) }
			h := 1e-4
			f0 := f(x)
			var lap, xgrad float64
			y := append([]float64(nil), x...)
			for k := 0; k < n; k++ {
				y[k] = x[k] + h
				fp := f(y)
				y[k] = x[k] - h
				fm := f(y)
				y[k] = x[k]
				lap += (fp - 2*f0 + fm) / (h * h)
				xgrad += x[k] * (fp - fm) / (2 * h)
			}
			a := 1 - sqNorm(x)
			lh := a*a/4*lap + float64(n-2)*a/2*xgrad
			rho := float64(n-1) / 2
			want := -(lambda*lambda + rho*rho) * f0
			scale := math.Abs(want) + math.Abs(lh) + (lambda*lambda+rho*rho)*math.Exp(rho*Horocycle(w, x))
			if math.Abs(lh-want) > 1e-5*scale {
				t.Errorf("n=%d λ=%.3g: Δ_H f = %.10g, −(λ²+ρ²) f = %.10g", n, lambda, lh, want)
			}
		}
	}
}

func TestMobiusAdd(t *testing.T) {
	a := []float64{0.3, -0.4}
	if got := MobiusAdd(nil, a, []float64{0, 0}); math.Abs(got[0]-0.3) > 1e-15 || math.Abs(got[1]+0.4) > 1e-15 {
		t.Errorf("a ⊕ 0 = %v, want a", got)
	}
	neg := []float64{-0.3, 0.4}
	if got := MobiusAdd(nil, neg, a); sqNorm(got) > 1e-30 {
		t.Errorf("(−a) ⊕ a = %v, want 0", got)
	}
	// Hand-computed: a = (0.5, 0), x = (0, 0.5): ⟨a,x⟩ = 0, ‖a‖² = ‖x‖² = 0.25,
	// den = 1.0625, a ⊕ x = (1.25·0.5, 0.75·0.5)/1.0625.
	got := MobiusAdd(nil, []float64{0.5, 0}, []float64{0, 0.5})
	if math.Abs(got[0]-0.625/1.0625) > 1e-15 || math.Abs(got[1]-0.375/1.0625) > 1e-15 {
		t.Errorf("(0.5,0) ⊕ (0,0.5) = %v", got)
	}
}

func TestSampleSphereAndDisk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var mean [3]float64
	const n = 20000
	for i := 0; i < n; i++ {
		x := SampleSphere(rng, 3)
		if math.Abs(sqNorm(x)-1) > 1e-14 {
			t.Fatalf("‖x‖² = %.17g", sqNorm(x))
		}
		for k := range x {
			mean[k] += x[k] * x[k] / n
		}
	}
	for k, m := range mean {
		if math.Abs(m-1.0/3) > 0.02 { // E[x_k²] = 1/3; sd of the mean ≈ 0.002
			t.Errorf("E[x_%d²] = %g, want 1/3", k, m)
		}
	}
	// Hyperbolic-uniform disk of radius R: P(d ≤ r) = (cosh r − 1)/(cosh R − 1).
	R := 5.0
	r := 3.0
	want := (math.Cosh(r) - 1) / (math.Cosh(R) - 1)
	count := 0
	for i := 0; i < n; i++ {
		x := SampleHyperbolicDisk(rng, R)
		d := NormToDist(math.Sqrt(sqNorm(x)))
		if d > R+1e-9 {
			t.Fatalf("sample at distance %g > R", d)
		}
		if d <= r {
			count++
		}
	}
	if got := float64(count) / n; math.Abs(got-want) > 5*math.Sqrt(want*(1-want)/n) {
		t.Errorf("P(d ≤ %g) = %g, want %g", r, got, want)
	}
}

func TestProjectRowsAndRSGD(t *testing.T) {
	z := mat.NewDense(3, 2, []float64{
		0.3, 0.4, // inside: unchanged
		3, 4, // outside: rescaled to MaxNorm
		0, 0,
	})
	ProjectRows(z)
	if z.At(0, 0) != 0.3 || z.At(0, 1) != 0.4 {
		t.Errorf("inside row changed: %v", z.RawRowView(0))
	}
	if n := math.Hypot(z.At(1, 0), z.At(1, 1)); math.Abs(n-MaxNorm) > 1e-15 || math.Abs(z.At(1, 0)/z.At(1, 1)-0.75) > 1e-12 {
		t.Errorf("outside row projected to %v (norm %.17g)", z.RawRowView(1), n)
	}
	// RSGD by hand: p = (0.3, 0.4), ‖p‖² = 0.25, (1−0.25)²/4 = 0.140625,
	// g = (1, −2), lr = 0.1: p − 0.1·0.140625·g = (0.2859375, 0.428125).
	p := mat.NewDense(2, 2, []float64{0.3, 0.4, 0.9, 0})
	g := mat.NewDense(2, 2, []float64{1, -2, -100, 0})
	RSGDStep(p, g, 0.1)
	if math.Abs(p.At(0, 0)-0.2859375) > 1e-15 || math.Abs(p.At(0, 1)-0.428125) > 1e-15 {
		t.Errorf("RSGD step gives %v, want (0.2859375, 0.428125)", p.RawRowView(0))
	}
	// Row 2: (1−0.81)²/4 = 0.009025; 0.9 + 0.1·0.009025·100 = 0.99025 (inside).
	if math.Abs(p.At(1, 0)-0.99025) > 1e-14 {
		t.Errorf("RSGD step gives %v, want 0.99025", p.At(1, 0))
	}
	RSGDStep(p, mat.NewDense(2, 2, []float64{0, 0, -1e9, 0}), 1)
	if p.At(1, 0) != MaxNorm {
		t.Errorf("RSGD did not project: %.17g", p.At(1, 0))
	}
}
