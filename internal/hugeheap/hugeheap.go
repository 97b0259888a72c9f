// Package hugeheap backs the first megabytes of a short-lived process's Go
// heap with transparent huge pages.
//
// A fully cached run of a 502-stage pipeline grows a heap of about 10 MB
// while it loads and plans, and on a virtual machine each first touch of a
// 4 KiB page of it is a page fault of several microseconds: about 2,600
// faults, a quarter of the run. Where the kernel's transparent huge pages
// are in "madvise" mode (the common default), memory the process marks
// with MADV_HUGEPAGE is faulted in 2 MiB at a time instead. The Go runtime
// no longer asks for that itself, and it maps its heap piece by piece as
// the heap grows, so advice given to the heap at start would not reach the
// pieces mapped later. Reserve therefore makes the runtime map a region of
// the size wanted at once (one large allocation, never touched), marks it,
// and frees it with a garbage collection: the runtime's page allocator
// hands out the lowest free addresses first, so the small objects that
// follow fill the marked region.
//
// No standard or third-party package does this (the Go runtime's own use
// of huge pages was removed for long-running servers, where khugepaged's
// collapsing inflated memory); it is a few lines of madvise, which is why
// it is written here. It changes where memory comes from, never a value.
package hugeheap

import "os"

// Env switches Reserve off when set to "0".
const Env = "HYLAFLOW_HUGEPAGES"

// Reserve marks about n bytes of heap address space for huge pages, as
// described in the package documentation, and reports whether the advice
// was taken. It does nothing where huge pages cannot be asked for (not
// Linux, transparent huge pages off, Env=0). Call it first thing in a
// process, before the heap has grown; it costs one collection of an
// almost empty heap. Less than two of the kernel's huge pages is not
// reserved.
func Reserve(n int) bool {
	if os.Getenv(Env) == "0" {
		return false
	}
	return reserve(n)
}
