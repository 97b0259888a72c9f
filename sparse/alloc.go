package sparse

import (
	"unsafe"

	"gonum.org/v1/gonum/mat"
)

// hugeMin is the size from which MakeFloats asks for transparent huge pages.
const hugeMin = 32 << 20

// MakeFloats returns make([]float64, n). On Linux, when the slice is large
// (≥ 32 MiB) it also asks the kernel to back the part of it that spans whole
// 2 MiB pages with transparent huge pages (madvise MADV_HUGEPAGE) before
// anything touches it. The slice is ordinary garbage-collected memory; only
// how the kernel faults it in changes. Memory the process has not touched
// before is expensive to fault in 4 KiB at a time on virtual machines
// (seconds of CPU per GiB, about a third of that with huge pages:
// docs/performance.md), and the large dense matrices of a Reddit-scale run
// are several GiB.
func MakeFloats(n int) []float64 {
	s := make([]float64, n)
	if n*8 >= hugeMin {
		adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), n*8)
	}
	return s
}

// MakeInt32s is MakeFloats for int32 (the column indices of large CSRs).
func MakeInt32s(n int) []int32 {
	s := make([]int32, n)
	if n*4 >= hugeMin {
		adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), n*4)
	}
	return s
}

// NewDense returns a zeroed r×c matrix like mat.NewDense(r, c, nil), its
// storage allocated with MakeFloats.
func NewDense(r, c int) *mat.Dense {
	if r <= 0 || c <= 0 {
		return mat.NewDense(max(r, 1), max(c, 1), nil)
	}
	return mat.NewDense(r, c, MakeFloats(r*c))
}
