package manifold

import (
	"math"

	"github.com/hylaflow/hylaflow/nn/autodiff"
)

// LGCN's Lorentz maps as single tape operations, like fused.go's Poincaré
// maps: the same arithmetic in the same order as the compositions they
// replaced (kept in the tests as the reference), one pass over the rows
// each way, sums over rows in row order.

// lorentzExp0 is Lorentz.ExpMap0: t = v_{1:}, y = t·expScale(‖t‖², β),
// y renormed to at most 1000, x₀ = √(β + ‖y‖²).
func lorentzExp0(tp *autodiff.Tape, v, c *autodiff.Node) *autodiff.Node {
	r, d := v.Value.Dims()
	cv := c.Value.At(0, 0)
	sc := math.Sqrt(cv)
	out := tp.DenseFull(r, d) // every entry written, as every row's state
	// Per row: e (the exp factor), the renorm factor and ‖y‖.
	st := tp.FloatsFull(3 * r)
	rows(tp, r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			t, o := v.Value.RawRowView(i)[1:], out.RawRowView(i)
			e := expFactor(sqNorm(t), sc)
			for j, x := range t {
				o[j+1] = x * e
			}
			ny := math.Sqrt(sqNorm(o[1:]))
			s := renorm(ny)
			for j := 1; j < d; j++ {
				o[j] *= s
			}
			o[0] = math.Sqrt(cv + sqNorm(o[1:]))
			st[3*i], st[3*i+1], st[3*i+2] = e, s, ny
		}
	})
	return tp.Custom(out, func(o *autodiff.Node) {
		gv, pc := backGrads(v, c, r)
		pc2 := curvParts(c, r) // through √β in the exp factor
		rows(tp, r, func(lo, hi int) {
			y := make([]float64, d-1)
			gy := make([]float64, d-1)
			for i := lo; i < hi; i++ {
				g, z, t := o.Grad.RawRowView(i), o.Value.RawRowView(i), v.Value.RawRowView(i)[1:]
				e, s, ny := st[3*i], st[3*i+1], st[3*i+2]
				// x₀ = √(β + ‖z‖²).
				x0 := z[0]
				k0 := g[0] / x0
				// z = y·s, s = renorm(‖y‖).
				var gs float64
				for j := range y {
					y[j] = t[j] * e
					gzj := g[j+1] + k0*z[j+1]
					gy[j] = gzj * s
					gs += gzj * y[j]
				}
				if ny > 1000 {
					gny := gs * renormGrad(ny, 0)
					if ny > 0 {
						for j := range y {
							gy[j] += gny * y[j] / ny
						}
					}
				}
				// y = t·e, e = √β·sinh(min(n, 50)/√β)/n, n = √max(‖t‖² + eps, 1e−6).
				var ge float64
				for j := range y {
					ge += gy[j] * t[j]
				}
				sq := sqNorm(t)
				n := math.Sqrt(maxFinite(sq+LorentzEps, 1e-6))
				cut := minFinite(n, 50)
				w := cut / sc
				sh := math.Sinh(clamp15(w))
				ch := 0.0
				if w >= -15 && w <= 15 {
					ch = math.Cosh(w)
				}
				gn := ge * (-e / n)
				if n <= 50 {
					gn += ge * ch / n
				}
				var gsq float64
				if sq+LorentzEps >= 1e-6 {
					gsq = gn * 0.5 / n
				}
				if gv != nil {
					gr := gv.RawRowView(i)[1:]
					for j := range gr {
						gr[j] += gy[j]*e + gsq*2*t[j]
					}
				}
				if pc != nil {
					pc[i] = g[0] * 0.5 / x0                  // through x₀ = √(β + ‖z‖²)
					pc2[i] = ge * (sh - ch*w) / n * 0.5 / sc // through √β in e
				}
			}
		})
		if pc != nil {
			curvGrad(c, pc, 1)
			curvGrad(c, pc2, 1)
		}
	}, v, c)
}

// expFactor is expScale's value: √β·sinh(min(n, 50)/√β)/n with n =
// √max(sq + 1e−8, 1e−6).
func expFactor(sq, sc float64) float64 {
	n := math.Sqrt(maxFinite(sq+LorentzEps, 1e-6))
	cut := minFinite(n, 50)
	return (sc * math.Sinh(clamp15(cut/sc))) / n
}

// renorm is PyTorch's renorm(p=2, maxnorm=1000) factor for a row norm.
func renorm(v float64) float64 {
	if v > 1000 {
		return 1000 / (v + 1e-7)
	}
	return 1
}

// renormGrad is renorm's derivative in the row norm v (the second argument,
// renorm's value, is unused: the signature is autodiff.Tape.Map's).
func renormGrad(v, _ float64) float64 {
	if v > 1000 {
		return -1000 / ((v + 1e-7) * (v + 1e-7))
	}
	return 0
}

// lorentzLog0 is Lorentz.LogMap0: (0, y·√β·arcosh(x₀/√β + 1e−8)/√(‖y‖² + 1e−8)).
func lorentzLog0(tp *autodiff.Tape, x, c *autodiff.Node) *autodiff.Node {
	r, d := x.Value.Dims()
	sc := math.Sqrt(c.Value.At(0, 0))
	out := tp.Dense(r, d)
	f := tp.Floats(r)
	rows(tp, r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			xr, o := x.Value.RawRowView(i), out.RawRowView(i)
			y := xr[1:]
			dist := sc * math.Acosh(maxFinite(xr[0]/sc+LorentzEps, ArcoshMin))
			fi := dist / math.Sqrt(sqNorm(y)+LorentzEps)
			for j, e := range y {
				o[j+1] = e * fi
			}
			f[i] = fi
		}
	})
	return tp.Custom(out, func(o *autodiff.Node) {
		gx, pc := backGrads(x, c, r)
		rows(tp, r, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g, xr := o.Grad.RawRowView(i)[1:], x.Value.RawRowView(i)
				y, fi := xr[1:], f[i]
				gf := dot(g, y)
				q := math.Sqrt(sqNorm(y) + LorentzEps)
				u := xr[0]/sc + LorentzEps
				cl := maxFinite(u, ArcoshMin)
				a := math.Acosh(cl)
				gdist := gf / q
				gsq := -gf * fi / q * 0.5 / q
				gu := gdist * sc / math.Sqrt(cl*cl-1)
				if gx != nil {
					gr := gx.RawRowView(i)
					gr[0] += gu / sc
					for j, e := range y {
						gr[j+1] += g[j]*fi + gsq*2*e
					}
				}
				if pc != nil {
					pc[i] = (gdist*a - gu*xr[0]/(sc*sc)) * 0.5 / sc
				}
			}
		})
		curvGrad(c, pc, 1)
	}, x, c)
}

// lorentzCentroid is Centroid's part after s = A·x: s·√β/√max(|⟨s, s⟩_L|, MinNorm).
func lorentzCentroid(tp *autodiff.Tape, s, c *autodiff.Node) *autodiff.Node {
	r, d := s.Value.Dims()
	sc := math.Sqrt(c.Value.At(0, 0))
	out := tp.DenseFull(r, d)  // every entry written, as every row's state
	st := tp.FloatsFull(2 * r) // the inner product and the clamped root
	rows(tp, r, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sr, o := s.Value.RawRowView(i), out.RawRowView(i)
			in := sqNorm(sr) - (sr[0]*sr[0])*2
			den := math.Sqrt(maxFinite(math.Abs(in), MinNorm))
			k := sc / den
			for j, e := range sr {
				o[j] = e * k
			}
			st[2*i], st[2*i+1] = in, den
		}
	})
	return tp.Custom(out, func(o *autodiff.Node) {
		gsN, pc := backGrads(s, c, r)
		rows(tp, r, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				g, sr := o.Grad.RawRowView(i), s.Value.RawRowView(i)
				in, den := st[2*i], st[2*i+1]
				k := sc / den
				gk := dot(g, sr)
				gden := -gk * k / den
				var gin float64
				if math.Abs(in) >= MinNorm {
					gin = gden * 0.5 / den
					if in < 0 {
						gin = -gin
					}
				}
				if gsN != nil {
					gr := gsN.RawRowView(i)
					for j, e := range sr {
						gr[j] += g[j]*k + gin*2*e
					}
					gr[0] -= gin * 4 * sr[0]
				}
				if pc != nil {
					pc[i] = gk / den * 0.5 / sc
				}
			}
		})
		curvGrad(c, pc, 1)
	}, s, c)
}
