//go:build !(openblas && cgo)

package openblas

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

func TestGonumKept(t *testing.T) {
	if Enabled() || Name() != "gonum" {
		t.Fatalf("Enabled() = %v, Name() = %q without the openblas tag", Enabled(), Name())
	}
	if _, ok := blas64.Implementation().(gonum.Implementation); !ok {
		t.Fatalf("blas64 uses %T, want gonum.Implementation", blas64.Implementation())
	}
}
