// Package openblas selects OpenBLAS for gonum's BLAS (blas64) at startup in
// builds with the "openblas" build tag and cgo; without the tag it does
// nothing and the pure-Go gonum implementation stays in use.
//
// Importing the package for its side effect is enough:
//
//	import _ "github.com/hylaflow/hylaflow/openblas"
//
// Build with the tag (Debian/Ubuntu: apt-get install libopenblas-dev):
//
//	go build -tags openblas ./cmd/hylaflow
//
// OpenBLAS runs single-threaded (openblas_set_num_threads(1)): the callers
// spread their products over their own workers in fixed output tiles, so
// every product entry is still computed by one serial call whose result
// does not depend on the number of workers. The sums are ordered differently
// from gonum's, so results agree with the pure-Go build to rounding, not bit
// for bit. On the Reddit-scale training products OpenBLAS is faster per CPU
// second than gonum; docs/performance.md has the measurements.
package openblas

// Enabled reports whether this build routes blas64 through OpenBLAS.
func Enabled() bool { return enabled }

// Name names the BLAS implementation blas64 uses in this build.
func Name() string {
	if enabled {
		return "openblas"
	}
	return "gonum"
}
