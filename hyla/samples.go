// Package hyla implements the geometry of the Poincaré ball, the HyLa and
// RFF random feature maps with analytic gradients, the HyLa kernels of
// Theorem 4.1, and Riemannian SGD.
package hyla

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Convention selects how the sampled λ enters the HyLa feature map.
type Convention string

const (
	// ConventionCode is the official code's convention: cos((λ/2)·⟨ω,z⟩_H + b),
	// i.e. an effective frequency of half the sampled λ. Its tuned
	// lambda_scale values assume this. The default.
	ConventionCode Convention = "code"
	// ConventionPaper is eq. (1) of the paper: cos(λ·⟨ω,z⟩_H + b).
	ConventionPaper Convention = "paper"
)

// Samples are the D random-feature parameters drawn once per seed.
type Samples struct {
	Kind string // "hyla" or "rff"
	// Omega is D×d0. HyLa: row j is the boundary point ω_j (unit norm).
	// RFF: row j is column j of Λ ∈ R^{d0×D}.
	Omega  *mat.Dense
	Lambda []float64 // HyLa: λ_j ~ N(0, s²); nil for RFF
	B      []float64 // b_j ~ U[0, 2π)
}

// Features returns D.
func (s *Samples) Features() int { r, _ := s.Omega.Dims(); return r }

// Dim returns d0.
func (s *Samples) Dim() int { _, c := s.Omega.Dims(); return c }

// SampleHyLa draws D HyLa features for the d0-dimensional ball: ω uniform on
// the unit sphere (a normalised Gaussian), λ ~ N(0, scale²), b ~ U[0, 2π).
// The draw order is fixed (all ω, then λ, then b) so results are reproducible.
func SampleHyLa(rng *rand.Rand, features, dim int, scale float64) *Samples {
	omega := mat.NewDense(features, dim, nil)
	for j := 0; j < features; j++ {
		row := omega.RawRowView(j)
		var norm float64
		for norm == 0 {
			norm = 0
			for k := range row {
				row[k] = rng.NormFloat64()
				norm += row[k] * row[k]
			}
		}
		norm = math.Sqrt(norm)
		for k := range row {
			row[k] /= norm
		}
	}
	lambda := make([]float64, features)
	for j := range lambda {
		lambda[j] = scale * rng.NormFloat64()
	}
	return &Samples{Kind: "hyla", Omega: omega, Lambda: lambda, B: uniformPhases(rng, features)}
}

// SampleRFF draws D random Fourier features for d0-dimensional Euclidean
// inputs: Λ ~ N(0, scale²) entrywise, b ~ U[0, 2π).
func SampleRFF(rng *rand.Rand, features, dim int, scale float64) *Samples {
	omega := mat.NewDense(features, dim, nil)
	raw := omega.RawMatrix().Data
	for k := range raw {
		raw[k] = scale * rng.NormFloat64()
	}
	return &Samples{Kind: "rff", Omega: omega, B: uniformPhases(rng, features)}
}

func uniformPhases(rng *rand.Rand, n int) []float64 {
	b := make([]float64, n)
	for j := range b {
		b[j] = 2 * math.Pi * rng.Float64()
	}
	return b
}

// FeatureMap is a random feature map φ: R^{d0} → R^D applied to the rows
// of a matrix, with its gradient. Implementations keep the intermediates of
// the last Forward for Backward and are not safe for concurrent use.
type FeatureMap interface {
	// Dim is d0, Features is D.
	Dim() int
	Features() int
	// Forward sets out (m×D) to φ(Z) row by row for Z (m×d0).
	Forward(z, out *mat.Dense)
	// Backward sets gradZ (m×d0) to ∂L/∂Z given gradOut = ∂L/∂φ(Z) (m×D),
	// for the Z of the most recent Forward.
	Backward(gradOut, gradZ *mat.Dense)
	// SetWorkers sets how many goroutines Forward and Backward may use
	// (≥ 1; the default is runtime.GOMAXPROCS(0)). Results do not depend on it.
	SetWorkers(n int)
}
