package vec

// dots4x4AVX2 is Dots4x4 (nb ≥ 1) in four passes of two rows by two
// classes (avx2_dots_amd64.s): the sixteen sums of two half-blocks do not
// fit AVX2's sixteen registers, two rows by two classes do. The stride is
// in bytes.
//
//go:noescape
func dots4x4AVX2(x0, x1, x2, x3, y *float64, strideBytes, nb int, acc *[128]float64)
