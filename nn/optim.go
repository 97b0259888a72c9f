package nn

import (
	"fmt"
	"math"
)

// Adam is the Adam optimiser with PyTorch's update (torch.optim.Adam,
// amsgrad off): with t the step count,
//
//	g ← g + wd·p                      (if WeightDecay > 0, L2 as in torch)
//	m ← m + (1−β1)·(g − m)
//	v ← β2·v + (1−β2)·g²
//	p ← p − (lr/(1−β1^t)) · m / (√v/√(1−β2^t) + ε)
//
// One Adam instance holds the state of one parameter vector.
type Adam struct {
	LR, Beta1, Beta2, Eps, WeightDecay float64

	m, v []float64
	t    int
}

// NewAdam returns Adam with PyTorch's defaults (β1 0.9, β2 0.999, ε 1e−8,
// no weight decay) for a parameter of size n.
func NewAdam(lr float64, n int) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: make([]float64, n), v: make([]float64, n)}
}

// Steps returns the number of steps taken.
func (a *Adam) Steps() int { return a.t }

// Step updates p in place from the gradient g (same length as the state).
// g is not modified.
func (a *Adam) Step(p, g []float64) {
	if len(p) != len(a.m) || len(g) != len(a.m) {
		panic(fmt.Sprintf("nn: Adam.Step: parameter %d and gradient %d for a state of %d", len(p), len(g), len(a.m)))
	}
	a.t++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.t))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.t))
	stepSize := a.LR / bc1
	bc2Sqrt := math.Sqrt(bc2)
	wd := a.WeightDecay
	for i, gi := range g {
		if wd != 0 {
			gi += wd * p[i]
		}
		a.m[i] += (1 - a.Beta1) * (gi - a.m[i])
		a.v[i] = a.Beta2*a.v[i] + (1-a.Beta2)*gi*gi
		denom := math.Sqrt(a.v[i])/bc2Sqrt + a.Eps
		p[i] -= stepSize * (a.m[i] / denom)
	}
}

// SGD is plain stochastic gradient descent, p ← p − lr·(g + wd·p), as
// torch.optim.SGD without momentum.
type SGD struct {
	LR, WeightDecay float64
}

// Step updates p in place from the gradient g.
func (s SGD) Step(p, g []float64) {
	if len(p) != len(g) {
		panic(fmt.Sprintf("nn: SGD.Step: parameter %d and gradient %d", len(p), len(g)))
	}
	for i, gi := range g {
		if s.WeightDecay != 0 {
			gi += s.WeightDecay * p[i]
		}
		p[i] -= s.LR * gi
	}
}
