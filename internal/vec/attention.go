package vec

import "math"

// The graph attention kernels (GAT, Veličković et al.): one destination
// row of a layer's heads at a time, the heads side by side. Per-node and
// per-edge arrays hold a layer's heads in one row each (entry i·heads + m),
// so that with eight heads (the paper's hidden layer) a node's or an
// edge's values are one block: the AVX-512 kernels take the heads as the
// eight lanes, and every value is the same sum in the same order as lane by
// lane in the portable code. The AVX2 kernels do the same operations on
// the two halves of the block (heads 0–3 and 4–7).

// AttnSoftmaxRow computes the attention coefficients of one destination
// row with heads = len(di) heads: for each edge p, whose source is idx[p],
// and head m,
//
//	e = LeakyReLU_slope(di[m] + src[idx[p]·heads + m]),
//	al[p·heads + m] = Exp(e − max_p e) / Σ_p Exp(e − max_p e),
//
// the maximum and the sum over the row's edges in order, per head (a
// NaN score leaves the running maximum as it was). With a mask (one byte
// per coefficient, 1: kept) it also writes the dropped-out coefficients
// da = al·0 or al·factor. idx must not be empty; src must hold every
// source's row.
func AttnSoftmaxRow(idx []int32, di, src []float64, slope float64, al []float64, mask []uint8, factor float64, da []float64) {
	heads, deg := len(di), len(idx)
	al = al[:deg*heads]
	if mask != nil {
		mask, da = mask[:deg*heads], da[:deg*heads]
	}
	if (active == AVX512 || active == AVX2) && heads == 8 && deg > 0 && len(src) >= 8 {
		var pm *uint8
		var pd *float64
		if mask != nil {
			pm, pd = &mask[0], &da[0]
		}
		// Direct calls, not a function value: the pointers must not escape.
		var r int
		if active == AVX2 {
			r = attnSoftmax8AVX2(&idx[0], deg, &di[0], &src[0], len(src)/8, slope, &al[0], pm, factor, pd)
		} else {
			r = attnSoftmax8AVX512(&idx[0], deg, &di[0], &src[0], len(src)/8, slope, &al[0], pm, factor, pd)
		}
		switch r {
		case 0:
			return
		case 2:
			panic("vec: AttnSoftmaxRow: source index out of range")
		}
		// 1: an exponent's argument outside [expLo, expHi] (a score far
		// below the row's maximum, or a NaN): the portable code has Exp's
		// special cases.
	}
	attnSoftmaxRowGeneric(idx, di, src, slope, al, mask, factor, da)
}

// attnSoftmaxRowGeneric is AttnSoftmaxRow lane by lane.
func attnSoftmaxRowGeneric(idx []int32, di, src []float64, slope float64, al []float64, mask []uint8, factor float64, da []float64) {
	heads := len(di)
	var buf [32]float64
	mx, sum := buf[:0], buf[16:16]
	if heads <= 16 {
		mx, sum = buf[:heads], buf[16:16+heads]
	} else {
		mx, sum = make([]float64, heads), make([]float64, heads)
	}
	// LeakyReLU(e) is e·leaky[e > 0], without a branch (the sign of a
	// score is unpredictable): slope·e or e·1 = e, the same bits.
	leaky := [2]float64{slope, 1}
	for m := range mx {
		mx[m] = math.Inf(-1)
	}
	for p, j := range idx {
		sj := src[int(j)*heads : int(j)*heads+heads]
		ap := al[p*heads : p*heads+heads]
		for m, d := range di {
			e := d + sj[m]
			e *= leaky[b2i(e > 0)]
			ap[m] = e
			if e > mx[m] { // math.Max but for NaNs, which make the loss NaN anyway
				mx[m] = e
			}
		}
	}
	for p := range idx {
		ap := al[p*heads : p*heads+heads]
		for m, e := range ap {
			a := Exp(e - mx[m])
			ap[m] = a
			sum[m] += a
		}
	}
	for p := range idx {
		ap := al[p*heads : p*heads+heads]
		for m, s := range sum {
			ap[m] /= s
		}
	}
	if mask != nil {
		f := [2]float64{0, factor}
		for e, b := range mask {
			da[e] = al[e] * f[b&1]
		}
	}
}

// b2i is 1 for true and 0 for false (compiled without a branch).
func b2i(b bool) int {
	x := 0
	if b {
		x = 1
	}
	return x
}

// AttnAggregate adds to acc[m·c+q], for every head m < heads and column
// q < c, Σ_p w[p·heads+m]·src[idx[p]·stride + m·gcol + q] over the edges p
// in order, each product rounded before it is added (SpMMRow's sums): the
// attention-weighted sum of the rows idx of src, with gcol = c for head
// m's own columns of each row and gcol = 0 for the same c columns for
// every head. wt is scratch (grown as needed) and is returned for reuse.
// Eight heads of up to eight columns each are one AVX-512 kernel over the
// edges, and eight heads of eight or of up to four columns one AVX2 kernel;
// otherwise each head is one SpMMRow, on w transposed head-major.
func AttnAggregate(idx []int32, w []float64, heads, c int, src []float64, stride, gcol int, acc, wt []float64) []float64 {
	deg := len(idx)
	w, acc = w[:deg*heads], acc[:heads*c]
	if deg == 0 {
		return wt
	}
	if span := 7*gcol + c; active == AVX512 && heads == 8 && c <= 8 && stride > 0 && len(src) >= span {
		if !attnAggregate8AVX512(&idx[0], deg, &w[0], &src[0], stride*8, (len(src)-span)/stride+1, &acc[0], c, gcol*8) {
			panic("vec: AttnAggregate: source index out of range")
		}
		return wt
	}
	if span := 7*gcol + c; active == AVX2 && heads == 8 && (c == 8 || c >= 1 && c <= 4) && stride > 0 && len(src) >= span {
		limit := (len(src)-span)/stride + 1
		var ok bool
		if c == 8 {
			ok = attnAggregate8x8AVX2(&idx[0], deg, &w[0], &src[0], stride*8, limit, &acc[0], gcol*8)
		} else {
			ok = attnAggregate8x4AVX2(&idx[0], deg, &w[0], &src[0], stride*8, limit, &acc[0], c, gcol*8)
		}
		if !ok {
			panic("vec: AttnAggregate: source index out of range")
		}
		return wt
	}
	if cap(wt) < deg*heads {
		wt = make([]float64, deg*heads)
	}
	wt = wt[:deg*heads]
	for p := range deg {
		for m, x := range w[p*heads : (p+1)*heads] {
			wt[m*deg+p] = x
		}
	}
	// Each head is one SpMMRow; the sources' rows stay in the cache from
	// one head to the next.
	for m := range heads {
		SpMMRow(idx, wt[m*deg:(m+1)*deg], src[m*gcol:], stride, acc[m*c:(m+1)*c], true)
	}
	return wt
}

// AttnTransposed reports whether AttnGradRow wants the features hT
// transposed by AttnTranspose for a layer of heads heads (the AVX-512 and
// AVX2 kernels, which take the heads as lanes, do for eight).
func AttnTransposed(heads int) bool { return (active == AVX512 || active == AVX2) && heads == 8 }

// AttnTranspose writes hT[j·c·heads + q·heads + m] = h[j·stride + m·c + q]
// for the rows j in [lo, hi): each row's heads × c block transposed, so that
// column q of every head is one block of heads values.
func AttnTranspose(h []float64, stride, heads, c int, hT []float64, lo, hi int) {
	hc := heads * c
	for j := lo; j < hi; j++ {
		row, out := h[j*stride:j*stride+hc], hT[j*hc:(j+1)*hc]
		for m := range heads {
			for q, x := range row[m*c : (m+1)*c] {
				out[q*heads+m] = x
			}
		}
	}
}

// AttnGradRow is the backward pass of one destination row of GAT's
// attention (AttnSoftmaxRow, then the weighted sum AttnAggregate): given
// the row's output gradient gi (head m's c columns at gi[m·gcol:], gcol = 0
// when the heads share them) and the sources' features h (row j, head m at
// h[j·stride + m·c:]), it writes the gradient of each edge's score into gm
// and of the row's d into gdst. Per head m and edge p, with ga the
// gradient of the dropped-out coefficient Σ_q gi[m·gcol+q]·h_j[m·c+q]
// (times mask's factor) and dot = Σ_p al·ga,
//
//	gm[p·heads+m] = 0 + (0 + al·(ga − dot))·(1 or slope, as the score's sign),
//	gdst[m] = 0 + Σ_p gm[p·heads+m],
//
// every sum in the order of q or p. hT, if AttnTransposed, is h transposed
// by AttnTranspose (otherwise it is not read).
func AttnGradRow(idx []int32, gi []float64, gcol int, h []float64, stride, c int, hT []float64, al []float64, mask []uint8, factor float64, di, src []float64, slope float64, gm, gdst []float64) {
	heads, deg := len(di), len(idx)
	al, gm, gdst = al[:deg*heads], gm[:deg*heads], gdst[:heads]
	if mask != nil {
		mask = mask[:deg*heads]
	}
	if AttnTransposed(heads) && deg > 0 && c >= 1 && c <= 16 && len(hT) >= 8*c && len(src) >= 8 {
		var gT [128]float64
		for q := range c {
			for m := range 8 {
				gT[q*8+m] = gi[m*gcol+q]
			}
		}
		var pm *uint8
		if mask != nil {
			pm = &mask[0]
		}
		limit := min(len(hT)/(8*c), len(src)/8)
		var ok bool
		if active == AVX2 {
			ok = attnGrad8AVX2(&idx[0], deg, &gT[0], &hT[0], c*64, limit, &al[0], pm, factor, &di[0], &src[0], slope, &gm[0], &gdst[0])
		} else {
			ok = attnGrad8AVX512(&idx[0], deg, &gT[0], &hT[0], c*64, limit, &al[0], pm, factor, &di[0], &src[0], slope, &gm[0], &gdst[0])
		}
		if !ok {
			panic("vec: AttnGradRow: source index out of range")
		}
		return
	}
	attnGradRowGeneric(idx, gi, gcol, h, stride, c, al, mask, factor, di, src, slope, gm, gdst)
}

// attnGradRowGeneric is AttnGradRow head by head.
func attnGradRowGeneric(idx []int32, gi []float64, gcol int, h []float64, stride, c int, al []float64, mask []uint8, factor float64, di, src []float64, slope float64, gm, gdst []float64) {
	heads := len(di)
	var buf [16]float64
	dot := buf[:0]
	if heads <= 16 {
		dot = buf[:heads]
	} else {
		dot = make([]float64, heads)
	}
	f := [2]float64{0, factor}
	leaky := [2]float64{slope, 1}
	for p, j := range idx {
		hj := h[int(j)*stride : int(j)*stride+heads*c]
		for m := range heads {
			gim := gi[m*gcol : m*gcol+c]
			var s float64
			for q, x := range hj[m*c : (m+1)*c] {
				s += float64(gim[q] * x)
			}
			ga := 0 + s
			if mask != nil {
				ga = 0 + float64(ga*f[mask[p*heads+m]&1])
			}
			gm[p*heads+m] = ga
			dot[m] += float64(al[p*heads+m] * ga)
		}
	}
	clear(gdst)
	for p, j := range idx {
		sj := src[int(j)*heads : int(j)*heads+heads]
		for m, d := range di {
			// 0 + gl·1 = gl: gl is never −0.
			gl := 0 + float64(al[p*heads+m]*(gm[p*heads+m]-dot[m]))
			gl = 0 + float64(gl*leaky[b2i(d+sj[m] > 0)])
			gm[p*heads+m] = gl
			gdst[m] += gl
		}
	}
	for m, s := range gdst {
		gdst[m] = 0 + s
	}
}

// AttnGatherEdges is the per-source part of GAT's backward pass for the
// edges leaving one source (their indices in the edge arrays, in order):
// gs[m] = 0 + Σ_p ge[edges[p]·heads + m], the sum in edge order from +0,
// and, when w is not nil, w[p·heads : (p+1)·heads] = da[edges[p]·heads :]
// (the edges' coefficients gathered, edge-major, for AttnAggregate).
func AttnGatherEdges(edges []int, heads int, ge, da, gs, w []float64) {
	gs = gs[:heads]
	if w != nil {
		w = w[:len(edges)*heads]
	}
	if (active == AVX512 || active == AVX2) && heads == 8 && len(edges) > 0 {
		limit := len(ge) / 8
		var pd, pw *float64
		if w != nil {
			limit = min(limit, len(da)/8)
			pd, pw = &da[0], &w[0]
		}
		var ok bool
		if active == AVX2 {
			ok = attnGather8AVX2(&edges[0], len(edges), &ge[0], pd, limit, &gs[0], pw)
		} else {
			ok = attnGather8AVX512(&edges[0], len(edges), &ge[0], pd, limit, &gs[0], pw)
		}
		if !ok {
			panic("vec: AttnGatherEdges: edge index out of range")
		}
		return
	}
	clear(gs)
	for _, k := range edges {
		for m, x := range ge[k*heads : k*heads+heads] {
			gs[m] += x
		}
	}
	for m, s := range gs {
		gs[m] = 0 + s
	}
	if w != nil {
		for p, k := range edges {
			copy(w[p*heads:(p+1)*heads], da[k*heads:(k+1)*heads])
		}
	}
}

// AttnInputGradRow adds to one row of the features' gradient gh what a
// source's row receives in GAT's backward pass: for every head m and
// column q < c, (acc[m·c+q] + gs[m]·as[m·c+q]) + gd[m]·ad[m·c+q], the
// products rounded, with acc the attention-weighted sum of the
// destinations' gradients (AttnAggregate), gs and gd the gradients of the
// source's two scores and as, ad the heads' attention vectors, head-major.
func AttnInputGradRow(acc, gs, gd, as, ad []float64, c int, gh []float64) {
	heads := len(gs)
	n := heads * c
	acc, gd, as, ad, gh = acc[:n], gd[:heads], as[:n], ad[:n], gh[:n]
	if heads == 8 && c == 8 {
		switch active {
		case AVX512:
			attnInputGrad8AVX512(&acc[0], &gs[0], &gd[0], &as[0], &ad[0], &gh[0])
			return
		case AVX2:
			attnInputGrad8AVX2(&acc[0], &gs[0], &gd[0], &as[0], &ad[0], &gh[0])
			return
		}
	}
	for m, s := range gs {
		d := gd[m]
		for q := m * c; q < (m+1)*c; q++ {
			gh[q] += (acc[q] + float64(s*as[q])) + float64(d*ad[q])
		}
	}
}
