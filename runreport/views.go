package runreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/paper"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runs"
)

// TimingView writes the timing view of run id into out/timing/, each train
// stage's time beside the paper's (Table 6, paper.Timing), and returns its
// Markdown and the files written. A run without train stages is an error.
func TimingView(c *cache.Cache, out string, id int64) (md []byte, files []string, err error) {
	rows, err := Timings(c, id)
	if err != nil {
		return nil, nil, fmt.Errorf("run %d: timing: %w", id, err)
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("run %d has no train stage to time", id)
	}
	md, files, err = WriteTiming(out, id, rows, paper.Timing)
	if err != nil {
		return nil, nil, fmt.Errorf("timing: %w", err)
	}
	return md, files, nil
}

// LoadCompare loads runs a and b and compares them as runs diff does
// (runs.Compare). A run the cache does not hold is cache.ErrNotFound.
func LoadCompare(c *cache.Cache, a, b int64) (*runs.Diff, error) {
	var rs [2]*runs.Run
	for i, id := range [2]int64{a, b} {
		r, err := runs.Load(c, id)
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", id, err)
		}
		rs[i] = r
	}
	return runs.Compare(rs[0], rs[1]), nil
}

// WriteCompare writes d, the comparison of run a with run b, as Markdown
// into out/compare-A-B.md, and returns the Markdown (also when the file
// cannot be written) and the file.
func WriteCompare(out string, a, b int64, d *runs.Diff) (md []byte, file string, err error) {
	var buf bytes.Buffer
	WriteCompareMarkdown(&buf, d)
	file = filepath.Join(out, fmt.Sprintf("compare-%d-%d.md", a, b))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return buf.Bytes(), file, err
	}
	return buf.Bytes(), file, os.WriteFile(file, buf.Bytes(), 0o644)
}

// WritePage writes the HTML page of run id (BuildPage) into file, opening
// with the comparison d when d is not nil (report --compare --html).
func WritePage(c *cache.Cache, reg *registry.Registry, id int64, d *runs.Diff, file string) error {
	pg, err := BuildPage(c, reg, id)
	if err != nil {
		return fmt.Errorf("run %d: %w", id, err)
	}
	pg.Compare = d
	return pg.WriteFile(file)
}

// WriteFile renders pg into file, its directory created.
func (pg *Page) WriteFile(file string) error {
	var b bytes.Buffer
	if err := pg.Render(&b); err != nil {
		return fmt.Errorf("HTML report: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}
