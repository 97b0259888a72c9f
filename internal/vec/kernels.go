package vec

import "math"

// The kernels. Slices are read and written in whole blocks of eight: n is
// the length that the documentation names, rounded down to a multiple of
// eight unless it says otherwise. Each function checks its bounds before
// the assembly runs, so a short slice panics as Go indexing does.

// Lanes8 returns the sum of eight lanes in the kernels' fixed order.
func Lanes8(t *[8]float64) float64 {
	return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]))
}

// Dist sets q[j] = Σ_k (z_k − omegaT[k·stride+j])² for j < len(q) (a
// multiple of eight): per lane, t = z_k − ω then acc = t·t + acc (fused),
// in k order from zero. len(z) ≥ 1.
func Dist(z, omegaT []float64, stride int, q []float64) {
	n := len(q) / 8 * 8
	if n == 0 || len(z) == 0 {
		return
	}
	_ = omegaT[(len(z)-1)*stride+n-1]
	switch active {
	case AVX512:
		distAVX512(&z[0], len(z), &omegaT[0], stride*8, &q[0], n/8)
	case AVX2:
		distAVX2(&z[0], len(z), &omegaT[0], stride*8, &q[0], n/8)
	default:
		distGeneric(z, omegaT, stride, q[:n])
	}
}

// Args sets q[j] = Σ_k z_k·omegaT[k·stride+j] for j < len(q) (a multiple of
// eight): one fused multiply-add per k in order, from zero.
func Args(z, omegaT []float64, stride int, q []float64) {
	n := len(q) / 8 * 8
	if n == 0 {
		return
	}
	if len(z) == 0 {
		clear(q[:n])
		return
	}
	_ = omegaT[(len(z)-1)*stride+n-1]
	switch active {
	case AVX512:
		argsAVX512(&z[0], len(z), &omegaT[0], stride*8, &q[0], n/8)
	case AVX2:
		argsAVX2(&z[0], len(z), &omegaT[0], stride*8, &q[0], n/8)
	default:
		argsGeneric(z, omegaT, stride, q[:n])
	}
}

// Args2 is Args with two chains: even k into one sum, odd k into another
// (both fused, from zero), added at the end (the RFF map's Forward).
func Args2(z, omegaT []float64, stride int, q []float64) {
	n := len(q) / 8 * 8
	if n == 0 {
		return
	}
	if len(z) == 0 {
		clear(q[:n])
		return
	}
	_ = omegaT[(len(z)-1)*stride+n-1]
	switch active {
	case AVX512:
		args2AVX512(&z[0], len(z), &omegaT[0], stride*8, &q[0], n/8)
	case AVX2:
		args2AVX2(&z[0], len(z), &omegaT[0], stride*8, &q[0], n/8)
	default:
		args2Generic(z, omegaT, stride, q[:n])
	}
}

// MathA is the first transcendental pass of the HyLa map over the blocks of
// q (len(q) a multiple of eight): per lane invq = 1/q, p = a·invq, log p
// (the package's logarithm), δ = λ'·log p; it stores p into phi, δ into e1
// and invq into e2. It stops before the first block with a p outside
// [2^−1000, 2^1000], a NaN p or an |δ| > 0.5 and returns the number of
// blocks done; the entries of that block and of the later ones are
// unspecified (the assembly may have written some of them).
func MathA(q, lam, phi, e1, e2 []float64, a float64) int {
	n := len(q) / 8 * 8
	if n == 0 {
		return 0
	}
	_, _, _, _ = lam[n-1], phi[n-1], e1[n-1], e2[n-1]
	switch active {
	case AVX512:
		return mathAAVX512(&q[0], &lam[0], &phi[0], &e1[0], &e2[0], n/8, a)
	case AVX2:
		return mathAAVX2Runs(q, lam, phi, e1, e2, n/8, a)
	}
	return mathAGeneric(q[:n], lam, phi, e1, e2, a)
}

// MathB completes the blocks MathA left (len(phi) a multiple of eight):
// from p in phi, δ in e1 and invq in e2 it computes mag = p^{twoRho/2}
// (one square root, repeated squaring), sin δ, cos δ (the package's
// polynomials), sin(b+δ) = sin b·cos δ + cos b·sin δ, cos(b+δ) = cos b·cos δ
// − sin b·sin δ, and stores φ = mag·cos(b+δ) into phi, g = mag·(ρ·cos(b+δ)
// − λ'·sin(b+δ)) into e1 and g·invq into e2, with ρ = twoRho/2.
func MathB(lam, sinB, cosB, phi, e1, e2 []float64, twoRho int) {
	n := len(phi) / 8 * 8
	if n == 0 {
		return
	}
	_, _, _, _, _ = lam[n-1], sinB[n-1], cosB[n-1], e1[n-1], e2[n-1]
	switch active {
	case AVX512:
		mathBAVX512(&lam[0], &sinB[0], &cosB[0], &phi[0], &e1[0], &e2[0], n/8, twoRho)
	case AVX2:
		mathBAVX2(&lam[0], &sinB[0], &cosB[0], &phi[0], &e1[0], &e2[0], n/8, twoRho)
	default:
		mathBGeneric(lam, sinB, cosB, phi[:n], e1, e2, twoRho)
	}
}

// GradPass computes, for j < len(c) (a multiple of eight), g_j = Σ_k
// gy[k]·w[k·stride+j] (fused, in k order, from zero), c[j] = g_j·e2[j], and
// the lane sums s[0:8] = Σ g_j·e1[j] (fused) and s[8:16] = Σ c[j], in j
// order from zero. len(gy) ≥ 1.
func GradPass(w []float64, stride int, gy, e1, e2, c []float64, s *[16]float64) {
	*s = [16]float64{}
	n := len(c) / 8 * 8
	if n == 0 || len(gy) == 0 {
		return
	}
	_, _ = e1[n-1], e2[n-1]
	_ = w[(len(gy)-1)*stride+n-1]
	switch active {
	case AVX512:
		gradPassAVX512(&w[0], stride*8, &gy[0], len(gy), &e1[0], &e2[0], &c[0], n/8, s)
	case AVX2:
		gradPassAVX2(&w[0], stride*8, &gy[0], len(gy), &e1[0], &e2[0], &c[0], n/8, s)
	default:
		gradPassGeneric(w, stride, gy, e1, e2, c[:n], s)
	}
}

// GyW sets out[r·ostride+j] = Σ_k gy[r·gstride+k]·w[k·wstride+j] (fused,
// in k order, from zero) for the rows r < rows, the classes k < nc and
// j < n rounded down to a multiple of eight: the sums g_j that GradPass
// forms before it scales them, for a group of rows at once. The AVX2 path
// takes two rows and sixteen columns at a time over all the classes, so a
// strip of w (nc × 16) is read from L1 for every pair of rows but the
// first; the AVX-512 path two rows and 32 columns. GradPass streams all
// of w for each row.
func GyW(out []float64, ostride int, gy []float64, gstride, rows int, w []float64, wstride, nc, n int) {
	n = n / 8 * 8
	if n == 0 || rows <= 0 {
		return
	}
	_ = out[(rows-1)*ostride+n-1]
	if nc <= 0 {
		for r := 0; r < rows; r++ {
			clear(out[r*ostride : r*ostride+n])
		}
		return
	}
	_ = gy[(rows-1)*gstride+nc-1]
	_ = w[(nc-1)*wstride+n-1]
	switch active {
	case AVX512:
		for r := 0; r < rows; r += 2 {
			r1 := min(r+1, rows-1) // an odd last row pairs with itself
			gyw2AVX512(&gy[r*gstride], &gy[r1*gstride], &w[0], wstride*8, nc, &out[r*ostride], &out[r1*ostride], n/8)
		}
	case AVX2:
		for j := 0; j < n; j += 16 {
			for r := 0; r < rows; r += 2 {
				r1 := min(r+1, rows-1) // an odd last row pairs with itself
				if j+16 <= n {
					gyw2x16AVX2(&gy[r*gstride], &gy[r1*gstride], &w[j], wstride*8, nc, &out[r*ostride+j], &out[r1*ostride+j])
				} else {
					gyw2x8AVX2(&gy[r*gstride], &gy[r1*gstride], &w[j], wstride*8, nc, &out[r*ostride+j], &out[r1*ostride+j])
				}
			}
		}
	default:
		gyWGeneric(out, ostride, gy, gstride, rows, w, wstride, nc, n)
	}
}

// Gz8 sets out[8r:8r+8] to the lane sums of c[j]·omegaT[r·stride+j]
// (fused, j in order, from zero) for the eight rows r < 8 and j < len(c) (a
// multiple of eight).
func Gz8(c, omegaT []float64, stride int, out *[64]float64) {
	n := len(c) / 8 * 8
	if n == 0 {
		*out = [64]float64{}
		return
	}
	_ = omegaT[7*stride+n-1]
	switch active {
	case AVX512:
		gz8AVX512(&c[0], &omegaT[0], stride*8, n/8, out)
	case AVX2:
		gz8AVX2(&c[0], &omegaT[0], stride*8, n/8, out)
	default:
		gz8Generic(c[:n], omegaT, stride, out)
	}
}

// Dot1 sets out to the lane sums of x[j]·y[j] (fused, in j order, from
// zero) for j < len(x) rounded down to a multiple of eight.
func Dot1(x, y []float64, out *[8]float64) {
	n := len(x) / 8 * 8
	if n == 0 {
		*out = [8]float64{}
		return
	}
	_ = y[n-1]
	switch active {
	case AVX512:
		dot1AVX512(&x[0], &y[0], n/8, out)
	case AVX2:
		dot1AVX2(&x[0], &y[0], n/8, out)
	default:
		dot1Generic(x[:n], y[:n], out)
	}
}

// Dot4 is Dot1 for x and the four rows y[r·stride:] (r < 4), into
// out[8r:8r+8].
func Dot4(x, y []float64, stride int, out *[32]float64) {
	n := len(x) / 8 * 8
	if n == 0 {
		*out = [32]float64{}
		return
	}
	_ = y[3*stride+n-1]
	switch active {
	case AVX512:
		dot4AVX512(&x[0], &y[0], stride*8, n/8, out)
	case AVX2:
		dot4AVX2(&x[0], &y[0], stride*8, n/8, out)
	default:
		dot4Generic(x[:n], y, stride, out)
	}
}

// Dots4x4 is Dot4 for four vectors x[t] (of one length) at once: the lane
// sums of x[t]·y[k·stride:] into acc[8(4t+k):8(4t+k)+8].
func Dots4x4(x *[4][]float64, y []float64, stride int, acc *[128]float64) {
	n := len(x[0]) / 8 * 8
	if n == 0 {
		*acc = [128]float64{}
		return
	}
	_, _, _ = x[1][n-1], x[2][n-1], x[3][n-1]
	_ = y[3*stride+n-1]
	switch active {
	case AVX512:
		dots4x4AVX512(&x[0][0], &x[1][0], &x[2][0], &x[3][0], &y[0], stride*8, n/8, acc)
	case AVX2:
		dots4x4AVX2(&x[0][0], &x[1][0], &x[2][0], &x[3][0], &y[0], stride*8, n/8, acc)
	default:
		dots4x4Generic(x, y, stride, acc)
	}
}

// RowDots sets out[c] = Σ_j x[j]·y[c·stride+j] for c < len(out): four
// classes at a time share each load of x; each sum runs in one eight-lane
// accumulator over the blocks of eight, then over the lanes in a fixed
// order, then over the tail, so the result does not depend on the grouping.
func RowDots(x, y []float64, stride int, out []float64) {
	d := len(x)
	nb := d / 8
	if len(out) == 0 {
		return
	}
	if d == 0 {
		clear(out)
		return
	}
	// Dot4 and Dot1 read y[c·stride : c·stride+8nb] for every class c.
	_ = y[(len(out)-1)*stride+d-1]
	var acc [32]float64
	c := 0
	for ; c < len(out) && len(out) >= 4; c += 4 {
		c = min(c, len(out)-4) // the last group overlaps the one before
		Dot4(x, y[c*stride:], stride, &acc)
		for k := 0; k < 4; k++ {
			s := Lanes8((*[8]float64)(acc[8*k : 8*k+8]))
			yc := y[(c+k)*stride : (c+k)*stride+d]
			for j := nb * 8; j < d; j++ {
				s += float64(x[j] * yc[j])
			}
			out[c+k] = s
		}
	}
	for ; c < len(out); c++ {
		Dot1(x, y[c*stride:], (*[8]float64)(acc[:8]))
		s := Lanes8((*[8]float64)(acc[:8]))
		yc := y[c*stride : c*stride+d]
		for j := nb * 8; j < d; j++ {
			s += float64(x[j] * yc[j])
		}
		out[c] = s
	}
}

// Axpy sets part[k·stride+j] = gy[k]·phi[j] + part[k·stride+j] (fused) for
// every class k < len(gy) and j < len(phi) (a multiple of eight).
func Axpy(part []float64, stride int, gy, phi []float64) {
	n := len(phi) / 8 * 8
	if n == 0 || len(gy) == 0 {
		return
	}
	_ = part[(len(gy)-1)*stride+n-1]
	switch active {
	case AVX512:
		axpyAVX512(&part[0], stride*8, &gy[0], len(gy), &phi[0], n/8)
	case AVX2:
		axpyAVX2(&part[0], stride*8, &gy[0], len(gy), &phi[0], n/8)
	default:
		axpyGeneric(part, stride, gy, phi[:n])
	}
}

// AxpyRows is Axpy of the rows r < rows in order: for each r,
// part[k·stride+j] = gy[r·gstride+k]·phi[r·pstride+j] + part[k·stride+j]
// (fused) for every class k < nc and j < n rounded down to a multiple of
// eight. Each entry of part takes the same fused multiply-adds in the same
// order as rows calls of Axpy, so the bits are Axpy's; the AVX2 path keeps
// four classes' entries in registers across the rows (one load and one
// store of part per block of eight instead of one per row).
func AxpyRows(part []float64, stride int, gy []float64, gstride, nc int, phi []float64, pstride, n, rows int) {
	n = n / 8 * 8
	if n == 0 || nc <= 0 || rows <= 0 {
		return
	}
	_ = part[(nc-1)*stride+n-1]
	_ = gy[(rows-1)*gstride+nc-1]
	_ = phi[(rows-1)*pstride+n-1]
	switch active {
	case AVX2, AVX512:
		// Four classes' entries of part held in registers across the rows;
		// the classes past the last four (AVX2 kernels on both paths) row
		// by row.
		k := 0
		for ; k+4 <= nc; k += 4 {
			if active == AVX512 {
				axpyRows4AVX512(&part[k*stride], stride*8, &gy[k], gstride*8, &phi[0], pstride*8, rows, n/8)
			} else {
				axpyRows4AVX2(&part[k*stride], stride*8, &gy[k], gstride*8, &phi[0], pstride*8, rows, n/8)
			}
		}
		if k < nc {
			for r := 0; r < rows; r++ {
				axpyAVX2(&part[k*stride], stride*8, &gy[r*gstride+k], nc-k, &phi[r*pstride], n/8)
			}
		}
	default:
		for r := 0; r < rows; r++ {
			axpyGeneric(part, stride, gy[r*gstride:r*gstride+nc], phi[r*pstride:r*pstride+n])
		}
	}
}

// GtxTiles adds, for each of ntiles tiles of 32 columns (tile t at columns
// 32t…32t+31 of x and out) and each class k < nc, the column sums
// acc = Σ_{r<rows} gp[4r+k]·x[r·xStride+j] (fused, in row order, from
// zero) to out[k·outStride+j]: out = acc + out. gp holds rows of four
// coefficients (zero past nc); 1 ≤ nc ≤ 4.
func GtxTiles(gp, x []float64, xStride, rows int, out []float64, outStride, ntiles, nc int) {
	if ntiles <= 0 || rows <= 0 || nc <= 0 {
		return
	}
	_ = gp[4*rows-1]
	_ = x[(rows-1)*xStride+32*ntiles-1]
	_ = out[(nc-1)*outStride+32*ntiles-1]
	switch active {
	case AVX512:
		gtxTilesAVX512(&gp[0], &x[0], xStride*8, rows, &out[0], outStride*8, ntiles, nc)
	case AVX2:
		gtxTilesAVX2(&gp[0], &x[0], xStride*8, rows, &out[0], outStride*8, ntiles, nc)
	default:
		for t := 0; t < ntiles; t++ {
			gtxTileGeneric(gp, x[32*t:], xStride, rows, out[32*t:], outStride, 32, nc)
		}
	}
}

// GtxTile is GtxTiles for one tile of cols < 32 columns; nothing outside
// them is read or written.
func GtxTile(gp, x []float64, xStride, rows int, out []float64, outStride, cols, nc int) {
	if cols <= 0 || rows <= 0 || nc <= 0 {
		return
	}
	if cols >= 32 {
		panic("vec: GtxTile with 32 or more columns")
	}
	_ = gp[4*rows-1]
	_ = x[(rows-1)*xStride+cols-1]
	_ = out[(nc-1)*outStride+cols-1]
	if active == AVX512 {
		var masks uint64
		for i := 0; i < 4; i++ {
			lanes := min(max(cols-8*i, 0), 8)
			masks |= uint64(1<<lanes-1) << (8 * i)
		}
		gtxTileMaskedAVX512(&gp[0], &x[0], xStride*8, rows, &out[0], outStride*8, nc, masks)
		return
	}
	gtxTileGeneric(gp, x, xStride, rows, out, outStride, cols, nc)
}

// SinCosAdd computes one block of eight entries of the RFF map from their
// arguments δ (arg[0:8]): with sin δ, cos δ from the package's polynomials,
// o = scale·(cos b·cos δ − sin b·sin δ) and e = 0 − scale·(sin b·cos δ +
// cos b·sin δ). It reports false, writing nothing, if a lane has |δ| > 0.5
// or a NaN.
func SinCosAdd(arg, sinB, cosB []float64, scale float64, o, e []float64) bool {
	_, _, _, _, _ = arg[7], sinB[7], cosB[7], o[7], e[7]
	switch active {
	case AVX512:
		return sinCosAddAVX512(&arg[0], &sinB[0], &cosB[0], scale, &o[0], &e[0])
	case AVX2:
		return sinCosAddAVX2(&arg[0], &sinB[0], &cosB[0], scale, &o[0], &e[0])
	}
	return sinCosAddGeneric(arg, sinB, cosB, scale, o, e)
}

// SpMMRow sets d[c] = d0 + Σ_q val[q]·src[idx[q]·stride+c] for c < len(d),
// with d0 = d[c] if accumulate, else 0: one row of a sparse×dense product,
// over the row's entries q in order, each product rounded before it is
// added (no fused multiply-add, as the portable sparse code always did), so
// every entry is the same sum however the columns are blocked. Every
// idx[q] must address a row of src (stride apart) holding len(d) values.
func SpMMRow(idx []int32, val []float64, src []float64, stride int, d []float64, accumulate bool) {
	w := len(d)
	if w == 0 {
		return
	}
	val = val[:len(idx)]
	n := w / 8 * 8
	// The AVX-512 kernel checks the indices as its first pass loads them
	// (up to the last row of src that holds w values); every other path
	// checks them first.
	checked := active == AVX512 && n > 0 && stride > 0 && len(src) >= w
	if !checked && !rowsInRange(idx, len(src), stride, w) {
		panic("vec: SpMMRow: column index out of range")
	}
	if w >= 4 && active != Generic {
		var p0, ps, ps4 *float64 // nil without entries (src may be empty then)
		var pi *int32
		if len(idx) > 0 {
			pi, p0, ps = &idx[0], &val[0], &src[0]
			if w-n >= 4 {
				ps4 = &src[n]
			}
		}
		acc := 0
		if accumulate {
			acc = 1
		}
		if n > 0 {
			if active == AVX512 {
				limit := min((len(src)-w)/stride, math.MaxInt32) + 1
				if !spmmRowAVX512(pi, p0, len(idx), ps, stride*8, &d[0], n/8, acc, limit) {
					panic("vec: SpMMRow: column index out of range")
				}
			} else {
				spmmRowAVX2Blocks(idx, p0, src, stride, d, n/8, acc)
			}
		}
		// The columns past the last block of eight: four in one register
		// (R52's 52 classes leave four), the rest one at a time.
		if w-n >= 4 {
			spmmRow4AVX2(pi, p0, len(idx), ps4, stride*8, &d[n], acc)
			n += 4
		}
		if n < w {
			spmmRowGeneric(idx, val, src[n:], stride, d[n:], accumulate)
		}
		return
	}
	spmmRowGeneric(idx, val, src, stride, d, accumulate)
}

// rowsInRange reports whether every j in idx is a row of src whose w
// entries from j·stride lie within its n values: j ≥ 0 and
// j·stride + w ≤ n. The kernels read src through pointers, so this check
// is what keeps them inside it. With stride > 0 it is one unsigned
// comparison per entry against the last row that fits (a negative j is
// a large unsigned one), which costs a fraction of the per-entry
// arithmetic it replaces on short rows (R8's 8 columns).
func rowsInRange(idx []int32, n, stride, w int) bool {
	if len(idx) == 0 {
		return true
	}
	if n < w {
		return false
	}
	if stride <= 0 {
		for _, j := range idx {
			if j < 0 || int(j)*stride+w > n {
				return false
			}
		}
		return true
	}
	last := uint32(min((n-w)/stride, math.MaxInt32))
	if active != Generic && len(idx) >= maxIndexMin {
		return maxIndexAVX2(&idx[0], len(idx)) <= last
	}
	for _, j := range idx {
		if uint32(j) > last {
			return false
		}
	}
	return true
}

// maxIndexMin is the shortest index list rowsInRange checks with
// maxIndexAVX2 (eight at a time) rather than one at a time: the call costs
// about 2.3 ns, as much as six to eight scalar comparisons; 50 indices take
// 3.5 ns instead of 15.
const maxIndexMin = 8

// spmmRowAVX2Blocks is spmmRowAVX2 on the nb blocks of eight at the start
// of d (p0, ps: val and src's first entries, nil without entries), with
// one six-block pass first when that saves passes over the row's entries
// (nb mod 4 ≥ 2: 6 blocks in one pass instead of 4 + 1 + 1, 7 in two
// instead of four). The sums are the same however the columns are grouped.
func spmmRowAVX2Blocks(idx []int32, p0 *float64, src []float64, stride int, d []float64, nb, acc int) {
	var pi *int32
	var ps *float64
	if len(idx) > 0 {
		pi, ps = &idx[0], &src[0]
	}
	if nb >= 6 && nb%4 >= 2 {
		spmmRow6AVX2(pi, p0, len(idx), ps, stride*8, &d[0], acc)
		if nb -= 6; nb == 0 {
			return
		}
		if len(idx) > 0 {
			ps = &src[48] // every row idx[q] holds len(d) > 48 values
		}
		d = d[48:]
	}
	spmmRowAVX2(pi, p0, len(idx), ps, stride*8, &d[0], nb, acc)
}

// RFFExact computes one block of eight entries of the RFF map exactly as
// the scalar code (hyla's forwardScalar) does: arg = Σ_k z_k·omegaT[k·stride+l]
// summed left to right with each product rounded, x = arg + phase[l],
// o = scale·cos x and e = −scale·sin x with cos x, sin x from Sincos (the
// math package's bits). It reports false, with o and e unspecified, when a
// lane has x = 0, |x| ≥ 2^29 or a NaN (the scalar code handles those).
func RFFExact(z, omegaT []float64, stride int, phase []float64, scale float64, o, e []float64) bool {
	if len(z) == 0 {
		return false
	}
	_, _, _ = phase[7], o[7], e[7]
	_ = omegaT[(len(z)-1)*stride+7]
	if active != Generic {
		return rffExactAVX2(&z[0], len(z), &omegaT[0], stride*8, &phase[0], scale, &o[0], &e[0])
	}
	return rffExactGeneric(z, omegaT, stride, phase, scale, o, e)
}

// mathAAVX2Runs is MathA's AVX2 path: mathAAVX2 on runs of up to 32
// blocks (its buffer of e and s), stopping at the first bad block.
func mathAAVX2Runs(q, lam, phi, e1, e2 []float64, nb int, a float64) int {
	var buf [512]float64
	done := 0
	for done < nb {
		k := min(nb-done, 32)
		o := 8 * done
		n := mathAAVX2(&q[o], &lam[o], &phi[o], &e1[o], &e2[o], k, a, &buf[0])
		done += n
		if n < k {
			break
		}
	}
	return done
}

// ScatterRow adds val[k]·src to the row idx[k] of dst (row j is
// dst[j·stride : j·stride+len(src)]) for each k in order, each product
// rounded before it is added: one row of a sparse matrix's transpose
// product Mᵀ·G, scattered. Every entry of dst receives its terms in the
// order of k, so a product taken row by row sums as one with Mᵀ would.
// It panics, before it has written anything, if a row idx[k] is outside
// dst.
func ScatterRow(idx []int32, val []float64, src []float64, dst []float64, stride int) {
	w := len(src)
	if w == 0 || len(idx) == 0 {
		return
	}
	val = val[:len(idx)]
	if !rowsInRange(idx, len(dst), stride, w) {
		panic("vec: ScatterRow: row index out of range")
	}
	n := 0
	if active == AVX512 && w >= 8 {
		n = w / 8 * 8
		scatterRowAVX512(&idx[0], &val[0], len(idx), &src[0], &dst[0], stride*8, n/8)
	}
	// Groups of four columns: all of them on the AVX2 path, the one past
	// the last block of eight on the AVX-512 path.
	if active != Generic && w-n >= 4 {
		nq := (w - n) / 4
		scatterQuadsAVX2(&idx[0], &val[0], len(idx), &src[n], &dst[n], stride*8, nq)
		n += 4 * nq
	}
	if n == w {
		return
	}
	tail := src[n:]
	for k, j := range idx {
		v := val[k]
		row := dst[int(j)*stride+n : int(j)*stride+w]
		for q, y := range tail {
			row[q] += float64(v * y)
		}
	}
}
