//go:build goexperiment.simd && amd64 && amd64.v3

package hyla

// With GOAMD64=v3 the compiler may fuse the scalar code's multiply-adds, so
// rffExactBlock could not reproduce it bit for bit: the fallback stays scalar.
const sincosExactOK = false
