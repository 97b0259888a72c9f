package textgcn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
)

// realStats are the paper's appendix statistics (docs, vocabulary, average
// document length, classes) and the split sizes of the meta files, with 10 %
// of the training documents (rounded down) held out for validation.
var realStats = []struct {
	name                 string
	docs, vocab, classes int
	avgLen               float64 // words per cleaned document, paper rounds to 2 decimals
	train, val, test     int
	cleanedFromRaw       bool // no NAME.clean.txt in the datasets: Load cleans the raw corpus
}{
	{"R8", 7674, 7688, 8, 65.72, 5485 - 548, 548, 2189, false},
	{"R52", 9100, 8892, 52, 69.82, 6532 - 653, 653, 2568, true},
	{"ohsumed", 7400, 14157, 23, 135.82, 3357 - 335, 335, 4043, true},
	{"mr", 10662, 18764, 2, 20.39, 7108 - 710, 710, 3554, false},
}

func TestPaperStatistics(t *testing.T) {
	for _, s := range realStats {
		t.Run(s.name, func(t *testing.T) {
			c := loadReal(t, s.name)
			words := 0
			for _, d := range c.Texts {
				words += len(strings.Fields(d))
			}
			avg := math.Round(100*float64(words)/float64(c.Docs)) / 100
			if c.Docs != s.docs || len(c.Vocab) != s.vocab || len(c.Classes) != s.classes || avg != s.avgLen {
				t.Errorf("docs %d vocab %d classes %d average length %.2f, want %d %d %d %.2f",
					c.Docs, len(c.Vocab), len(c.Classes), avg, s.docs, s.vocab, s.classes, s.avgLen)
			}
			if len(c.Train) != s.train || len(c.Val) != s.val || len(c.Test) != s.test {
				t.Errorf("split %d/%d/%d, want %d/%d/%d", len(c.Train), len(c.Val), len(c.Test), s.train, s.val, s.test)
			}
			if c.Cleaned != s.cleanedFromRaw {
				t.Errorf("Cleaned = %v, want %v", c.Cleaned, s.cleanedFromRaw)
			}
			if c.DocWord.Rows != c.Docs || c.DocWord.Cols != len(c.Vocab) || c.WordWord.Rows != len(c.Vocab) {
				t.Errorf("shapes: doc-word %dx%d, word-word %dx%d", c.DocWord.Rows, c.DocWord.Cols, c.WordWord.Rows, c.WordWord.Cols)
			}
		})
	}
}

// TestRealGraphs checks the structure of every real corpus graph and
// recomputes sampled TF-IDF values independently from the cleaned texts.
func TestRealGraphs(t *testing.T) {
	for _, s := range realStats {
		t.Run(s.name, func(t *testing.T) {
			c := loadReal(t, s.name)
			a := c.Adjacency()
			n := c.Docs + len(c.Vocab)
			if err := a.Validate(); err != nil {
				t.Fatal(err)
			}
			if a.Rows != n || a.NNZ() != 2*c.DocWord.NNZ()+c.WordWord.NNZ() {
				t.Fatalf("adjacency %dx%d with %d entries", a.Rows, a.Cols, a.NNZ())
			}
			if !a.IsSymmetric() {
				t.Fatal("adjacency not symmetric")
			}
			for i := 0; i < n; i++ {
				for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
					j, v := int(a.Indices[p]), a.Data[p]
					switch {
					case j == i:
						t.Fatalf("self loop at node %d", i)
					case i < c.Docs && j < c.Docs:
						t.Fatalf("document-document entry (%d,%d)", i, j)
					case i >= c.Docs && j >= c.Docs && !(v > 0 && !math.IsInf(v, 0)):
						t.Fatalf("PPMI(%d,%d) = %v, want positive and finite", i-c.Docs, j-c.Docs, v)
					case (i < c.Docs || j < c.Docs) && !(v >= 0 && !math.IsInf(v, 0)):
						t.Fatalf("TF-IDF(%d,%d) = %v, want >= 0 and finite", i, j, v)
					}
				}
			}
			// Independent TF-IDF: document frequencies counted with maps over
			// the cleaned texts, tf × ln(N/df) for sampled documents, all words.
			df := map[string]int{}
			for _, d := range c.Texts {
				seen := map[string]bool{}
				for _, w := range strings.Fields(d) {
					if !seen[w] {
						seen[w] = true
						df[w]++
					}
				}
			}
			rng := rand.New(rand.NewPCG(1, uint64(c.Docs)))
			for range 25 {
				i := rng.IntN(c.Docs)
				tf := map[string]int{}
				for _, w := range strings.Fields(c.Texts[i]) {
					tf[w]++
				}
				if got := c.DocWord.Indptr[i+1] - c.DocWord.Indptr[i]; got != len(tf) {
					t.Errorf("document %d: %d TF-IDF entries, want %d distinct words", i, got, len(tf))
				}
				for w, f := range tf {
					j := slices.Index(c.Vocab, w)
					want := float64(f) * math.Log(float64(c.Docs)/float64(df[w]))
					if got := c.DocWord.At(i, j); math.Abs(got-want) > 1e-12*math.Abs(want) {
						t.Errorf("TF-IDF(doc %d, %q) = %v, want %v", i, w, got, want)
					}
				}
			}
		})
	}
}

// TestRealPPMISpotValues recomputes sampled PPMI entries of R8 and MR (and
// pairs without an entry) by enumerating every sliding window of the corpus,
// as build_graph.py does.
func TestRealPPMISpotValues(t *testing.T) {
	for _, name := range []string{"R8", "mr"} {
		t.Run(name, func(t *testing.T) {
			c := loadReal(t, name)
			rng := rand.New(rand.NewPCG(2, 2))
			type pair struct{ a, b int }
			var pairs []pair
			for len(pairs) < 30 { // stored entries
				a := rng.IntN(len(c.Vocab))
				lo, hi := c.WordWord.Indptr[a], c.WordWord.Indptr[a+1]
				if hi > lo {
					pairs = append(pairs, pair{a, int(c.WordWord.Indices[lo+rng.IntN(hi-lo)])})
				}
			}
			for range 30 { // frequent words: pairs with and without an entry
				pairs = append(pairs, pair{rng.IntN(300), rng.IntN(300)})
			}
			inS := map[string]bool{}
			for _, p := range pairs {
				inS[c.Vocab[p.a]], inS[c.Vocab[p.b]] = true, true
			}
			windowFreq := map[string]int{}
			pairCount := map[[2]string]int{}
			windows := 0
			visit := func(win []string) {
				windows++
				seen := map[string]bool{}
				for i, w := range win {
					if !inS[w] {
						continue
					}
					if !seen[w] {
						seen[w] = true
						windowFreq[w]++
					}
					for _, v := range win[:i] {
						if inS[v] && v != w {
							pairCount[[2]string{w, v}]++
							pairCount[[2]string{v, w}]++
						}
					}
				}
			}
			for _, d := range c.Texts {
				words := strings.Fields(d)
				if len(words) <= DefaultWindow {
					visit(words)
					continue
				}
				for j := 0; j+DefaultWindow <= len(words); j++ {
					visit(words[j : j+DefaultWindow])
				}
			}
			if windows != c.Windows {
				t.Errorf("%d windows, want %d", c.Windows, windows)
			}
			stored := 0
			for _, p := range pairs {
				wa, wb := c.Vocab[p.a], c.Vocab[p.b]
				want := 0.0
				if cnt := pairCount[[2]string{wa, wb}]; cnt > 0 && p.a != p.b {
					pmi := math.Log(float64(cnt) * float64(windows) / (float64(windowFreq[wa]) * float64(windowFreq[wb])))
					if pmi > 0 {
						want = pmi
						stored++
					}
				}
				if got := c.WordWord.At(p.a, p.b); math.Abs(got-want) > 1e-12*math.Abs(want) {
					t.Errorf("PPMI(%q, %q) = %v, want %v", wa, wb, got, want)
				}
			}
			if stored < 30 {
				t.Errorf("only %d of the sampled pairs have a PPMI entry", stored)
			}
		})
	}
}

// TestRealDeterminism loads R8 again: the same seed gives bit-identical
// output, another seed only another validation draw.
func TestRealDeterminism(t *testing.T) {
	c := loadReal(t, "R8")
	root := testRoot(t)
	again, err := Load(root, "r8", Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := Load(root, "R8", Options{Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	if !sparse.Equal(c.DocWord, again.DocWord) || !sparse.Equal(c.WordWord, again.WordWord) ||
		!slices.Equal(c.Vocab, again.Vocab) || !slices.Equal(c.Val, again.Val) || !slices.Equal(c.Train, again.Train) {
		t.Error("two loads with the same options differ")
	}
	if slices.Equal(c.Val, other.Val) || !sparse.Equal(c.WordWord, other.WordWord) || !slices.Equal(c.Test, other.Test) {
		t.Error("another seed should change the validation draw only")
	}
}
