//go:build linux

package sparse

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// checkHugeAdvice checks that the mapping holding the middle of s has the
// MADV_HUGEPAGE flag ("hg") when the kernel supports transparent huge pages.
func checkHugeAdvice(t *testing.T, s []float64) {
	t.Helper()
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		return // no THP in this kernel: madvise(MADV_HUGEPAGE) is refused, nothing to check
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	addr := uint64(uintptr(unsafe.Pointer(&s[len(s)/2])))
	sc := bufio.NewScanner(f)
	inside := false
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) > 0 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			lo, hi, _ := strings.Cut(f[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			inside = err1 == nil && err2 == nil && a <= addr && addr < b
			continue
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok && inside {
			if !strings.Contains(" "+rest+" ", " hg ") {
				t.Errorf("mapping of a %d MiB MakeFloats slice lacks the huge-page advice: VmFlags:%s", len(s)*8>>20, rest)
			}
			return
		}
	}
	t.Errorf("no mapping found for address %#x", addr)
}
