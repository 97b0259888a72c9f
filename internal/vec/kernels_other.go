//go:build !amd64

package vec

// Without amd64 only the portable kernels run (Best is Generic), so these
// are never called.

func noAsm() { panic("vec: assembly kernel called on a CPU without it") }

func distAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int) { noAsm() }

func argsAVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int) { noAsm() }

func args2AVX512(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int) { noAsm() }

func mathAAVX512(q, lam, phi, e1, e2 *float64, nb int, a float64) int { noAsm(); return 0 }

func mathBAVX512(lam, sinB, cosB, phi, e1, e2 *float64, nb int, twoRho int) { noAsm() }

func gradPassAVX512(w *float64, strideBytes int, gy *float64, nc int, e1, e2, c *float64, nb int, s *[16]float64) {
	noAsm()
}

func gz8AVX512(c, omegaT *float64, strideBytes, nb int, out *[64]float64) { noAsm() }

func dot1AVX512(x, y *float64, nb int, out *[8]float64) { noAsm() }

func dot4AVX512(x, y *float64, strideBytes, nb int, out *[32]float64) { noAsm() }

func dots4x4AVX512(x0, x1, x2, x3, y *float64, strideBytes, nb int, acc *[128]float64) { noAsm() }

func axpyAVX512(part *float64, strideBytes int, gy *float64, nc int, phi *float64, nb int) { noAsm() }

func gtxTilesAVX512(gp *float64, x *float64, xStrideBytes, rows int, out *float64, outStrideBytes, ntiles, nc int) {
	noAsm()
}

func gtxTileMaskedAVX512(gp *float64, x *float64, xStrideBytes, rows int, out *float64, outStrideBytes, nc int, masks uint64) {
	noAsm()
}

func sinCosAddAVX512(arg, sinB, cosB *float64, scale float64, o, e *float64) bool {
	noAsm()
	return false
}

func distAVX2(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int) { noAsm() }

func argsAVX2(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int) { noAsm() }

func args2AVX2(z *float64, d0 int, omegaT *float64, strideBytes int, q *float64, nb int) { noAsm() }

func spmmRow4AVX2(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, accumulate int) {
	noAsm()
}

func mathAAVX2(q, lam, phi, e1, e2 *float64, nb int, a float64, buf *float64) int {
	noAsm()
	return 0
}

func mathBAVX2(lam, sinB, cosB, phi, e1, e2 *float64, nb int, twoRho int) { noAsm() }

func gradPassAVX2(w *float64, strideBytes int, gy *float64, nc int, e1, e2, c *float64, nb int, s *[16]float64) {
	noAsm()
}

func gz8AVX2(c, omegaT *float64, strideBytes, nb int, out *[64]float64) { noAsm() }

func dot1AVX2(x, y *float64, nb int, out *[8]float64) { noAsm() }

func dot4AVX2(x, y *float64, strideBytes, nb int, out *[32]float64) { noAsm() }

func axpyAVX2(part *float64, strideBytes int, gy *float64, nc int, phi *float64, nb int) { noAsm() }

func gyw2x16AVX2(g0, g1, w *float64, wstrideBytes, nc int, o0, o1 *float64) { noAsm() }

func gyw2x8AVX2(g0, g1, w *float64, wstrideBytes, nc int, o0, o1 *float64) { noAsm() }

func axpyRows4AVX2(part *float64, strideBytes int, gy *float64, gstrideBytes int, phi *float64, pstrideBytes, rows, nb int) {
	noAsm()
}

func gtxTilesAVX2(gp *float64, x *float64, xStrideBytes, rows int, out *float64, outStrideBytes, ntiles, nc int) {
	noAsm()
}

func sinCosAddAVX2(arg, sinB, cosB *float64, scale float64, o, e *float64) bool {
	noAsm()
	return false
}

func dots4x4AVX2(x0, x1, x2, x3, y *float64, strideBytes, nb int, acc *[128]float64) { noAsm() }

func spmmRowAVX512(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, nb int, accumulate int, limit int) bool {
	noAsm()
	return false
}

func spmmRow6AVX2(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, accumulate int) {
	noAsm()
}

func spmmRowAVX2(idx *int32, val *float64, nnz int, src *float64, strideBytes int, d *float64, nb int, accumulate int) {
	noAsm()
}

func rffExactAVX2(z *float64, d0 int, omegaT *float64, strideBytes int, phase *float64, scale float64, o, e *float64) bool {
	noAsm()
	return false
}

func gyw2AVX512(g0, g1, w *float64, wstrideBytes, nc int, o0, o1 *float64, nb int) { noAsm() }

func axpyRows4AVX512(part *float64, strideBytes int, gy *float64, gstrideBytes int, phi *float64, pstrideBytes, rows, nb int) {
	noAsm()
}

func attnSoftmax8AVX512(idx *int32, deg int, di, src *float64, limit int, slope float64, al *float64, mask *uint8, factor float64, da *float64) int {
	noAsm()
	return 0
}

func attnAggregate8AVX512(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, c, gcolBytes int) bool {
	noAsm()
	return false
}

func scatterRowAVX512(idx *int32, val *float64, nnz int, src, dst *float64, strideBytes, nb int) {
	noAsm()
}

func attnGrad8AVX512(idx *int32, deg int, gT, hT *float64, rowBytes, limit int, al *float64, mask *uint8, factor float64, di, src *float64, slope float64, gm, gdst *float64) bool {
	noAsm()
	return false
}

func attnGather8AVX512(edges *int, ne int, ge, da *float64, limit int, gs, w *float64) bool {
	noAsm()
	return false
}

func attnInputGrad8AVX512(acc, gs, gd, as, ad, gh *float64) { noAsm() }

func gonumDotsAVX512(a *float64, k int, bt *float64, strideBytes int, c *float64, n int) { noAsm() }

func compressNonzerosAVX512(x *float64, n int, idx *int32, val *float64) int {
	noAsm()
	return 0
}
