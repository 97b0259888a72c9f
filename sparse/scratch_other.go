//go:build !linux

package sparse

import "unsafe"

// scratch returns a zeroed buffer of n float64 and the function that
// releases it (a no-op: the garbage collector does).
func scratch(n int) ([]float64, func()) { return make([]float64, n), func() {} }

// adviseHuge does nothing outside Linux.
func adviseHuge(unsafe.Pointer, int) {}
