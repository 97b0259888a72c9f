//go:build !(goexperiment.simd && amd64)

package sparse

// Without GOEXPERIMENT=simd on amd64 the products run the portable kernel only.
const spmmVecOK = false

func spmmRangeAVX512(m *CSR, src []float64, ss int, dst []float64, ds, w, lo, hi int) {
	panic("sparse: AVX-512 kernel in a build without it")
}

func spmmSegAVX512(m *CSR, src []float64, ss int, dst []float64, ds, w, lo, hi int, s1 int32, first bool, cur []int) {
	panic("sparse: AVX-512 kernel in a build without it")
}
