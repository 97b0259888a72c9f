//go:build !(goexperiment.simd && amd64)

package hyla

// Without GOEXPERIMENT=simd on amd64 the maps run their scalar code only.
const hylaVecOK = false

func hylaVecRow(h *HyLaMap, q, phi, e1, e2 []float64, zi []float64, a float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func hylaVecDots(phi, w []float64, dp int, y []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func hylaVecAxpy(part []float64, dp int, gy, phi []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func hylaVecGrad(h *HyLaMap, cbuf, g, gy, e1, e2, u, zi []float64, a float64, gz []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func rffForwardRowAVX512(r *RFFMap, zi, o, e []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func rffVecRow(r *RFFMap, v *hylaVec, q, phi, e, zi []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}

func rffVecGrad(v *hylaVec, cbuf, gy, e []float64, gz []float64) {
	panic("hyla: AVX-512 kernel in a build without it")
}
