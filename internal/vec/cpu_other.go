//go:build !amd64

package vec

// detect returns Generic: the assembly kernels are amd64 only.
func detect() Arch { return Generic }
