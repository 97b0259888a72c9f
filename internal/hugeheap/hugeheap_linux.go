package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// sink keeps the reservation's allocation on the heap.
var sink []byte

func reserve(n int) bool {
	if !available() {
		return false
	}
	b := make([]byte, n)
	sink = b
	// The whole huge pages within b (its start is page aligned, not
	// necessarily huge-page aligned).
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((start+hugePage-1)&^(hugePage-1) - start)
	hi := int((start+uintptr(n))&^(hugePage-1) - start)
	err := syscall.Madvise(b[lo:hi], syscall.MADV_HUGEPAGE)
	sink, b = nil, nil
	runtime.GC()
	return err == nil
}

// available reports whether the kernel gives huge pages to memory marked
// for them: transparent huge pages "always" or "madvise", not "never".
func available() bool {
	s, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(s, []byte("[never]"))
}
