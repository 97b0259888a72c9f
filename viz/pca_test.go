package viz

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// A known 2-D example: points spread along the direction (1, 2)/√5 with a
// small symmetric offset along (−2, 1)/√5. The first component is (1, 2)/√5
// (signed so its largest entry is positive) and the variances are exact.
func TestPCAKnown2D(t *testing.T) {
	u := []float64{1 / math.Sqrt(5), 2 / math.Sqrt(5)}
	v := []float64{-2 / math.Sqrt(5), 1 / math.Sqrt(5)}
	ts := []float64{-2, -1, 0, 1, 2, -2, -1, 0, 1, 2}
	ss := []float64{0.1, -0.1, 0.1, -0.1, 0.1, -0.1, 0.1, -0.1, 0.1, -0.1}
	x := mat.NewDense(len(ts), 2, nil)
	for i := range ts {
		x.Set(i, 0, 3+ts[i]*u[0]+ss[i]*v[0]) // shifted: PCA must centre
		x.Set(i, 1, -1+ts[i]*u[1]+ss[i]*v[1])
	}
	r, err := PCA(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Σt² = 20, Σs² = 0.1, Σ t·s = 0 → variances 20/9 and 0.1/9.
	wantVar := []float64{20.0 / 9, 0.1 / 9}
	for i, w := range wantVar {
		if math.Abs(r.Variances[i]-w) > 1e-12 {
			t.Errorf("variance %d = %.15g, want %.15g", i, r.Variances[i], w)
		}
	}
	if math.Abs(r.Total-(20.1/9)) > 1e-12 {
		t.Errorf("total variance %v, want %v", r.Total, 20.1/9)
	}
	for k := range 2 {
		if math.Abs(r.Vectors.At(k, 0)-u[k]) > 1e-12 {
			t.Errorf("first component %v, want %v", mat.Col(nil, 0, r.Vectors), u)
		}
	}
	// v's largest entry is −2/√5, so the second component is −v.
	for k := range 2 {
		if math.Abs(r.Vectors.At(k, 1)+v[k]) > 1e-12 {
			t.Errorf("second component %v, want %v", mat.Col(nil, 1, r.Vectors), []float64{-v[0], -v[1]})
		}
	}
	for i := range ts {
		if math.Abs(r.Coords.At(i, 0)-ts[i]) > 1e-12 || math.Abs(r.Coords.At(i, 1)+ss[i]) > 1e-12 {
			t.Errorf("row %d projects to (%v, %v), want (%v, %v)", i, r.Coords.At(i, 0), r.Coords.At(i, 1), ts[i], -ss[i])
		}
	}
	ratio := r.ExplainedRatio()
	if math.Abs(ratio[0]-20/20.1) > 1e-12 {
		t.Errorf("explained ratio %v, want %v", ratio[0], 20/20.1)
	}
}

// PCA against an independent eigendecomposition of the covariance matrix.
func TestPCAAgainstEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d, k = 60, 6, 4
	mix := mat.NewDense(d, d, nil)
	for i := range d {
		for j := range d {
			mix.Set(i, j, rng.NormFloat64()*float64(d-j))
		}
	}
	g := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var x mat.Dense
	x.Mul(g, mix)
	r, err := PCA(&x, k)
	if err != nil {
		t.Fatal(err)
	}
	// Covariance by hand, eigenvalues by gonum's symmetric eigensolver.
	mean := make([]float64, d)
	for i := range n {
		for j := range d {
			mean[j] += x.At(i, j) / n
		}
	}
	cov := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			s := 0.0
			for i := range n {
				s += (x.At(i, a) - mean[a]) * (x.At(i, b) - mean[b])
			}
			cov.SetSym(a, b, s/(n-1))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		t.Fatal("eigendecomposition failed")
	}
	vals := eig.Values(nil) // ascending
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	trace := 0.0
	for _, v := range vals {
		trace += v
	}
	if math.Abs(r.Total-trace) > 1e-9*trace {
		t.Errorf("total variance %v, eigenvalue sum %v", r.Total, trace)
	}
	for c := range k {
		e := d - 1 - c
		if math.Abs(r.Variances[c]-vals[e]) > 1e-9*vals[d-1] {
			t.Errorf("variance %d = %v, eigenvalue %v", c, r.Variances[c], vals[e])
		}
		dot := 0.0
		for j := range d {
			dot += r.Vectors.At(j, c) * vecs.At(j, e)
		}
		if math.Abs(math.Abs(dot)-1) > 1e-8 {
			t.Errorf("component %d: |⟨pc, eigenvector⟩| = %v, want 1", c, math.Abs(dot))
		}
		// Projections: centred data times the component.
		for i := range n {
			s := 0.0
			for j := range d {
				s += (x.At(i, j) - mean[j]) * r.Vectors.At(j, c)
			}
			if math.Abs(s-r.Coords.At(i, c)) > 1e-9 {
				t.Fatalf("coords[%d][%d] = %v, want %v", i, c, r.Coords.At(i, c), s)
			}
		}
	}
}

func TestPCAErrors(t *testing.T) {
	ok := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 7})
	nan := mat.NewDense(3, 2, []float64{1, 2, 3, math.NaN(), 5, 7})
	for _, tc := range []struct {
		name string
		x    mat.Matrix
		k    int
		want string
	}{
		{"zero components", ok, 0, "want 1..2"},
		{"too many components", ok, 3, "want 1..2"},
		{"one row", mat.NewDense(1, 2, []float64{1, 2}), 1, "at least 2 rows"},
		{"NaN", nan, 1, "entry (1, 1) is NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := PCA(tc.x, tc.k)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func nanF() float64 { return math.NaN() }
