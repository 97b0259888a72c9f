//go:build openblas && cgo

package openblas

import (
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

func TestOpenBLASSelected(t *testing.T) {
	if !Enabled() || Name() != "openblas" {
		t.Fatalf("Enabled() = %v, Name() = %q in an openblas build", Enabled(), Name())
	}
	if _, ok := blas64.Implementation().(netlib.Implementation); !ok {
		t.Fatalf("blas64 uses %T, want netlib.Implementation (OpenBLAS)", blas64.Implementation())
	}
}
