package hyla

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// MaxNorm is the largest Euclidean norm a point of the Poincaré ball may
// have: ProjectRows and RSGDStep rescale rows beyond it, as the official
// code's renorm does. Every function of this package is finite up to it.
const MaxNorm = 1 - 1e-5

func sqNorm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += float64(v * v) // float64(): never fused, the same bits on every CPU
	}
	return s
}

func sqDist(x, y []float64) float64 {
	var s float64
	for k, v := range x {
		d := v - y[k]
		s += float64(d * d)
	}
	return s
}

// oneMinusSq returns 1−‖x‖² computed as (1−‖x‖)(1+‖x‖), which keeps its
// relative accuracy near the boundary.
func oneMinusSq(x []float64) float64 {
	r := math.Sqrt(sqNorm(x))
	return (1 - r) * (1 + r)
}

// Dist returns the hyperbolic distance between two points of the Poincaré
// ball (curvature −1):
//
//	d_H(x, y) = arcosh(1 + 2‖x−y‖²/((1−‖x‖²)(1−‖y‖²)))
//	          = 2·asinh(‖x−y‖ / √((1−‖x‖²)(1−‖y‖²))),
//
// evaluated in the second form, which has no cancellation for close points.
func Dist(x, y []float64) float64 {
	return 2 * math.Asinh(math.Sqrt(sqDist(x, y)/(oneMinusSq(x)*oneMinusSq(y))))
}

// NormToDist returns the distance from the origin of a point of norm r: 2·artanh(r).
func NormToDist(r float64) float64 { return 2 * math.Atanh(r) }

// DistToNorm returns the Euclidean norm of a point at hyperbolic distance d
// from the origin: tanh(d/2).
func DistToNorm(d float64) float64 { return math.Tanh(d / 2) }

// Horocycle returns the signed hyperbolic distance from the origin to the
// horocycle through z tangent to the boundary at ω (‖ω‖ = 1):
//
//	⟨ω, z⟩_H = log((1−‖z‖²)/‖z−ω‖²).
func Horocycle(omega, z []float64) float64 {
	return math.Log(oneMinusSq(z)) - math.Log(sqDist(z, omega))
}

// Poisson returns the hyperbolic Poisson kernel of the n-dimensional ball,
// P_n(z, ω) = ((1−‖z‖²)/‖z−ω‖²)^{n−1} = exp((n−1)·⟨ω, z⟩_H), with n = len(z).
func Poisson(omega, z []float64) float64 {
	return math.Exp(float64(len(z)-1) * Horocycle(omega, z))
}

// HyLa returns the HyLa eigenfunction of eq. (1) of the paper,
// exp((n−1)/2·⟨ω,z⟩_H)·cos(λ·⟨ω,z⟩_H + b), with n = len(z). λ is the
// effective frequency (the paper's convention); see Convention.
func HyLa(lambda, b float64, omega, z []float64) float64 {
	h := Horocycle(omega, z)
	return math.Exp(float64(len(z)-1)/2*h) * math.Cos(lambda*h+b)
}

// MobiusAdd returns the Möbius addition a ⊕ x of two points of the closed
// ball (x may lie on the boundary):
//
//	a ⊕ x = ((1+2⟨a,x⟩+‖x‖²)·a + (1−‖a‖²)·x) / (1+2⟨a,x⟩+‖a‖²‖x‖²).
//
// x ↦ a ⊕ x is an isometry of the Poincaré ball (a "translation") that maps
// the origin to a and the unit sphere onto itself. dst may alias x or a; it
// is allocated when nil and returned.
func MobiusAdd(dst, a, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	var ax float64
	for k := range x {
		ax += a[k] * x[k]
	}
	aa, xx := sqNorm(a), sqNorm(x)
	den := 1 + 2*ax + aa*xx
	ca := (1 + 2*ax + xx) / den
	cx := (1 - aa) / den
	for k := range x {
		dst[k] = ca*a[k] + cx*x[k]
	}
	return dst
}

// Isometry is an isometry of the Poincaré ball: x ↦ A ⊕ (Q·x) with Q
// orthogonal. Every isometry that preserves orientation or not can be
// written this way; it maps the boundary sphere onto itself.
type Isometry struct {
	Q *mat.Dense // n×n orthogonal
	A []float64  // the image of the origin, ‖A‖ < 1
}

// RandomIsometry draws a random isometry of the n-dimensional ball: Q from
// the QR decomposition of a Gaussian matrix, A uniform in direction with
// norm uniform in [0, maxNorm).
func RandomIsometry(rng *rand.Rand, n int, maxNorm float64) Isometry {
	g := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var q mat.Dense
	qr.QTo(&q)
	a := SampleSphere(rng, n)
	r := maxNorm * rng.Float64()
	for k := range a {
		a[k] *= r
	}
	return Isometry{Q: &q, A: a}
}

// Apply returns the image of x (a point of the closed ball) in a new slice.
func (g Isometry) Apply(x []float64) []float64 {
	n := len(x)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		var s float64
		for j := 0; j < n; j++ {
			s += g.Q.At(i, j) * x[j]
		}
		y[i] = s
	}
	return MobiusAdd(y, g.A, y)
}

// SampleSphere returns a point drawn uniformly from the unit sphere in R^n
// (a normalised Gaussian vector).
func SampleSphere(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for {
		for k := range x {
			x[k] = rng.NormFloat64()
		}
		if s := sqNorm(x); s > 0 {
			s = math.Sqrt(s)
			for k := range x {
				x[k] /= s
			}
			return x
		}
	}
}

// SampleHyperbolicDisk returns a point drawn uniformly, with respect to the
// hyperbolic volume, from the hyperbolic ball of radius R around the origin
// of the 2-dimensional Poincaré disk (the points of the paper's appendix E).
// The distance r has density sinh(r)/(cosh R − 1) on [0, R].
func SampleHyperbolicDisk(rng *rand.Rand, radius float64) []float64 {
	u := rng.Float64()
	// Inverse CDF of (cosh r − 1)/(cosh R − 1), written with expm1-style
	// care: cosh r − 1 = 2 sinh²(r/2).
	s := math.Sinh(radius/2) * math.Sqrt(u)
	r := 2 * math.Asinh(s)
	theta := 2 * math.Pi * rng.Float64()
	rho := DistToNorm(r)
	return []float64{rho * math.Cos(theta), rho * math.Sin(theta)}
}

// ProjectRows rescales every row of z whose norm exceeds MaxNorm onto the
// sphere of radius MaxNorm, keeping the embedding inside the ball. Rows with
// non-finite entries are left unchanged (callers detect NaN separately).
func ProjectRows(z *mat.Dense) {
	r, _ := z.Dims()
	for i := 0; i < r; i++ {
		projectRow(z.RawRowView(i))
	}
}

func projectRow(row []float64) {
	n := math.Sqrt(sqNorm(row))
	if n > MaxNorm {
		s := MaxNorm / n
		for k := range row {
			row[k] *= s
		}
	}
}

// RSGDStep applies one Riemannian SGD step on the Poincaré ball to every row
// p of z given the Euclidean gradient g (same shape), as the official code
// does: g_R = g·(1−‖p‖²)²/4, p ← p − lr·g_R, then the row is projected back
// to norm ≤ MaxNorm.
func RSGDStep(z, grad *mat.Dense, lr float64) {
	r, c := z.Dims()
	if gr, gc := grad.Dims(); gr != r || gc != c {
		panic("hyla: RSGDStep: gradient shape does not match the embedding")
	}
	RSGDRows(z, grad, lr, 0, r)
}

// RSGDRows is RSGDStep on the rows [lo, hi) of z only: each row's step
// reads only that row, so callers may update disjoint row ranges in
// parallel and get RSGDStep's bits.
func RSGDRows(z, grad *mat.Dense, lr float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		rsgdRow(z.RawRowView(i), grad.RawRowView(i), lr)
	}
}

func rsgdRow(p, g []float64, lr float64) {
	a := 1 - sqNorm(p)
	s := lr * a * a / 4
	for k := range p {
		p[k] -= s * g[k]
	}
	projectRow(p)
}
