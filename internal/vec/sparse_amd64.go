package vec

// The AVX2 kernels of the sparse-row operations (avx2_sparse_amd64.s),
// which the AVX-512 path calls too. Strides are in bytes.

// scatterQuadsAVX2 is ScatterRow on nq groups of four columns (nnz ≥ 1,
// indices checked by the caller).
//
//go:noescape
func scatterQuadsAVX2(idx *int32, val *float64, nnz int, src, dst *float64, strideBytes, nq int)

// maxIndexAVX2 returns the largest of idx[0…n) as unsigned numbers (n ≥ 1).
//
//go:noescape
func maxIndexAVX2(idx *int32, n int) uint32
