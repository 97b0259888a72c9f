//go:build !linux

package sparse

import "testing"

// checkHugeAdvice has nothing to check outside Linux.
func checkHugeAdvice(*testing.T, []float64) {}
