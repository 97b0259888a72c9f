//go:build !(goexperiment.simd && amd64)

package train

// Without GOEXPERIMENT=simd on amd64 the row products use gonum's Gemv.
const rowDotsVecOK = false

func rowDotsAVX512(x, y []float64, stride int, out []float64) {
	panic("train: AVX-512 kernel in a build without it")
}

func gtxRangeAVX512(g, x, out, gp []float64, gStride, xStride, outStride, n, c, j0, j1 int) {
	panic("train: AVX-512 kernel in a build without it")
}

func rowDots4AVX512(x *[4][]float64, y []float64, stride int, out *[4][]float64) {
	panic("train: AVX-512 kernel in a build without it")
}

func gtxPackLen(c int) int { return 0 }
