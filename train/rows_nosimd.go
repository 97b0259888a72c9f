//go:build !(goexperiment.simd && amd64)

package train

// Without GOEXPERIMENT=simd on amd64 the row products use gonum's Gemv.
const rowDotsVecOK = false

func rowDotsAVX512(x, y []float64, stride int, out []float64) {
	panic("train: AVX-512 kernel in a build without it")
}
