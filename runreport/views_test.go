package runreport

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/stages"
)

// The views report composes: the timing view (with the paper's times),
// a comparison loaded and written, a page written to a file.
func TestViews(t *testing.T) {
	c, id := testRun(t)
	out := t.TempDir()
	md, files, err := TimingView(c, out, id)
	if err != nil || len(files) == 0 || !strings.HasPrefix(string(md), "# Training time including precompute (run 1)") {
		t.Fatalf("TimingView: %v, files %v\n%s", err, files, md)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f, err)
		}
	}

	d, err := LoadCompare(c, id, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCompare(c, id, 99); !errors.Is(err, cache.ErrNotFound) || !strings.Contains(err.Error(), "run 99: ") {
		t.Errorf("LoadCompare with run 99: %v", err)
	}
	md, file, err := WriteCompare(filepath.Join(out, "new"), id, id, d)
	if err != nil || file != filepath.Join(out, "new", "compare-1-1.md") {
		t.Fatalf("WriteCompare: %v, %s", err, file)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != string(md) || len(md) == 0 {
		t.Errorf("the file holds %d bytes (%v), the Markdown %d", len(b), err, len(md))
	}

	page := filepath.Join(out, "html", "run.html")
	if err := WritePage(c, stages.Default(), id, d, page); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "<html") {
		t.Errorf("page: %v, %d bytes", err, len(b))
	}
	if err := WritePage(c, stages.Default(), 99, nil, page); err == nil || !strings.HasPrefix(err.Error(), "run 99: ") {
		t.Errorf("WritePage of run 99: %v", err)
	}
}
