package textgcn

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCleanStr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"...;:", ""},
		{"Hello, World!", "hello , world !"},
		{"It's John's car; don't.", "it 's john 's car do n't"},
		{"I've we're he'd you'll can't", "i 've we 're he 'd you 'll ca n't"},
		{"IT'S", "it's"}, // contractions are split before lower-casing, case-sensitively
		{"(a) b? c", `\( a \) b \? c`},
		{"caf\xe9 na\xefve\x97x", "caf na ve x"}, // Latin-1 bytes become spaces
		{"THE `quote` 'single'", "the `quote` 'single'"},
		{"a\tb\r\n c\v\fd", "a b c d"},
		{"1,000.50 & 7%", "1 , 000 50 7"},
		{"'s", "'s"},
		{"  x  ", "x"},
	} {
		if got := CleanStr(tc.in); got != tc.want {
			t.Errorf("CleanStr(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClean(t *testing.T) {
	raw := []string{"The cat sat", "the cat ran", "a dog sat", "Dog's bone"}
	for _, tc := range []struct {
		name string
		opts CleanOptions
		want []string
	}{
		{"none", CleanOptions{}, []string{"the cat sat", "the cat ran", "a dog sat", "dog 's bone"}},
		{"stop words", CleanOptions{StopWords: true}, []string{"cat sat", "cat ran", "dog sat", "dog 's bone"}},
		{"min freq", CleanOptions{MinFreq: 2}, []string{"the cat sat", "the cat", "dog sat", "dog"}},
		{"both", CleanOptions{StopWords: true, MinFreq: 2}, []string{"cat sat", "cat", "dog sat", "dog"}},
		{"all rare", CleanOptions{MinFreq: 3}, []string{"", "", "", ""}},
	} {
		if got := Clean(raw, tc.opts); !slices.Equal(got, tc.want) {
			t.Errorf("%s: Clean = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := CleanOptionsFor("MR", 5); got != (CleanOptions{}) {
		t.Errorf("CleanOptionsFor(MR) = %+v, want no removal", got)
	}
	if got := CleanOptionsFor("ohsumed", 5); got != (CleanOptions{StopWords: true, MinFreq: 5}) {
		t.Errorf("CleanOptionsFor(ohsumed) = %+v", got)
	}
}

func TestStopWords(t *testing.T) {
	if len(StopWords) != 179 {
		t.Errorf("%d stop words, want NLTK's 179", len(StopWords))
	}
	seen := map[string]bool{}
	for _, w := range StopWords {
		if seen[w] || w != strings.ToLower(strings.TrimSpace(w)) || w == "" {
			t.Errorf("stop word %q duplicated or not normalised", w)
		}
		seen[w] = true
	}
	for _, w := range []string{"i", "the", "won", "mustn't", "wouldn't", "should've", "s", "t"} {
		if !IsStopWord(w) {
			t.Errorf("%q is not a stop word", w)
		}
	}
	for _, w := range []string{"'s", "n't", "wheat", "The"} {
		if IsStopWord(w) {
			t.Errorf("%q is a stop word", w)
		}
	}
}

// TestCleanGolden cleans testdata/tiny's raw corpus (punctuation, contractions,
// Latin-1, CRLF, tabs, stop words, rare words) and compares with the
// hand-derived tiny.clean.golden.
func TestCleanGolden(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "tiny", "tiny.clean.golden"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Load(filepath.Join("testdata", "tiny"), "TINY", Options{MinFreq: 2, ValFraction: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Cleaned || c.Name != "tiny" {
		t.Errorf("Cleaned = %v, Name = %q; want the raw corpus of tiny cleaned", c.Cleaned, c.Name)
	}
	if got := strings.Join(c.Texts, "\n") + "\n"; got != string(want) {
		t.Errorf("cleaned corpus:\n%s\nwant:\n%s", got, want)
	}
	if want := []string{"wheat", "ship", "corn", ",", "'s", "ships", `\?`, "port"}; !slices.Equal(c.Vocab, want) {
		t.Errorf("vocab %q, want %q", c.Vocab, want)
	}
	if !slices.Equal(c.Classes, []string{"grain", "ship"}) || !slices.Equal(c.Labels, []int{0, 1, 0, 1, 1, 0}) {
		t.Errorf("classes %q labels %v", c.Classes, c.Labels)
	}
	if len(c.Train) != 2 || len(c.Val) != 2 || !slices.Equal(c.Test, []int{2, 4}) {
		t.Errorf("train %v val %v test %v", c.Train, c.Val, c.Test)
	}
	dw, ww, _ := refGraph(c.Texts, c.Vocab, DefaultWindow)
	compareEntries(t, "DocWord", csrEntries(c.DocWord), dw)
	compareEntries(t, "WordWord", csrEntries(c.WordWord), ww)
}

// TestCleanReproducesTextGCN cleans the raw R8 and MR corpora and compares
// the result byte for byte with TextGCN's own R8.clean.txt and mr.clean.txt.
func TestCleanReproducesTextGCN(t *testing.T) {
	root := testRoot(t)
	for _, name := range []string{"R8", "mr"} {
		raw, err := os.ReadFile(filepath.Join(root, "corpus", name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(root, "corpus", name+".clean.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, l := range splitLines(raw) {
			docs = append(docs, string(l))
		}
		got := []byte(strings.Join(Clean(docs, CleanOptionsFor(name, DefaultMinFreq)), "\n"))
		if !bytes.Equal(got, want) {
			gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
			for i := range min(len(gl), len(wl)) {
				if gl[i] != wl[i] {
					t.Fatalf("%s line %d:\n got %q\nwant %q", name, i+1, gl[i], wl[i])
				}
			}
			t.Fatalf("%s: %d cleaned lines, want %d", name, len(gl), len(wl))
		}
	}
}
