package table

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var fixtureRun = Provenance{RunID: 12, Date: "2026-12-04", Command: "hylaflow run pipelines/table1.hcl -var docs=true",
	Pipeline: "pipelines/table1.hcl", Revision: "0123456789abcdef0123", Kernel: "avx512", Vars: map[string]string{"docs": "true", "seeds": "[0,1]"}}

// TestPage: a published table — its table.json stamped with the run's
// provenance, and its table.md with the note under the title — is the
// fixture's golden page, and the stamped table.json renders that same
// page again.
func TestPage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("testdata", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	md := StampMarkdown(Markdown(d), fixtureRun)
	golden(t, "fixture-page.md", md)
	stamped, err := StampJSON(doc, fixtureRun)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "fixture-page.json", stamped)
	again, err := Parse(stamped)
	if err != nil {
		t.Fatal(err)
	}
	if again.Run == nil || again.Run.RunID != 12 || again.Run.Vars["seeds"] != "[0,1]" || again.Run.Revision != fixtureRun.Revision {
		t.Errorf("stamped run %+v", again.Run)
	}
	if !bytes.Equal(Page(again), md) {
		t.Errorf("the stamped table.json renders another page:\n%s", Page(again))
	}
	if note := (Provenance{RunID: 3, Date: "2026-12-04", Command: "hylaflow run q.hcl", Kernel: "generic", Dirty: true}).Note(); !strings.Contains(note, "revision not stamped (a go run build) with uncommitted changes") ||
		!strings.Contains(note, "variables: the pipeline's defaults") {
		t.Errorf("note %q", note)
	}
}
