package textgcn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
)

// TestBuildHandComputed checks a three-document corpus against values worked
// out by hand (window 3): "a b a" is one window, "b c d b" has the windows
// [b c d] and [c d b], the empty document is one (empty) window: 4 windows.
func TestBuildHandComputed(t *testing.T) {
	meta := []Meta{{"d0", false, "x"}, {"d1", true, "y"}, {"d2", false, "x"}}
	c, err := Build("hand", meta, []string{"a b a", " b  c d b ", ""}, Options{Window: 3, ValFraction: -1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"b", "a", "c", "d"}; !slices.Equal(c.Vocab, want) {
		t.Fatalf("vocab %q, want %q (frequency, then first appearance)", c.Vocab, want)
	}
	if c.Windows != 4 {
		t.Errorf("windows = %d, want 4", c.Windows)
	}
	b, a, cc, d := 0, 1, 2, 3
	l3, l15 := math.Log(3), math.Log(1.5)
	wantDW := map[[2]int]float64{
		{0, a}: 2 * l3, {0, b}: l15,
		{1, b}: 2 * l15, {1, cc}: l3, {1, d}: l3,
	}
	compareEntries(t, "DocWord", csrEntries(c.DocWord), wantDW)
	// count(a,b) = 2 (positions (0,1) and (1,2) of "a b a"), #W(a)=1, #W(b)=3:
	// log((2/4)/(3/16)) = log(8/3); count(b,c) = count(b,d) = count(c,d) = 2,
	// #W(c) = #W(d) = 2: log(4/3), log(4/3), log(2).
	wantWW := map[[2]int]float64{
		{a, b}: math.Log(0.5 / (3.0 / 16)), {b, a}: math.Log(0.5 / (3.0 / 16)),
		{b, cc}: math.Log(0.5 / (6.0 / 16)), {cc, b}: math.Log(0.5 / (6.0 / 16)),
		{b, d}: math.Log(0.5 / (6.0 / 16)), {d, b}: math.Log(0.5 / (6.0 / 16)),
		{cc, d}: math.Log(0.5 / (4.0 / 16)), {d, cc}: math.Log(0.5 / (4.0 / 16)),
	}
	compareEntries(t, "WordWord", csrEntries(c.WordWord), wantWW)
	if !slices.Equal(c.Classes, []string{"x", "y"}) || !slices.Equal(c.Labels, []int{0, 1, 0}) {
		t.Errorf("classes %q labels %v", c.Classes, c.Labels)
	}
	if !slices.Equal(c.Train, []int{0, 2}) || len(c.Val) != 0 || !slices.Equal(c.Test, []int{1}) {
		t.Errorf("split train %v val %v test %v", c.Train, c.Val, c.Test)
	}
	if !slices.Equal(c.Texts, []string{"a b a", "b c d b", ""}) {
		t.Errorf("texts %q", c.Texts)
	}
	adj := c.Adjacency()
	if adj.Rows != 7 || adj.Cols != 7 || adj.NNZ() != 2*5+8 {
		t.Fatalf("adjacency %dx%d with %d entries, want 7x7 with 18", adj.Rows, adj.Cols, adj.NNZ())
	}
	if got := adj.At(3+a, 0); got != 2*l3 {
		t.Errorf("adjacency(word a, doc 0) = %v, want %v", got, 2*l3)
	}
	if got := adj.At(3+cc, 3+d); got != math.Log(2) {
		t.Errorf("adjacency(word c, word d) = %v, want log 2", got)
	}
}

// randomCorpus makes docs of 0..3·window words over a Zipf-like vocabulary,
// so that short, exactly-window and long documents and repeated words in a
// window all occur.
func randomCorpus(rng *rand.Rand, docs, vocab, window int) []string {
	out := make([]string, docs)
	for i := range out {
		n := rng.IntN(3*window + 1)
		words := make([]string, n)
		for k := range words {
			words[k] = fmt.Sprintf("w%d", int(float64(vocab)*math.Pow(rng.Float64(), 2.5)))
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

// TestBuildMatchesReference compares Build with the literal transcription of
// build_graph.py on random corpora, entry by entry and bit for bit.
func TestBuildMatchesReference(t *testing.T) {
	for _, tc := range []struct{ docs, vocab, window int }{
		{1, 3, 2}, {5, 4, 1}, {20, 15, 3}, {60, 40, 5}, {40, 200, 20}, {30, 8, 20},
	} {
		t.Run(fmt.Sprintf("docs%d_vocab%d_window%d", tc.docs, tc.vocab, tc.window), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.docs), uint64(tc.window)))
			docs := randomCorpus(rng, tc.docs, tc.vocab, tc.window)
			meta := make([]Meta, len(docs))
			for i := range meta {
				meta[i] = Meta{Name: fmt.Sprint(i), Test: i%3 == 0, Label: fmt.Sprint(i % 4)}
			}
			c, err := Build("random", meta, docs, Options{Window: tc.window})
			if err != nil {
				t.Fatal(err)
			}
			dw, ww, nw := refGraph(docs, c.Vocab, tc.window)
			if c.Windows != nw {
				t.Errorf("windows = %d, want %d", c.Windows, nw)
			}
			compareEntries(t, "DocWord", csrEntries(c.DocWord), dw)
			compareEntries(t, "WordWord", csrEntries(c.WordWord), ww)
			for _, m := range []*sparse.CSR{c.DocWord, c.WordWord, c.Adjacency()} {
				if err := m.Validate(); err != nil {
					t.Fatal(err)
				}
				if err := m.CheckSorted(); err != nil {
					t.Fatal(err)
				}
			}
			if !c.Adjacency().IsSymmetric() {
				t.Error("adjacency not symmetric")
			}
		})
	}
}

func TestBuildIndependentOfThreads(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	docs := randomCorpus(rng, 300, 2000, 20)
	meta := make([]Meta, len(docs))
	for i := range meta {
		meta[i] = Meta{Name: fmt.Sprint(i), Test: i%4 == 0, Label: fmt.Sprint(i % 5)}
	}
	prev := runtime.GOMAXPROCS(1)
	one, err := Build("r", meta, docs, Options{})
	runtime.GOMAXPROCS(max(prev, 4))
	many, err2 := Build("r", meta, docs, Options{})
	runtime.GOMAXPROCS(prev)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if !sparse.Equal(one.WordWord, many.WordWord) || !sparse.Equal(one.DocWord, many.DocWord) {
		t.Error("matrices differ between 1 and 4 threads")
	}
	if one.WordWord.NNZ() == 0 {
		t.Error("no word-word entries")
	}
}

func TestSplit(t *testing.T) {
	meta := make([]Meta, 1000)
	docs := make([]string, len(meta))
	nTrain := 0
	for i := range meta {
		meta[i] = Meta{Name: fmt.Sprint(i), Test: i%7 == 3, Label: "l"}
		if !meta[i].Test {
			nTrain++
		}
		docs[i] = "x y"
	}
	split := func(o Options) *Corpus {
		c, err := Build("s", meta, docs, o)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		frac float64
		val  int
	}{{0, nTrain / 10}, {0.1, nTrain / 10}, {0.25, nTrain / 4}, {-1, 0}} {
		c := split(Options{ValFraction: tc.frac, Seed: 3})
		if len(c.Val) != tc.val || len(c.Train)+len(c.Val) != nTrain || len(c.Test) != len(meta)-nTrain {
			t.Errorf("fraction %v: train %d val %d test %d, want val %d of %d", tc.frac, len(c.Train), len(c.Val), len(c.Test), tc.val, nTrain)
		}
		seen := map[int]string{}
		for name, set := range map[string][]int{"train": c.Train, "val": c.Val, "test": c.Test} {
			if !slices.IsSorted(set) {
				t.Errorf("%s not sorted", name)
			}
			for _, i := range set {
				if prev, dup := seen[i]; dup {
					t.Fatalf("document %d in %s and %s", i, prev, name)
				}
				seen[i] = name
				if meta[i].Test != (name == "test") {
					t.Fatalf("document %d (test=%v) in %s", i, meta[i].Test, name)
				}
			}
		}
	}
	a, b, other := split(Options{Seed: 1}), split(Options{Seed: 1}), split(Options{Seed: 2})
	if !slices.Equal(a.Val, b.Val) {
		t.Error("same seed, different validation sets")
	}
	if slices.Equal(a.Val, other.Val) {
		t.Error("seeds 1 and 2 give the same validation set")
	}
}

func TestOptionsErrors(t *testing.T) {
	meta := []Meta{{"a", false, "x"}}
	for _, o := range []Options{{ValFraction: 1}, {ValFraction: math.NaN()}, {Window: -1}, {MinFreq: -2}} {
		if _, err := Build("o", meta, []string{"w"}, o); err == nil {
			t.Errorf("Build with %+v: no error", o)
		}
	}
	if _, err := Build("o", meta, []string{"a", "b"}, Options{}); err == nil || !strings.Contains(err.Error(), "1 meta entries but 2 documents") {
		t.Errorf("length mismatch: %v", err)
	}
	if _, err := Build("o", nil, nil, Options{}); err == nil {
		t.Error("empty corpus: no error")
	}
	var nilCorpus *Corpus
	if nilCorpus.Adjacency() != nil || (&Corpus{}).Adjacency() != nil {
		t.Error("Adjacency of an empty corpus is not nil")
	}
}
