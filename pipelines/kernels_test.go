package pipelines_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/internal/vec"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files under testdata/ (kernels.golden, keys.golden) of the tests that run")

// TestKernelDigests runs testdata/kernels.hcl (HyLa-SGC and RFF-SGC on
// Cora, node-level HyLa on Airport: every vector kernel, its scalar
// fallbacks and the sparse powers) and requires the sha256 of every artifact
// to be the one pinned in testdata/kernels.golden. The golden file was made
// with the AVX-512 kernels, which made the README's tables; CI runs this
// test with HYLAFLOW_CPU=generic and avx2 as well, so a machine that passes
// it computes the same bytes on each path.
func TestKernelDigests(t *testing.T) {
	// Through $HYLAFLOW_DATA, not data_root: a path parameter is part of
	// the dataset's cache key, and the golden file pins the keys, which
	// must not depend on where the checkout's data lies (CI copies shared/
	// elsewhere).
	t.Setenv("HYLAFLOW_DATA", dataRoot(t))
	p := load(t, filepath.Join("testdata", "kernels.hcl"), nil)
	c := openCache(t)
	run(t, p, c)
	infos, err := c.List()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, a := range infos {
		lines = append(lines, fmt.Sprintf("%s %s %s", a.Address, a.Name, a.Digest))
	}
	sort.Strings(lines)
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "kernels.golden")
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s with the %s kernels", golden, vec.Path())
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("artifact digests with the %s kernels differ from %s:\n got:\n%s\nwant:\n%s", vec.Path(), golden, got, want)
	}
	t.Logf("%d artifacts, digests as pinned, with the %s kernels", len(lines), vec.Path())
}
