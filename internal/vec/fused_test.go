//go:build !amd64 || amd64.v3

package vec

// Elsewhere the compiler may fuse the math package's own multiply-adds.
const mathUnfused = false
