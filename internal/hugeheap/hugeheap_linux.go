package hugeheap

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64 and arm64
// with 4 KiB base pages, taken when the kernel does not say its own.
const hugePage = 2 << 20

// sink keeps the reservation's allocation on the heap.
var sink []byte

func reserve(n int) bool {
	size := pmdSize()
	if !available() || n < 2*size {
		return false
	}
	b := make([]byte, n)
	sink = b
	// The whole huge pages within b (its start is page aligned, not
	// necessarily huge-page aligned).
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((start+uintptr(size)-1)&^uintptr(size-1) - start)
	hi := int((start+uintptr(n))&^uintptr(size-1) - start)
	err := syscall.Madvise(b[lo:hi], syscall.MADV_HUGEPAGE)
	sink, b = nil, nil
	runtime.GC()
	return err == nil
}

// pmdSize is the kernel's transparent huge page size: 2 MiB with 4 KiB
// base pages, 512 MiB on arm64 kernels with 64 KiB pages (hugePage when
// the kernel does not say).
func pmdSize() int {
	s, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return hugePage
	}
	v, err := strconv.Atoi(string(bytes.TrimSpace(s)))
	if err != nil || v <= 0 || v&(v-1) != 0 {
		return hugePage
	}
	return v
}

// available reports whether the kernel gives huge pages to memory marked
// for them: transparent huge pages "always" or "madvise", not "never".
func available() bool {
	s, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(s, []byte("[never]"))
}
