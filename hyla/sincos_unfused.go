//go:build goexperiment.simd && amd64 && !amd64.v3

package hyla

// Below GOAMD64=v3 the Go compiler does not fuse multiply-adds on amd64, so
// rffExactBlock's separate multiplies and adds round as the scalar code does.
const sincosExactOK = true
