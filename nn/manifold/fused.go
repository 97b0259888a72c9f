package manifold

import (
	"context"
	"fmt"
	"math"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/nn/autodiff"
	"gonum.org/v1/gonum/mat"
)

// The Poincaré ball's maps as single tape operations (autodiff.Tape.Custom):
// one pass over the rows forward and one backward, instead of a dozen
// operations each allocating and visiting an n×d or n×1 matrix through an
// indirect call per entry — on Pubmed (19,717 nodes) that chain was most of
// an HGCN epoch. Each row is computed by one goroutine with the same
// arithmetic in the same order as the composition it replaces (the
// forward values are bit-identical to it; the tests keep the composition
// as a reference), and every sum over rows — the curvature's gradient, a
// broadcast operand's gradient — is taken from per-row partial values in
// row order, so the results are the same bits for any Tape.Workers.

// fuseBlock is the number of rows per parallel block (fixed: the blocks,
// hence the results, do not depend on the worker count).
const fuseBlock = 512

// rows runs fn over the rows [0, n) in blocks on the tape's workers.
func rows(tp *autodiff.Tape, n int, fn func(lo, hi int)) {
	_ = parallel.Balanced(context.Background(), n, fuseBlock, tp.Workers, fn)
}

// curvGrad adds Σ_i part[i] (in row order) times k into c's gradient, for
// a curvature that needs one.
func curvGrad(c *autodiff.Node, part []float64, k float64) {
	if !c.Needs() {
		return
	}
	var s float64
	for _, v := range part {
		s += v
	}
	g := c.GradAcc()
	g.Set(0, 0, g.At(0, 0)+s*k)
}

// backGrads starts a fused map's backward pass: x's gradient accumulator
// (nil when x needs none) and the per-row partials of the curvature c's
// gradient (curvParts).
func backGrads(x, c *autodiff.Node, r int) (*mat.Dense, []float64) {
	var gx *mat.Dense
	if x.Needs() {
		gx = x.GradAcc()
	}
	return gx, curvParts(c, r)
}

// curvParts returns a buffer for r per-row partials of c's gradient, which
// curvGrad sums in row order, or nil when c needs no gradient.
func curvParts(c *autodiff.Node, r int) []float64 {
	if !c.Needs() {
		return nil
	}
	return make([]float64, r)
}

// sqNorm is Σ x_j² in index order (the composition's RowSum(Square(x))).
func sqNorm(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s
}

func dot(x, y []float64) float64 {
	var s float64
	for j, v := range x {
		s += v * y[j]
	}
	return s
}

// rowView returns row i of m, or its only row when m has one (a 1×d
// operand broadcast to every row).
func rowView(m *mat.Dense, i int) []float64 {
	if r, _ := m.Dims(); r == 1 {
		return m.RawRowView(0)
	}
	return m.RawRowView(i)
}

// scaleCoef is the factor of a scaleMap: value gets the raw norm and √c
// and returns f and a value aux that deriv needs (tanh's, for ExpMap0);
// deriv returns ∂f/∂n (n the clamped norm max(‖x‖, MinNorm)) and ∂f/∂√c
// from the same norm and √c, f and aux. The forward pass needs only
// value; the backward pass does not compute the transcendental again.
type scaleCoef struct {
	value func(nrm, sc float64) (f, aux float64)
	deriv func(nrm, sc, f, aux float64) (dn, dsc float64)
}

// scaleMap is the shape of Proj, ExpMap0 and LogMap0: y = f(‖x‖, c)·x for
// each row, with f and its derivatives from coef.
func scaleMap(tp *autodiff.Tape, x, c *autodiff.Node, coef scaleCoef) *autodiff.Node {
	r, d := x.Value.Dims()
	sc := math.Sqrt(c.Value.At(0, 0))
	v := tp.DenseFull(r, d) // every entry written, as every row's state
	f, aux, nrms := tp.FloatsFull(r), tp.FloatsFull(r), tp.FloatsFull(r)
	xm, vm := x.Value.RawMatrix(), v.RawMatrix()
	rows(tp, r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xr, vr := xm.Data[i*xm.Stride:i*xm.Stride+d], vm.Data[i*vm.Stride:i*vm.Stride+d]
			nrm := math.Sqrt(sqNorm(xr))
			fi, ai := coef.value(nrm, sc)
			for j, e := range xr {
				vr[j] = e * fi
			}
			f[i], aux[i], nrms[i] = fi, ai, nrm
		}
	})
	return tp.Custom(v, func(out *autodiff.Node) {
		gx, pc := backGrads(x, c, r)
		gm := out.Grad.RawMatrix()
		rows(tp, r, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g, xr := gm.Data[i*gm.Stride:i*gm.Stride+d], xm.Data[i*xm.Stride:i*xm.Stride+d]
				gf := dot(g, xr)
				dn, dsc := coef.deriv(nrms[i], sc, f[i], aux[i])
				if gx != nil {
					gr := gx.RawRowView(i)
					fi := f[i]
					for j := range gr {
						gr[j] += g[j] * fi
					}
					// The clamp passes the gradient where ‖x‖ ≥ MinNorm; the
					// norm of a zero row has none.
					if nrm := nrms[i]; nrm >= MinNorm && nrm > 0 && dn != 0 {
						k := gf * dn / nrm
						for j, e := range xr {
							gr[j] += k * e
						}
					}
				}
				if pc != nil {
					pc[i] = gf * dsc
				}
			}
		})
		curvGrad(c, pc, 0.5/sc)
	}, x, c)
}

// maxFinite is math.Max(x, y) for a finite y, bit for bit (NaN: math's
// NaN; max(+0, −0) = +0), in a form the compiler inlines: amd64's
// math.Max is a call into assembly.
func maxFinite(x, y float64) float64 {
	if x > y {
		return x
	}
	if x != x {
		return math.NaN()
	}
	if x == 0 && y == 0 && !math.Signbit(x) {
		return x
	}
	return y
}

// minFinite is math.Min(x, y) for a finite y, bit for bit (min(−0, +0) =
// −0), inlined.
func minFinite(x, y float64) float64 {
	if x < y {
		return x
	}
	if x != x {
		return math.NaN()
	}
	if x == 0 && y == 0 && math.Signbit(x) {
		return x
	}
	return y
}

// clampFinite is math.Max(lo, math.Min(hi, s)) for finite lo < hi.
func clampFinite(s, lo, hi float64) float64 { return maxFinite(minFinite(s, hi), lo) }

// projCoef is Proj's factor m/max(n, m), m = (1 − BallEps)/√c.
var projCoef = scaleCoef{
	value: func(nrm, sc float64) (f, aux float64) {
		n := maxFinite(nrm, MinNorm)
		m := (1 - BallEps) / sc
		return m / math.Max(n, m), 0
	},
	deriv: func(nrm, sc, f, _ float64) (dn, dsc float64) {
		n := maxFinite(nrm, MinNorm)
		m := (1 - BallEps) / sc
		if n > m { // outside: f = m/n
			dn = -f / n
			dsc = (1 / n) * (-m / sc) // ∂f/∂m · ∂m/∂√c
		}
		return dn, dsc
	},
}

// expCoef is ExpMap0's factor tanh(√c·n)/(√c·n) (tanh's argument clamped
// at ±15, autodiff.Tanh); aux is the tanh.
var expCoef = scaleCoef{
	value: func(nrm, sc float64) (f, aux float64) {
		n := maxFinite(nrm, MinNorm)
		s := sc * n
		t := math.Tanh(clampFinite(s, -15, 15))
		return t / s, t
	},
	deriv: func(nrm, sc, f, t float64) (dn, dsc float64) {
		n := maxFinite(nrm, MinNorm)
		s := sc * n
		dt := 1 - t*t
		if s < -15 || s > 15 {
			dt = 0
		}
		ds := (dt - f) / s
		return ds * sc, ds * n
	},
}

// logCoef is LogMap0's factor artanh(√c·n)/(√c·n) (artanh's argument
// clamped at ±(1 − 1e−15), its derivative that of the clamped value,
// autodiff.Artanh).
var logCoef = scaleCoef{
	value: func(nrm, sc float64) (f, aux float64) {
		n := maxFinite(nrm, MinNorm)
		s := sc * n
		cl := clampFinite(s, -autodiff.ArtanhClamp, autodiff.ArtanhClamp)
		return math.Atanh(cl) / s, 0
	},
	deriv: func(nrm, sc, f, _ float64) (dn, dsc float64) {
		n := maxFinite(nrm, MinNorm)
		s := sc * n
		cl := clampFinite(s, -autodiff.ArtanhClamp, autodiff.ArtanhClamp)
		ds := (1/(1-cl*cl) - f) / s
		return ds * sc, ds * n
	},
}

// mobiusAdd is Möbius addition x ⊕_c y of each row (x and y n×d, or 1×d
// broadcast), one tape operation; see Poincare.MobiusAdd.
func mobiusAdd(tp *autodiff.Tape, x, y, c *autodiff.Node) *autodiff.Node {
	xr0, d := x.Value.Dims()
	yr0, yd := y.Value.Dims()
	if yd != d || (xr0 != yr0 && xr0 != 1 && yr0 != 1) {
		panic("manifold: MobiusAdd of " + dimStr(x) + " and " + dimStr(y))
	}
	r := max(xr0, yr0)
	cv := c.Value.At(0, 0)
	v := tp.DenseFull(r, d) // every entry written, as every row's state
	// Per row: A, B, the clamped denominator, ‖x‖², ‖y‖², ⟨x, y⟩ and
	// whether the clamp passed the gradient.
	st := tp.FloatsFull(6 * r)
	rows(tp, r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xr, yr, vr := rowView(x.Value, i), rowView(y.Value, i), v.RawRowView(i)
			x2, y2, xy := sqNorm(xr), sqNorm(yr), dot(xr, yr)
			cxy2 := cv * (xy * 2)
			a := (cxy2 + cv*y2) + 1
			b := -(cv * x2) + 1
			den := (cxy2 + (cv*cv)*(x2*y2)) + 1
			dc := maxFinite(den, MinNorm)
			for j := range vr {
				vr[j] = (a*xr[j] + b*yr[j]) / dc
			}
			if den < MinNorm {
				dc = -dc // marks a clamped denominator (no gradient through it)
			}
			s := st[6*i : 6*i+6]
			s[0], s[1], s[2], s[3], s[4], s[5] = a, b, dc, x2, y2, xy
		}
	})
	return tp.Custom(v, func(out *autodiff.Node) {
		// Broadcast operands and the curvature get per-row partials,
		// summed in row order afterwards.
		gxs, gxBuf := gradTarget(x, r, d)
		gys, gyBuf := gradTarget(y, r, d)
		pc := curvParts(c, r)
		rows(tp, r, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g, o := out.Grad.RawRowView(i), out.Value.RawRowView(i)
				xr, yr := rowView(x.Value, i), rowView(y.Value, i)
				s := st[6*i : 6*i+6]
				a, b, dc, x2, y2, xy := s[0], s[1], s[2], s[3], s[4], s[5]
				den := math.Abs(dc)
				// out = N/D: ∂/∂N = g/D, ∂/∂D = −⟨g, out⟩/D.
				var gA, gB, gD float64
				for j, gj := range g {
					gn := gj / den
					gA += gn * xr[j]
					gB += gn * yr[j]
				}
				if dc > 0 {
					gD = -dot(g, o) / den
				}
				if gxs != nil {
					gr := gxs(i)
					for j := range gr {
						gr[j] += a*(g[j]/den) + gA*2*cv*yr[j] - gB*2*cv*xr[j] + gD*(2*cv*yr[j]+2*cv*cv*y2*xr[j])
					}
				}
				if gys != nil {
					gr := gys(i)
					for j := range gr {
						gr[j] += b*(g[j]/den) + gA*(2*cv*xr[j]+2*cv*yr[j]) + gD*(2*cv*xr[j]+2*cv*cv*x2*yr[j])
					}
				}
				if pc != nil {
					pc[i] = gA*(2*xy+y2) - gB*x2 + gD*(2*xy+2*cv*x2*y2)
				}
			}
		})
		reduceRows(x, gxBuf)
		reduceRows(y, gyBuf)
		curvGrad(c, pc, 1)
	}, x, y, c)
}

// gradTarget returns where row i's gradient of operand n goes: n's own
// gradient row when n has the output's r rows, else (a broadcast 1×d
// operand) a row of an r×d buffer that reduceRows sums afterwards. nil
// when n needs no gradient.
func gradTarget(n *autodiff.Node, r, d int) (func(i int) []float64, *mat.Dense) {
	if !n.Needs() {
		return nil, nil
	}
	if n.Rows() == r && r != 1 {
		g := n.GradAcc()
		return g.RawRowView, nil
	}
	buf := mat.NewDense(r, d, nil)
	return buf.RawRowView, buf
}

// reduceRows adds the rows of buf, in order, into n's 1×d gradient.
func reduceRows(n *autodiff.Node, buf *mat.Dense) {
	if buf == nil {
		return
	}
	g := n.GradAcc().RawRowView(0)
	r, _ := buf.Dims()
	for i := 0; i < r; i++ {
		for j, v := range buf.RawRowView(i) {
			g[j] += v
		}
	}
}

// distTail is SqDist's last part for z = −p1 ⊕ p2: (2/√c·artanh(√c‖z‖))²
// per row (n×1), one tape operation.
func distTail(tp *autodiff.Tape, z, c *autodiff.Node) *autodiff.Node {
	r, _ := z.Value.Dims()
	sc := math.Sqrt(c.Value.At(0, 0))
	v := tp.Dense(r, 1)
	nrms := tp.Floats(r)
	rows(tp, r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			nrm := math.Sqrt(sqNorm(z.Value.RawRowView(i)))
			s := sc * nrm
			cl := clampFinite(s, -autodiff.ArtanhClamp, autodiff.ArtanhClamp)
			dd := (math.Atanh(cl) * 2) / sc
			v.Set(i, 0, dd*dd)
			nrms[i] = nrm
		}
	})
	return tp.Custom(v, func(out *autodiff.Node) {
		gz, pc := backGrads(z, c, r)
		rows(tp, r, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				nrm := nrms[i]
				s := sc * nrm
				cl := clampFinite(s, -autodiff.ArtanhClamp, autodiff.ArtanhClamp)
				a := math.Atanh(cl)
				dd := (a * 2) / sc
				gd := 2 * dd * out.Grad.At(i, 0)
				gs := 2 * (gd / sc) / (1 - cl*cl)
				if gz != nil && nrm > 0 {
					k := gs * sc / nrm
					gr, zr := gz.RawRowView(i), z.Value.RawRowView(i)
					for j, e := range zr {
						gr[j] += k * e
					}
				}
				if pc != nil {
					pc[i] = gs*nrm - gd*dd/sc
				}
			}
		})
		curvGrad(c, pc, 0.5/sc)
	}, z, c)
}

func dimStr(n *autodiff.Node) string {
	r, c := n.Value.Dims()
	return fmt.Sprintf("%d×%d", r, c)
}
