package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// ballPoints returns m random points of the Poincaré ball of R^d0 with
// norms below maxNorm.
func ballPoints(rng *rand.Rand, m, d0 int, maxNorm float64) *mat.Dense {
	z := mat.NewDense(m, d0, nil)
	for i := 0; i < m; i++ {
		row := z.RawRowView(i)
		var sq float64
		for k := range row {
			row[k] = rng.NormFloat64()
			sq += row[k] * row[k]
		}
		s := maxNorm * rng.Float64() / math.Sqrt(sq)
		for k := range row {
			row[k] *= s
		}
	}
	return z
}

func testMaps(rng *rand.Rand, feats, d0 int) map[string]FeatureMap {
	maps := map[string]FeatureMap{}
	for _, conv := range []hyla.Convention{hyla.ConventionCode, hyla.ConventionPaper} {
		m, err := hyla.NewHyLa(hyla.SampleHyLa(rng, feats, d0, 1), conv)
		if err != nil {
			panic(err)
		}
		maps["hyla/"+string(conv)] = m
	}
	r, err := hyla.NewRFF(hyla.SampleRFF(rng, feats, d0, 1))
	if err != nil {
		panic(err)
	}
	maps["rff"] = r
	return maps
}

// TestFeaturesGradient checks ∂L/∂Z and ∂L/∂W through Φ against central
// finite differences, for Φ alone, for a linear layer on Φ and for the
// HyLa-GCN's first layer X·Φ(Z)·W (feature level).
func TestFeaturesGradient(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 21))
		m, d0, feats, c := 3+rng.IntN(4), 2+rng.IntN(3), 5+rng.IntN(8), 2+rng.IntN(3)
		n := 4 + rng.IntN(3)
		x := randGraph(rng, n, 2)
		x.Cols = m
		for k := range x.Indices {
			x.Indices[k] %= int32(m)
		}
		x = sparse.FromDense(x.ToDense()) // sums duplicate columns, keeps the rows sorted
		xs := NewSparse(x)
		for name, fm := range testMaps(rng, feats, d0) {
			l := NewMapLayer(fm)
			z := ballPoints(rng, m, d0, 0.8)
			w := randDense(rng, feats, c)
			rPhi := randDense(rng, m, feats)
			rOut := randDense(rng, m, c)
			rX := randDense(rng, n, c)
			checkGrad(t, name+" Φ(Z)", []*mat.Dense{z}, func(tp *Tape, p []*Node) *Node {
				return project(tp, tp.Features(l, p[0]), rPhi)
			})
			checkGrad(t, name+" Φ(Z)·W", []*mat.Dense{z, w}, func(tp *Tape, p []*Node) *Node {
				return project(tp, tp.MatMul(tp.Features(l, p[0]), p[1]), rOut)
			})
			checkGrad(t, name+" X·Φ(Z)·W", []*mat.Dense{z, w}, func(tp *Tape, p []*Node) *Node {
				return project(tp, tp.SpMM(xs, tp.MatMul(tp.Features(l, p[0]), p[1])), rX)
			})
			checkGrad(t, name+" centre(X·Φ(Z)·W)", []*mat.Dense{z, w}, func(tp *Tape, p []*Node) *Node {
				return project(tp, tp.CenterColumns(tp.SpMM(xs, tp.MatMul(tp.Features(l, p[0]), p[1]))), rX)
			})
		}
	}
}

// TestFeaturesRiemannianGradient checks the conversion of the tape's
// Euclidean gradient into the Riemannian one that RSGD follows: with the
// Poincaré metric g_z = λ_z²·I, λ_z = 2/(1−‖z‖²), the Riemannian gradient
// g_R = (1−‖z‖²)²/4·∇L satisfies λ_z²·⟨g_R, v⟩ = dL(z)[v] for every
// tangent vector v (the directional derivative, here by central finite
// differences), and hyla.RSGDStep moves z by −lr·g_R.
func TestFeaturesRiemannianGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 21))
	const m, d0, feats, c = 5, 3, 12, 3
	fm, err := hyla.NewHyLa(hyla.SampleHyLa(rng, feats, d0, 1), hyla.ConventionCode)
	if err != nil {
		t.Fatal(err)
	}
	l := NewMapLayer(fm)
	z := ballPoints(rng, m, d0, 0.7)
	w := randDense(rng, feats, c)
	r := randDense(rng, m, c)
	loss := func(z *mat.Dense) (float64, *mat.Dense) {
		tp := New(1)
		zn := tp.Param(z)
		out := project(tp, tp.MatMul(tp.Features(l, zn), tp.Const(w)), r)
		if err := tp.Backward(out); err != nil {
			t.Fatal(err)
		}
		return out.Scalar(), zn.Grad
	}
	_, g := loss(z)
	gR := mat.NewDense(m, d0, nil)
	for i := 0; i < m; i++ {
		zi := z.RawRowView(i)
		a := 1 - mat.Dot(mat.NewVecDense(d0, zi), mat.NewVecDense(d0, zi))
		for k := 0; k < d0; k++ {
			gR.Set(i, k, a*a/4*g.At(i, k))
		}
	}
	// The metric identity, one row and one random direction at a time.
	for i := 0; i < m; i++ {
		v := make([]float64, d0)
		for k := range v {
			v[k] = rng.NormFloat64()
		}
		zi := mat.NewVecDense(d0, z.RawRowView(i))
		a := 1 - mat.Dot(zi, zi)
		lam2 := 4 / (a * a)
		var got float64
		for k := range v {
			got += lam2 * gR.At(i, k) * v[k]
		}
		const h = 1e-6
		shifted := func(s float64) float64 {
			zz := mat.DenseCopyOf(z)
			for k := range v {
				zz.Set(i, k, zz.At(i, k)+s*v[k])
			}
			f, _ := loss(zz)
			return f
		}
		want := (shifted(h) - shifted(-h)) / (2 * h)
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("row %d: λ²⟨g_R, v⟩ = %.10g, directional derivative %.10g", i, got, want)
		}
	}
	// RSGD's step is −lr·g_R (the rows stay well inside the ball).
	const lr = 1e-3
	stepped := mat.DenseCopyOf(z)
	hyla.RSGDStep(stepped, g, lr)
	for i := 0; i < m; i++ {
		for k := 0; k < d0; k++ {
			if got, want := stepped.At(i, k)-z.At(i, k), -lr*gR.At(i, k); math.Abs(got-want) > 1e-15 {
				t.Errorf("RSGD step of z[%d][%d]: %.17g, want −lr·g_R = %.17g", i, k, got, want)
			}
		}
	}
}

// TestFeaturesStaleBackward: a backward pass after a later forward pass of
// the same map would use the wrong intermediates; it must panic.
func TestFeaturesStaleBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 21))
	fm, err := hyla.NewHyLa(hyla.SampleHyLa(rng, 8, 2, 1), hyla.ConventionCode)
	if err != nil {
		t.Fatal(err)
	}
	l := NewMapLayer(fm)
	z := ballPoints(rng, 3, 2, 0.5)
	tp := New(1)
	loss := project(tp, tp.Features(l, tp.Param(z)), randDense(rng, 3, 8))
	New(1).Features(l, New(1).Const(z)) // a second forward pass (evaluation)
	defer func() {
		if recover() == nil {
			t.Fatal("Backward after a later forward pass of the map did not panic")
		}
	}()
	_ = tp.Backward(loss)
}

// TestFeaturesShapeMismatch: an embedding of the wrong width panics with
// both shapes named (a programming error, like the other operations').
func TestFeaturesShapeMismatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 21))
	fm, err := hyla.NewHyLa(hyla.SampleHyLa(rng, 8, 3, 1), hyla.ConventionCode)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		r := recover()
		if r == nil || r.(string) != "autodiff: Features of a 2×2 embedding with a map of dimension 3" {
			t.Fatalf("panic %v", r)
		}
	}()
	tp := New(1)
	tp.Features(NewMapLayer(fm), tp.Param(mat.NewDense(2, 2, nil)))
}

// TestCenterColumns: every column of the output sums to zero and the
// output differs from the input by one row vector.
func TestCenterColumns(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 10, 2, 20, 6, 60})
	tp := New(1)
	got := tp.CenterColumns(tp.Param(x)).Value
	want := mat.NewDense(3, 2, []float64{-2, -20, -1, -10, 3, 30})
	if !mat.EqualApprox(got, want, 1e-15) {
		t.Errorf("CenterColumns = %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}
}
