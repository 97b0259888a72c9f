package hugeheap

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// hugeRanges returns the address ranges of the process's mappings that
// carry the huge-page advice (VmFlags "hg" in /proc/self/smaps).
func hugeRanges(t *testing.T) [][2]uintptr {
	t.Helper()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]uintptr
	var cur [2]uintptr
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(f[0], "-"); ok && !strings.HasSuffix(f[0], ":") {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			z, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				cur = [2]uintptr{uintptr(a), uintptr(z)}
			}
			continue
		}
		if f[0] == "VmFlags:" && slices.Contains(f[1:], "hg") {
			out = append(out, cur)
		}
	}
	return out
}

var keep [][]byte

// The small objects allocated after Reserve land in memory marked for
// huge pages. This process's heap was already grown by the test framework,
// so only the share of 24 MB of new objects is asserted, not all of them.
func TestReserveMarksTheNextAllocations(t *testing.T) {
	if !available() {
		t.Skip("transparent huge pages are off on this machine ([never])")
	}
	t.Setenv(Env, "")
	if !Reserve(32 << 20) {
		t.Fatal("Reserve(32 MiB) = false with transparent huge pages available")
	}
	keep = keep[:0]
	for range 24 << 10 {
		keep = append(keep, make([]byte, 1024))
	}
	ranges := hugeRanges(t)
	if len(ranges) == 0 {
		t.Fatal("no mapping of the process carries the huge-page advice after Reserve")
	}
	in := 0
	for _, k := range keep {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(k)))
		for _, r := range ranges {
			if p >= r[0] && p < r[1] {
				in++
				break
			}
		}
	}
	if in < len(keep)/2 {
		t.Errorf("%d of %d objects allocated after Reserve are in memory marked for huge pages; want at least half", in, len(keep))
	}
	keep = nil
}

func TestReserveOff(t *testing.T) {
	t.Setenv(Env, "0")
	if Reserve(32 << 20) {
		t.Errorf("Reserve with %s=0 = true", Env)
	}
	t.Setenv(Env, "")
	if Reserve(hugePage) {
		t.Errorf("Reserve(one huge page) = true: no whole huge page is sure to lie within it")
	}
}
