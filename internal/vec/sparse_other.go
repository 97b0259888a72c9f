//go:build !amd64

package vec

func scatterQuadsAVX2(idx *int32, val *float64, nnz int, src, dst *float64, strideBytes, nq int) {
	noAsm()
}

func maxIndexAVX2(idx *int32, n int) uint32 { noAsm(); return 0 }
