//go:build !(goexperiment.simd && amd64)

package hyla

// Without GOEXPERIMENT=simd on amd64 the HyLa map runs its scalar code only.
const hylaVecOK = false

func hylaForwardRowAVX512(h *HyLaMap, zi []float64, a float64, o, e1, e2 []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func hylaBackwardRowAVX512(h *HyLaMap, g, gy, wT, e1, e2, zi []float64, a float64, gz []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func rffForwardRowAVX512(r *RFFMap, zi, o, e []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}
