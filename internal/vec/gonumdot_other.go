//go:build !amd64

package vec

func gonumDotsAVX2(a *float64, k int, bt *float64, strideBytes int, c *float64, n int) { noAsm() }
