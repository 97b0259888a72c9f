//go:build !amd64

package vec

func compressNonzerosAVX2(x *float64, n int, idx *int32, val *float64) int { noAsm(); return 0 }
