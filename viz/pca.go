package viz

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// PCAResult is a principal component projection.
type PCAResult struct {
	// Coords holds the centred rows projected onto the first k components (n×k).
	Coords *mat.Dense
	// Vectors holds the components as columns (d×k), unit length. Each is
	// signed so that its entry of largest magnitude is positive, which makes
	// the projection unique for distinct variances.
	Vectors *mat.Dense
	// Variances are the variances (denominator n−1) along the k components,
	// in decreasing order; Total is the total variance of the data.
	Variances []float64
	Total     float64
}

// ExplainedRatio returns Variances[i] / Total for each component.
func (r *PCAResult) ExplainedRatio() []float64 {
	out := make([]float64, len(r.Variances))
	for i, v := range r.Variances {
		if r.Total > 0 {
			out[i] = v / r.Total
		}
	}
	return out
}

// PCA projects the rows of x (n observations × d variables) onto their
// first k principal components, computed with gonum's stat.PC (a thin SVD
// of the centred data).
func PCA(x mat.Matrix, k int) (*PCAResult, error) {
	n, d := x.Dims()
	if n < 2 || d < 1 {
		return nil, fmt.Errorf("viz: PCA of a %d×%d matrix: need at least 2 rows and 1 column", n, d)
	}
	if k < 1 || k > min(n, d) {
		return nil, fmt.Errorf("viz: PCA with %d components of a %d×%d matrix: want 1..%d", k, n, d, min(n, d))
	}
	if err := checkFiniteMatrix(x); err != nil {
		return nil, fmt.Errorf("viz: PCA: %w", err)
	}
	var pc stat.PC
	if !pc.PrincipalComponents(x, nil) {
		return nil, errors.New("viz: PCA: the SVD of the centred data did not converge")
	}
	var vecs mat.Dense
	pc.VectorsTo(&vecs)
	vars := pc.VarsTo(nil)
	total := 0.0
	for _, v := range vars {
		total += v
	}
	v := mat.DenseCopyOf(vecs.Slice(0, d, 0, k))
	for c := 0; c < k; c++ {
		best, arg := -1.0, 0
		for r := 0; r < d; r++ {
			if a := math.Abs(v.At(r, c)); a > best {
				best, arg = a, r
			}
		}
		if v.At(arg, c) < 0 {
			for r := 0; r < d; r++ {
				v.Set(r, c, -v.At(r, c))
			}
		}
	}
	centred := mat.DenseCopyOf(x)
	for c := 0; c < d; c++ {
		mean := 0.0
		for r := 0; r < n; r++ {
			mean += centred.At(r, c)
		}
		mean /= float64(n)
		for r := 0; r < n; r++ {
			centred.Set(r, c, centred.At(r, c)-mean)
		}
	}
	coords := mat.NewDense(n, k, nil)
	coords.Mul(centred, v)
	return &PCAResult{Coords: coords, Vectors: v, Variances: append([]float64(nil), vars[:k]...), Total: total}, nil
}

func checkFiniteMatrix(x mat.Matrix) error {
	n, d := x.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("entry (%d, %d) is %v, want a finite number", i, j, v)
			}
		}
	}
	return nil
}
