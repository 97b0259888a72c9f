//go:build openblas && cgo

package openblas

/*
#cgo LDFLAGS: -lopenblas
void openblas_set_num_threads(int);
*/
import "C"

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/netlib/blas/netlib"
)

const enabled = true

func init() {
	C.openblas_set_num_threads(1)
	blas64.Use(netlib.Implementation{})
}
