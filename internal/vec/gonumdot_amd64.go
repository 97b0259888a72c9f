package vec

// gonumDotsAVX2 is GonumDots (k ≥ 1, n ≥ 1) with a block of eight columns
// in two registers (avx2_gonumdot_amd64.s). The stride is in bytes.
//
//go:noescape
func gonumDotsAVX2(a *float64, k int, bt *float64, strideBytes int, c *float64, n int)
