//go:build !amd64

package vec

// Without amd64 the AVX2 path is never active, so these are never called.

func attnSoftmax8AVX2(idx *int32, deg int, di, src *float64, limit int, slope float64, al *float64, mask *uint8, factor float64, da *float64) int {
	noAsm()
	return 0
}

func attnAggregate8x8AVX2(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, gcolBytes int) bool {
	noAsm()
	return false
}

func attnAggregate8x4AVX2(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, c, gcolBytes int) bool {
	noAsm()
	return false
}

func attnGrad8AVX2(idx *int32, deg int, gT, hT *float64, rowBytes, limit int, al *float64, mask *uint8, factor float64, di, src *float64, slope float64, gm, gdst *float64) bool {
	noAsm()
	return false
}

func attnGather8AVX2(edges *int, ne int, ge, da *float64, limit int, gs, w *float64) bool {
	noAsm()
	return false
}

func attnInputGrad8AVX2(acc, gs, gd, as, ad, gh *float64) { noAsm() }
