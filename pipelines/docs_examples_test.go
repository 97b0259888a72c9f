package pipelines_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/stages"
)

// docExample is one fenced ```hcl block of a Markdown file.
type docExample struct {
	file string // the Markdown file, relative to the repository
	line int    // line of the opening fence
	src  []byte
}

// docExamples extracts every ```hcl block of README.md and docs/*.md.
func docExamples(t *testing.T) []docExample {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join("..", "README.md")}, files...)
	var out []docExample
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel := filepath.ToSlash(strings.TrimPrefix(f, ".."+string(filepath.Separator)))
		var cur *docExample
		sc := bufio.NewScanner(bytes.NewReader(b))
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			trimmed := strings.TrimSpace(line)
			switch {
			case cur == nil && strings.HasPrefix(trimmed, "```hcl"):
				cur = &docExample{file: rel, line: n}
			case cur != nil && strings.HasPrefix(trimmed, "```"):
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.src = append(cur.src, line+"\n"...)
			}
		}
		if cur != nil {
			t.Errorf("%s:%d: unterminated ```hcl block", rel, cur.line)
		}
	}
	return out
}

// TestDocExamples validates every HCL example of README.md and docs/*.md,
// so the documentation cannot drift from the language and the stage types.
//
// The convention: a ```hcl block is a complete pipeline and must pass
// `hylaflow validate` (as if it were a file in docs/, with the stage
// library's types and no -var). A block whose first line is a comment
// starting with `# fragment` (e.g. `# fragment: a matrix stage`) shows a
// piece of a pipeline (a stage without its inputs, a block out of its
// context) and is only parsed: it must be well-formed HCL.
func TestDocExamples(t *testing.T) {
	examples := docExamples(t)
	if len(examples) < 3 {
		t.Fatalf("found %d ```hcl blocks in README.md and docs/*.md; the extraction is broken", len(examples))
	}
	reg := stages.Default()
	for _, ex := range examples {
		name := fmt.Sprintf("%s:%d", ex.file, ex.line)
		t.Run(name, func(t *testing.T) {
			first, _, _ := strings.Cut(strings.TrimSpace(string(ex.src)), "\n")
			if strings.HasPrefix(strings.TrimSpace(first), "# fragment") {
				if _, diags := hclsyntax.ParseConfig(ex.src, name, hcl.Pos{Line: ex.line + 1, Column: 1}); diags.HasErrors() {
					t.Errorf("the fragment does not parse:\n%v", diags)
				}
				return
			}
			// Diagnostics name the example by its Markdown file; a path in
			// the example is relative to docs/ like a pipeline file's.
			filename := filepath.Join("..", "docs", fmt.Sprintf("example-%s-%d.hcl", strings.ReplaceAll(ex.file, "/", "-"), ex.line))
			p, diags := pipeline.LoadSource(reg, filename, ex.src, pipeline.LoadOptions{})
			if diags.HasErrors() || p == nil {
				var b bytes.Buffer
				for _, d := range diags {
					fmt.Fprintf(&b, "  line %d of the block: %s: %s\n", blockLine(d), d.Summary, d.Detail)
				}
				t.Errorf("the example (a complete pipeline; mark pieces with a first line `# fragment`) fails validate:\n%s", b.String())
			}
		})
	}
}

func blockLine(d *hcl.Diagnostic) int {
	if d.Subject == nil {
		return 0
	}
	return d.Subject.Start.Line
}

var docPipelineRef = regexp.MustCompile(`pipelines/[A-Za-z0-9_.-]+\.hcl`)

// TestDocPipelineFiles checks that every pipelines/NAME.hcl that README.md
// and docs/*.md mention exists.
func TestDocPipelineFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "README.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, ref := range docPipelineRef.FindAllString(line, -1) {
				if _, err := os.Stat(filepath.Join("..", ref)); err != nil {
					t.Errorf("%s:%d mentions %s, which does not exist", f, i+1, ref)
				}
			}
		}
	}
}
