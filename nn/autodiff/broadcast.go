package autodiff

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Broadcasting and elementwise operations, the building blocks of the
// hyperbolic layers (package nn/manifold): Möbius addition, exponential and
// logarithmic maps and projections are compositions of per-row norms and
// dot products, per-row scalars multiplying rows, and a curvature that is a
// 1×1 node multiplying everything. Each operation's gradient is checked
// against finite differences in the tests; the compositions are checked
// again where they are defined.

// bshape returns the broadcast shape of an a-shaped and a b-shaped value:
// each dimension must be equal or 1 on one side.
func bshape(op string, a, b *Node) (int, int) {
	ar, ac := a.Value.Dims()
	br, bc := b.Value.Dims()
	dim := func(x, y int) (int, bool) {
		switch {
		case x == y:
			return x, true
		case x == 1:
			return y, true
		case y == 1:
			return x, true
		}
		return 0, false
	}
	r, okr := dim(ar, br)
	c, okc := dim(ac, bc)
	if !okr || !okc {
		panic(fmt.Sprintf("autodiff: %s of %d×%d and %d×%d (broadcast needs equal sizes or 1)", op, ar, ac, br, bc))
	}
	return r, c
}

// Map2 returns f(a, b) elementwise with broadcasting (a dimension of size 1
// on one side is repeated to the other's size: n×c with n×1, 1×c or 1×1).
// da and db are the partial derivatives ∂f/∂a and ∂f/∂b at (a, b, f(a, b));
// the gradient of a broadcast operand is summed over the repeated entries,
// in row-major order.
func (t *Tape) Map2(a, b *Node, f func(x, y float64) float64, da, db func(x, y, z float64) float64) *Node {
	r, c := bshape("Map2", a, b)
	v := t.denseFull(r, c) // every entry written
	av, bv := bview(a.Value), bview(b.Value)
	for i := 0; i < r; i++ {
		row := v.RawRowView(i)
		ar, br := av.row(i), bv.row(i)
		for j := range row {
			row[j] = f(ar[j*av.step], br[j*bv.step])
		}
	}
	return t.record(v, func(out *Node) {
		var ga, gb bcast
		if a.needs {
			ga = bview(a.grad())
		}
		if b.needs {
			gb = bview(b.grad())
		}
		for i := 0; i < r; i++ {
			g, z := out.Grad.RawRowView(i), out.Value.RawRowView(i)
			ar, br := av.row(i), bv.row(i)
			var gar, gbr []float64
			if ga.m != nil {
				gar = ga.row(i)
			}
			if gb.m != nil {
				gbr = gb.row(i)
			}
			for j, gij := range g {
				if gij == 0 {
					continue
				}
				x, y := ar[j*av.step], br[j*bv.step]
				if gar != nil {
					gar[j*ga.step] += gij * da(x, y, z[j])
				}
				if gbr != nil {
					gbr[j*gb.step] += gij * db(x, y, z[j])
				}
			}
		}
	}, a, b)
}

// bcast reads a matrix broadcast over rows (a single row repeated) and
// columns (step 0: a single column repeated).
type bcast struct {
	m    *mat.Dense
	one  bool // a single row
	step int
}

func bview(m *mat.Dense) bcast {
	r, c := m.Dims()
	b := bcast{m: m, one: r == 1, step: 1}
	if c == 1 {
		b.step = 0
	}
	return b
}

func (b bcast) row(i int) []float64 {
	if b.one {
		i = 0
	}
	return b.m.RawRowView(i)
}

// AddB returns a + b with broadcasting (see Map2).
func (t *Tape) AddB(a, b *Node) *Node {
	return t.Map2(a, b, func(x, y float64) float64 { return x + y },
		func(_, _, _ float64) float64 { return 1 }, func(_, _, _ float64) float64 { return 1 })
}

// SubB returns a − b with broadcasting.
func (t *Tape) SubB(a, b *Node) *Node {
	return t.Map2(a, b, func(x, y float64) float64 { return x - y },
		func(_, _, _ float64) float64 { return 1 }, func(_, _, _ float64) float64 { return -1 })
}

// MulB returns a∘b (elementwise product) with broadcasting: a per-row
// scalar (n×1) times a matrix scales its rows.
func (t *Tape) MulB(a, b *Node) *Node {
	return t.Map2(a, b, func(x, y float64) float64 { return x * y },
		func(_, y, _ float64) float64 { return y }, func(x, _, _ float64) float64 { return x })
}

// DivB returns a / b elementwise with broadcasting. Callers keep b away
// from zero (ClampMin); a zero divisor gives ±Inf as in IEEE arithmetic.
func (t *Tape) DivB(a, b *Node) *Node {
	return t.Map2(a, b, func(x, y float64) float64 { return x / y },
		func(_, y, _ float64) float64 { return 1 / y }, func(_, y, z float64) float64 { return -z / y })
}

// MaxB returns max(a, b) elementwise with broadcasting; the gradient goes
// to a where a > b and to b otherwise (ties to b).
func (t *Tape) MaxB(a, b *Node) *Node {
	return t.Map2(a, b, math.Max,
		func(x, y, _ float64) float64 {
			if x > y {
				return 1
			}
			return 0
		}, func(x, y, _ float64) float64 {
			if x > y {
				return 0
			}
			return 1
		})
}

// Map returns f(x) elementwise; df is f's derivative at (x, f(x)).
func (t *Tape) Map(x *Node, f func(float64) float64, df func(x, y float64) float64) *Node {
	return t.elementwise(x, f, df)
}

// AddConst returns x + k elementwise.
func (t *Tape) AddConst(x *Node, k float64) *Node {
	return t.elementwise(x, func(v float64) float64 { return v + k }, func(_, _ float64) float64 { return 1 })
}

// Sqrt returns √x elementwise (derivative 1/(2√x); callers keep x > 0).
func (t *Tape) Sqrt(x *Node) *Node {
	return t.elementwise(x, math.Sqrt, func(_, y float64) float64 { return 0.5 / y })
}

// Square returns x² elementwise.
func (t *Tape) Square(x *Node) *Node {
	return t.elementwise(x, func(v float64) float64 { return v * v }, func(x, _ float64) float64 { return 2 * x })
}

// ClampMin returns max(x, lo) elementwise; the gradient passes where
// x ≥ lo and is zero below (PyTorch's clamp_min).
func (t *Tape) ClampMin(x *Node, lo float64) *Node {
	return t.elementwise(x, func(v float64) float64 { return math.Max(v, lo) }, func(x, _ float64) float64 {
		if x >= lo {
			return 1
		}
		return 0
	})
}

// Tanh returns tanh(clamp(x, −15, 15)) elementwise, the clamp of HGCN's
// math_utils (the gradient is zero outside it, where tanh is ±1 to 1e−13).
func (t *Tape) Tanh(x *Node) *Node {
	return t.elementwise(x, func(v float64) float64 { return math.Tanh(math.Max(-15, math.Min(15, v))) },
		func(x, y float64) float64 {
			if x < -15 || x > 15 {
				return 0
			}
			return 1 - y*y
		})
}

// ArtanhClamp is the bound of Artanh's argument: |x| ≤ 1 − 1e−15.
const ArtanhClamp = 1 - 1e-15

// Artanh returns artanh(clamp(x, −1+1e−15, 1−1e−15)) elementwise, finite
// for any input, with derivative 1/(1 − clamp(x)²) everywhere (HGCN's
// Artanh function: the gradient of the clamped value, not zero, so a point
// pushed onto the boundary still feels the loss).
func (t *Tape) Artanh(x *Node) *Node {
	cl := func(v float64) float64 { return math.Max(-ArtanhClamp, math.Min(ArtanhClamp, v)) }
	return t.elementwise(x, func(v float64) float64 { return math.Atanh(cl(v)) },
		func(x, _ float64) float64 { c := cl(x); return 1 / (1 - c*c) })
}

// Softplus returns log(1 + eˣ) elementwise, computed without overflow.
func (t *Tape) Softplus(x *Node) *Node {
	return t.elementwise(x, func(v float64) float64 {
		if v > 0 {
			return v + math.Log1p(math.Exp(-v))
		}
		return math.Log1p(math.Exp(v))
	}, func(x, _ float64) float64 {
		if x > 0 {
			return 1 / (1 + math.Exp(-x))
		}
		e := math.Exp(x)
		return e / (1 + e)
	})
}

// RowSum returns the n×1 column of the row sums of x.
func (t *Tape) RowSum(x *Node) *Node {
	r, _ := x.Value.Dims()
	v := t.dense(r, 1)
	for i := 0; i < r; i++ {
		var s float64
		for _, e := range x.Value.RawRowView(i) {
			s += e
		}
		v.Set(i, 0, s)
	}
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for i := 0; i < r; i++ {
			g := out.Grad.At(i, 0)
			for j := range gx.RawRowView(i) {
				gx.RawRowView(i)[j] += g
			}
		}
	}, x)
}

// RowNorm returns the n×1 column of the Euclidean norms of x's rows; the
// gradient of a zero row is zero (PyTorch's convention for the 2-norm).
func (t *Tape) RowNorm(x *Node) *Node {
	r, _ := x.Value.Dims()
	v := t.dense(r, 1)
	for i := 0; i < r; i++ {
		var s float64
		for _, e := range x.Value.RawRowView(i) {
			s += e * e
		}
		v.Set(i, 0, math.Sqrt(s))
	}
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for i := 0; i < r; i++ {
			nrm := out.Value.At(i, 0)
			if nrm == 0 {
				continue
			}
			g := out.Grad.At(i, 0) / nrm
			xr, gr := x.Value.RawRowView(i), gx.RawRowView(i)
			for j, e := range xr {
				gr[j] += g * e
			}
		}
	}, x)
}

// SumAll returns the 1×1 sum of every entry of x.
func (t *Tape) SumAll(x *Node) *Node {
	r, _ := x.Value.Dims()
	var s float64
	for i := 0; i < r; i++ {
		for _, e := range x.Value.RawRowView(i) {
			s += e
		}
	}
	return t.record(mat.NewDense(1, 1, []float64{s}), func(out *Node) {
		g := out.Grad.At(0, 0)
		gx := x.grad()
		for i := 0; i < r; i++ {
			for j := range gx.RawRowView(i) {
				gx.RawRowView(i)[j] += g
			}
		}
	}, x)
}

// MeanAll returns the 1×1 mean of every entry of x.
func (t *Tape) MeanAll(x *Node) *Node {
	r, c := x.Value.Dims()
	return t.Scale(t.SumAll(x), 1/float64(r*c))
}

// GatherRows returns the rows idx of x (repeats allowed), an len(idx)×c
// matrix; the gradient is scattered back, summed over repeats in order.
func (t *Tape) GatherRows(x *Node, idx []int) *Node {
	r, c := x.Value.Dims()
	v := t.dense(max(len(idx), 1), c)
	for k, i := range idx {
		if i < 0 || i >= r {
			panic(fmt.Sprintf("autodiff: GatherRows index %d outside 0..%d", i, r-1))
		}
		copy(v.RawRowView(k), x.Value.RawRowView(i))
	}
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for k, i := range idx {
			gr := gx.RawRowView(i)
			for j, g := range out.Grad.RawRowView(k) {
				gr[j] += g
			}
		}
	}, x)
}

// Transpose returns xᵀ.
func (t *Tape) Transpose(x *Node) *Node {
	v := mat.DenseCopyOf(x.Value.T())
	return t.record(v, func(out *Node) {
		x.grad().Add(x.Grad, out.Grad.T())
	}, x)
}

// Needs reports whether a gradient flows into n (it is a parameter or
// depends on one).
func (n *Node) Needs() bool { return n.needs }
