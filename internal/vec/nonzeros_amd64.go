package vec

// The AVX2 kernel of CompressNonzeros (avx2_nonzeros_amd64.s), on the
// whole groups of four of x (n ≥ 4).

//go:noescape
func compressNonzerosAVX2(x *float64, n int, idx *int32, val *float64) int
