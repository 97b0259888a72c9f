package vec

import "math"

// The portable reference of every kernel: the operations of the assembly,
// lane by lane. math.FMA is a fused multiply-add; float64(x*y) rounds a
// product before it is used, so the Go compiler cannot fuse it into an add
// (it may on arm64 and with GOAMD64=v3 otherwise).

// The loops run k outside and the lanes j inside (rows of Ωᵀ are
// contiguous); each lane's sum still takes its terms in k order.

func distGeneric(z, omegaT []float64, stride int, q []float64) {
	clear(q)
	for k, zk := range z {
		row := omegaT[k*stride : k*stride+len(q)]
		for j, w := range row {
			t := zk - w
			q[j] = math.FMA(t, t, q[j])
		}
	}
}

func argsGeneric(z, omegaT []float64, stride int, q []float64) {
	clear(q)
	for k, zk := range z {
		row := omegaT[k*stride : k*stride+len(q)]
		for j, w := range row {
			q[j] = math.FMA(zk, w, q[j])
		}
	}
}

func args2Generic(z, omegaT []float64, stride int, q []float64) {
	for j := range q {
		var a0, a1 float64
		k := 0
		for ; k+2 <= len(z); k += 2 {
			a0 = math.FMA(z[k], omegaT[k*stride+j], a0)
			a1 = math.FMA(z[k+1], omegaT[(k+1)*stride+j], a1)
		}
		if k < len(z) {
			a0 = math.FMA(z[k], omegaT[k*stride+j], a0)
		}
		q[j] = a0 + a1
	}
}

// logOK reports whether p is in the range the vector logarithm takes.
func logOK(p float64) bool { return !(p < logLo || p > logHi || p != p) }

// vlog is the vector logarithm of one lane for p in [2^−1000, 2^1000]
// (FreeBSD's e_log.c as the math package writes it, without its special
// cases).
func vlog(p float64) float64 {
	bits := math.Float64bits(p)
	e := float64(int64(bits>>52) - 1023)
	m := math.Float64frombits(bits&(1<<52-1) | 0x3ff0000000000000)
	if m > sqrt2 {
		m = float64(m * 0.5)
		e = e + 1
	}
	f := m - 1
	s := f / (f + 2)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * float64(float64(float64(float64(float64(float64(s4*lg7)+lg5)*s4)+lg3)*s4)+lg1))
	t2 := float64(s4 * float64(float64(float64(float64(s4*lg6)+lg4)*s4)+lg2))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	x := float64(s*(hfsq+r)) + float64(e*ln2Lo)
	x = (hfsq - x) - f
	return float64(e*ln2Hi) - x
}

// sinCosSmall returns sin δ and cos δ for |δ| ≤ 0.5 (Taylor polynomials of
// degree 15 and 16 by Horner's rule in δ², fused).
func sinCosSmall(d float64) (sin, cos float64) {
	d2 := float64(d * d)
	s := sinC[0]
	for _, c := range sinC[1:] {
		s = math.FMA(d2, s, c)
	}
	sin = float64(float64(d2*s)*d) + d
	c := cosC[0]
	for _, k := range cosC[1:] {
		c = math.FMA(d2, c, k)
	}
	return sin, c
}

func mathAGeneric(q, lam, phi, e1, e2 []float64, a float64) int {
	nb := len(q) / 8
	var p, d, iq [8]float64
	for b := 0; b < nb; b++ {
		bad := false
		for l := 0; l < 8; l++ {
			j := 8*b + l
			iq[l] = 1 / q[j]
			p[l] = float64(a * iq[l])
			if !logOK(p[l]) {
				bad = true
				continue
			}
			d[l] = float64(lam[j] * vlog(p[l]))
			if math.Abs(d[l]) > 0.5 {
				bad = true
			}
		}
		if bad {
			return b
		}
		copy(phi[8*b:8*b+8], p[:])
		copy(e1[8*b:8*b+8], d[:])
		copy(e2[8*b:8*b+8], iq[:])
	}
	return nb
}

// powHalf returns p^(k/2) by one square root and repeated squaring.
func powHalf(p float64, k int) float64 {
	r := 1.0
	if k&1 == 1 {
		r = math.Sqrt(p)
	}
	base := p
	for e := k >> 1; e > 0; e >>= 1 {
		if e&1 == 1 {
			r = float64(r * base)
		}
		base = float64(base * base)
	}
	return r
}

func mathBGeneric(lam, sinB, cosB, phi, e1, e2 []float64, twoRho int) {
	rho := float64(float64(twoRho) * 0.5)
	for j := range phi[:len(phi)/8*8] {
		mag := powHalf(phi[j], twoRho)
		sd, cd := sinCosSmall(e1[j])
		sb, cb := sinB[j], cosB[j]
		sn := float64(sb*cd) + float64(cb*sd)
		cs := float64(cb*cd) - float64(sb*sd)
		phi[j] = float64(mag * cs)
		g := float64(mag * (float64(rho*cs) - float64(lam[j]*sn)))
		e1[j] = g
		e2[j] = float64(g * e2[j])
	}
}

func gradPassGeneric(w []float64, stride int, gy, e1, e2, c []float64, s *[16]float64) {
	c = c[:len(c)/8*8]
	clear(c)
	for k, y := range gy { // g_j into c, classes in order
		row := w[k*stride : k*stride+len(c)]
		for j, v := range row {
			c[j] = math.FMA(y, v, c[j])
		}
	}
	for j, g := range c {
		cj := float64(g * e2[j])
		c[j] = cj
		l := j & 7
		s[l] = math.FMA(g, e1[j], s[l])
		s[8+l] = s[8+l] + cj
	}
}

func gyWGeneric(out []float64, ostride int, gy []float64, gstride, rows int, w []float64, wstride, nc, n int) {
	for r := 0; r < rows; r++ {
		row := out[r*ostride : r*ostride+n]
		clear(row)
		for k, y := range gy[r*gstride : r*gstride+nc] {
			for j, v := range w[k*wstride : k*wstride+n] {
				row[j] = math.FMA(y, v, row[j])
			}
		}
	}
}

func dotLanes(x, y []float64, out *[8]float64) {
	*out = [8]float64{}
	for j, v := range x {
		out[j&7] = math.FMA(v, y[j], out[j&7])
	}
}

func gz8Generic(c, omegaT []float64, stride int, out *[64]float64) {
	n := len(c) / 8 * 8
	for r := 0; r < 8; r++ {
		dotLanes(c[:n], omegaT[r*stride:r*stride+n], (*[8]float64)(out[8*r:8*r+8]))
	}
}

func dot1Generic(x, y []float64, out *[8]float64) {
	n := len(x) / 8 * 8
	dotLanes(x[:n], y[:n], out)
}

func dot4Generic(x, y []float64, stride int, out *[32]float64) {
	n := len(x) / 8 * 8
	for r := 0; r < 4; r++ {
		dotLanes(x[:n], y[r*stride:r*stride+n], (*[8]float64)(out[8*r:8*r+8]))
	}
}

func dots4x4Generic(x *[4][]float64, y []float64, stride int, acc *[128]float64) {
	n := len(x[0]) / 8 * 8
	for t := 0; t < 4; t++ {
		for k := 0; k < 4; k++ {
			dotLanes(x[t][:n], y[k*stride:k*stride+n], (*[8]float64)(acc[8*(4*t+k):8*(4*t+k)+8]))
		}
	}
}

func axpyGeneric(part []float64, stride int, gy, phi []float64) {
	n := len(phi) / 8 * 8
	for k, y := range gy {
		row := part[k*stride : k*stride+n]
		for j, v := range phi[:n] {
			row[j] = math.FMA(y, v, row[j])
		}
	}
}

func gtxTileGeneric(gp, x []float64, xStride, rows int, out []float64, outStride, cols, nc int) {
	var acc [4][32]float64
	for r := 0; r < rows; r++ {
		xr := x[r*xStride : r*xStride+cols]
		g := gp[4*r : 4*r+4]
		for k := 0; k < 4; k++ {
			for j, v := range xr {
				acc[k][j] = math.FMA(g[k], v, acc[k][j])
			}
		}
	}
	for k := 0; k < nc; k++ {
		o := out[k*outStride : k*outStride+cols]
		for j := range o {
			o[j] = acc[k][j] + o[j]
		}
	}
}

func sinCosAddGeneric(arg, sinB, cosB []float64, scale float64, o, e []float64) bool {
	for _, x := range arg[:8] {
		if math.Abs(x) > 0.5 || x != x {
			return false
		}
	}
	for l := 0; l < 8; l++ {
		sd, cd := sinCosSmall(arg[l])
		sb, cb := sinB[l], cosB[l]
		sn := float64(sb*cd) + float64(cb*sd)
		cs := float64(cb*cd) - float64(sb*sd)
		o[l] = float64(scale * cs)
		e[l] = 0 - float64(scale*sn)
	}
	return true
}

func spmmRowGeneric(idx []int32, val []float64, src []float64, stride int, d []float64, accumulate bool) {
	if len(d) <= 3 {
		spmmRowNarrow(idx, val, src, stride, d, accumulate)
		return
	}
	if !accumulate {
		clear(d)
	}
	for q, j := range idx {
		v := val[q]
		row := src[int(j)*stride : int(j)*stride+len(d)]
		for c, x := range row {
			d[c] += float64(v * x)
		}
	}
}

// spmmRowNarrow is spmmRowGeneric for one to three columns (Pubmed's and
// Disease's classes, MR's two, the columns left past the vector kernels'
// blocks): each column's sum in a variable instead of in d, so that an
// entry's additions do not wait on a store and a load of the one before.
// The same operations in the same order: d[c], or +0, plus each rounded
// product in turn.
func spmmRowNarrow(idx []int32, val []float64, src []float64, stride int, d []float64, accumulate bool) {
	var s0, s1, s2 float64
	if accumulate {
		switch len(d) {
		case 3:
			s2 = d[2]
			fallthrough
		case 2:
			s1 = d[1]
			fallthrough
		case 1:
			s0 = d[0]
		}
	}
	switch len(d) {
	case 1:
		for q, j := range idx {
			s0 += float64(val[q] * src[int(j)*stride])
		}
	case 2:
		for q, j := range idx {
			row := src[int(j)*stride : int(j)*stride+2]
			v := val[q]
			s0 += float64(v * row[0])
			s1 += float64(v * row[1])
		}
	case 3:
		for q, j := range idx {
			row := src[int(j)*stride : int(j)*stride+3]
			v := val[q]
			s0 += float64(v * row[0])
			s1 += float64(v * row[1])
			s2 += float64(v * row[2])
		}
	}
	switch len(d) {
	case 3:
		d[2] = s2
		fallthrough
	case 2:
		d[1] = s1
		fallthrough
	case 1:
		d[0] = s0
	}
}

// Sincos returns math.Sincos(x) bit for bit (on amd64 builds below
// GOAMD64=v3, whose math package the kernels were checked against), computed
// with the math package's algorithm for 0 < |x| < 2^29 (Cody–Waite
// reduction, Cephes' polynomials) written so that no compiler can fuse its
// steps, and with math.Sincos itself otherwise (0, huge arguments, Inf,
// NaN). The RFF kernels' wide-argument path (RFFExact) does the same
// operations eight lanes at a time.
func Sincos(x float64) (sin, cos float64) {
	ax := math.Abs(x)
	if !(ax > 0 && ax < sincosMax) {
		return math.Sincos(x)
	}
	sinSign, cosSign := x < 0, false
	y := math.Trunc(float64(ax * (4 / math.Pi)))
	if math.Trunc(float64(y*0.5)) != float64(y*0.5) {
		y++
	}
	oct := y - float64(math.Trunc(float64(y*0.125))*8)
	z := ((ax - float64(y*sincosPi4A)) - float64(y*sincosPi4B)) - float64(y*sincosPi4C)
	if oct > 3 {
		oct -= 4
		sinSign, cosSign = !sinSign, !cosSign
	}
	if oct > 1 {
		cosSign = !cosSign
	}
	zz := float64(z * z)
	c := float64(sincosC[0]*zz) + sincosC[1]
	s := float64(sincosS[0]*zz) + sincosS[1]
	for k := 2; k < 6; k++ {
		c = float64(c*zz) + sincosC[k]
		s = float64(s*zz) + sincosS[k]
	}
	cos = (1 - float64(0.5*zz)) + float64(float64(zz*zz)*c)
	sin = z + float64(float64(z*zz)*s)
	if oct == 1 || oct == 2 {
		sin, cos = cos, sin
	}
	if cosSign {
		cos = -cos
	}
	if sinSign {
		sin = -sin
	}
	return sin, cos
}

// rffArgsUnfused returns Σ_k z_k·omegaT[k·stride+j] summed left to right,
// each product rounded before it is added.
func rffArgUnfused(z, omegaT []float64, stride, j int) float64 {
	var arg float64
	for k, v := range z {
		arg += float64(v * omegaT[k*stride+j])
	}
	return arg
}

func rffExactGeneric(z, omegaT []float64, stride int, phase []float64, scale float64, o, e []float64) bool {
	var x [8]float64
	for l := range x {
		x[l] = rffArgUnfused(z, omegaT, stride, l) + phase[l]
		if ax := math.Abs(x[l]); !(ax > 0 && ax < sincosMax) {
			return false
		}
	}
	for l, v := range x {
		sn, cs := Sincos(v)
		o[l] = float64(scale * cs)
		e[l] = float64(-scale * sn)
	}
	return true
}
