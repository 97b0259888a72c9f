//go:build !(openblas && cgo)

package openblas

const enabled = false
