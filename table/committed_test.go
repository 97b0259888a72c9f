package table

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedPages re-renders every result page committed under
// docs/results (NAME.md beside the NAME.json a run published with it, or
// a whole table's table.md beside its table.json) from its table.json and
// compares: a page edited by hand, or a formatter
// change without regenerated pages, fails here. Regenerate with the
// command each page names.
func TestCommittedPages(t *testing.T) {
	var jsons []string
	err := filepath.WalkDir(filepath.Join("..", "docs", "results"), func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(path, ".json") {
			jsons = append(jsons, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(jsons) == 0 {
		t.Fatal("no result pages under docs/results (the quickstart's at least: hylaflow run pipelines/quickstart.hcl -var docs=true)")
	}
	for _, js := range jsons {
		doc, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		d, err := Parse(doc)
		if err != nil {
			t.Fatalf("%s: %v", js, err)
		}
		if d.Run == nil {
			t.Errorf("%s: no run provenance: not published by a run", js)
			continue
		}
		page := strings.TrimSuffix(js, ".json") + ".md"
		md, err := os.ReadFile(page)
		if err != nil {
			t.Errorf("%s: %v", js, err)
			continue
		}
		if !bytes.Equal(md, Page(d)) {
			t.Errorf("%s is not what the formatter makes of %s; regenerate it with `%s`; the formatter gives:\n%s",
				page, filepath.Base(js), d.Run.Command, Page(d))
		}
	}
}
