package textgcn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const smallMeta = "a\ttrain\tpos\nb\ttest\tneg\nc\ttrain\tneg\n"

func TestLoadChoosesCorpusFile(t *testing.T) {
	raw := "The Quick fox.\nA quick dog!\nquick quick fox\n"
	clean := "alpha beta\nbeta\nalpha gamma gamma"
	both := writeFiles(t, map[string]string{"small.txt": smallMeta, "corpus/small.txt": raw, "corpus/small.clean.txt": clean})
	onlyRaw := writeFiles(t, map[string]string{"small.txt": smallMeta, "corpus/small.txt": raw})
	for _, tc := range []struct {
		name    string
		root    string
		opts    Options
		cleaned bool
		texts   string
	}{
		{"clean file", both, Options{}, false, "alpha beta|beta|alpha gamma gamma"},
		{"forced cleaning", both, Options{Clean: true, MinFreq: 2}, true, "quick fox|quick|quick quick fox"},
		{"fallback to raw", onlyRaw, Options{MinFreq: 1}, true, "quick fox|quick dog !|quick quick fox"},
	} {
		c, err := Load(tc.root, "Small", tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.Cleaned != tc.cleaned || strings.Join(c.Texts, "|") != tc.texts || c.Name != "small" || c.Docs != 3 {
			t.Errorf("%s: cleaned %v texts %q name %q docs %d; want cleaned %v texts %q", tc.name, c.Cleaned, strings.Join(c.Texts, "|"), c.Name, c.Docs, tc.cleaned, tc.texts)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		opts  Options
		want  []string // substrings of the error
	}{
		{"no meta", map[string]string{"other.txt": smallMeta}, Options{}, []string{"small.txt does not exist", "datasets fetch small"}},
		{"no corpus", map[string]string{"small.txt": smallMeta}, Options{}, []string{"small.clean.txt", filepath.Join("corpus", "small.txt"), "neither"}},
		{"no raw corpus when cleaning", map[string]string{"small.txt": smallMeta, "corpus/small.clean.txt": "a\nb\nc"}, Options{Clean: true}, []string{filepath.Join("corpus", "small.txt")}},
		{"too few documents", map[string]string{"small.txt": smallMeta, "corpus/small.clean.txt": "a\nb"}, Options{}, []string{"small.clean.txt: 2 documents, but", "small.txt lists 3"}},
		{"too many documents", map[string]string{"small.txt": smallMeta, "corpus/small.clean.txt": "a\nb\nc\nd\n"}, Options{}, []string{"4 documents"}},
		{"two fields", map[string]string{"small.txt": "a\ttrain\tpos\nb\ttest\n", "corpus/small.clean.txt": "a\nb"}, Options{}, []string{"small.txt:2:", "2 tab-separated fields, expected 3"}},
		{"four fields", map[string]string{"small.txt": "a\ttrain\tpos\tx\n", "corpus/small.clean.txt": "a"}, Options{}, []string{"small.txt:1:", "4 tab-separated"}},
		{"bad split", map[string]string{"small.txt": "a\ttrain\tpos\nb\ttrain\tneg\nc\tdev\tpos\n", "corpus/small.clean.txt": "a\nb\nc"}, Options{}, []string{"small.txt:3:", `split field "dev"`}},
		{"empty line", map[string]string{"small.txt": "a\ttrain\tpos\n\nc\ttest\tpos\n", "corpus/small.clean.txt": "a\nb\nc"}, Options{}, []string{"small.txt:2:", "empty line"}},
		{"trailing blank label", map[string]string{"small.txt": "a\ttrain\t \n", "corpus/small.clean.txt": "a"}, Options{}, []string{"small.txt:1:", "2 tab-separated fields"}},
		{"empty meta", map[string]string{"small.txt": "", "corpus/small.clean.txt": ""}, Options{}, []string{"no documents"}},
		{"bad options", map[string]string{"small.txt": smallMeta}, Options{Window: -3}, []string{"window -3"}},
	} {
		root := writeFiles(t, tc.files)
		_, err := Load(root, "small", tc.opts)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
	if _, err := Load(t.TempDir(), "../x", Options{}); err == nil || !strings.Contains(err.Error(), "invalid corpus name") {
		t.Errorf("path in name: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "absent"), "R8", Options{}); err == nil || !strings.Contains(err.Error(), "datasets fetch r8") {
		t.Errorf("absent root: %v", err)
	}
}

// FuzzLoad feeds arbitrary meta and corpus files (cleaned or raw) through
// Load's parsing and graph construction: it must return an error or a
// consistent corpus, never panic.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(smallMeta), []byte("x y\ny z\nz x x"), false)
	f.Add([]byte(smallMeta), []byte("The fox's den.\nA (dog)?\ncan't stop\n"), true)
	f.Add([]byte("a\ttraining\tC01\r\nb\ttest\tC02\r\n"), []byte("w\r\nw w"), false)
	f.Add([]byte("a\tb\n"), []byte(""), false)
	f.Add([]byte("\t\t\n"), []byte("\n"), true)
	f.Fuzz(func(t *testing.T, meta, corpus []byte, clean bool) {
		c, err := loadBytes("fuzz", "fuzz.txt", meta, "corpus/fuzz.txt", corpus, clean, Options{Window: 3, MinFreq: 1})
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz") {
				t.Errorf("error %q does not name the corpus or file", err)
			}
			return
		}
		if c.Docs == 0 || len(c.Labels) != c.Docs || len(c.Train)+len(c.Val)+len(c.Test) != c.Docs {
			t.Fatalf("inconsistent corpus: %d docs, %d labels, split %d+%d+%d", c.Docs, len(c.Labels), len(c.Train), len(c.Val), len(c.Test))
		}
		a := c.Adjacency()
		for _, m := range []*sparse.CSR{c.DocWord, c.WordWord, a} {
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		if a.Rows != c.Docs+len(c.Vocab) || !a.IsSymmetric() {
			t.Fatalf("adjacency %dx%d, symmetric %v", a.Rows, a.Cols, a.IsSymmetric())
		}
	})
}
