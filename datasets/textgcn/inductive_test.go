package textgcn

import (
	"math"
	"slices"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
)

// TestInductiveCorpusGraphHandComputed checks a four-document corpus
// (window 3) against values worked out by hand. Training documents
// "a b a", "b c", "c c"; test document "b c d b e". The training
// vocabulary is c (3), a (2), b (2): nodes 4, 5, 6. IDF over the three
// training documents: a log 3, b and c log 1.5. Windows: one per
// document (3); #W(a) = 1, #W(b) = #W(c) = 2; count(a, b) = 2 gives
// PMI log((2/3)/(2/9)) = log 3; count(b, c) = 1 gives log(3/4) < 0,
// dropped. The test document keeps b (2 × log 1.5) and c (log 1.5) and
// drops d and e, which no training document has; no word row holds it.
func TestInductiveCorpusGraphHandComputed(t *testing.T) {
	meta := []Meta{{"d0", false, "x"}, {"d1", true, "y"}, {"d2", false, "x"}, {"d3", false, "y"}}
	c, err := Build("hand", meta, []string{"a b a", "b c d b e", "b c", "c c"}, Options{Window: 3, ValFraction: -1})
	if err != nil {
		t.Fatal(err)
	}
	g, err := c.Graph(ViewInductiveCorpus)
	if err != nil {
		t.Fatal(err)
	}
	if g.Adj.Rows != 7 || g.Docs != 4 || !g.Inductive || g.Classes != 2 {
		t.Fatalf("graph %d nodes, %d docs, inductive %v, %d classes; want 7, 4, true, 2", g.Adj.Rows, g.Docs, g.Inductive, g.Classes)
	}
	l3, l15 := math.Log(3), math.Log(1.5)
	const cc, a, b = 4, 5, 6
	want := map[[2]int]float64{
		{0, a}: 2 * l3, {0, b}: l15, {a, 0}: 2 * l3, {b, 0}: l15,
		{2, b}: l15, {2, cc}: l15, {b, 2}: l15, {cc, 2}: l15,
		{3, cc}: 2 * l15, {cc, 3}: 2 * l15,
		{1, b}: 2 * l15, {1, cc}: l15, // the test document, one way
		{a, b}: l3, {b, a}: l3,
	}
	compareEntries(t, "inductive corpus graph", csrEntries(g.Adj), want)
	if !slices.Equal(g.Labels, []int{0, 1, 0, 1, -1, -1, -1}) {
		t.Errorf("labels %v", g.Labels)
	}
	if !slices.Equal(g.Train, []int{0, 2, 3}) || len(g.Val) != 0 || !slices.Equal(g.Test, []int{1}) {
		t.Errorf("split train %v val %v test %v", g.Train, g.Val, g.Test)
	}
}

// On R8: the training part is the transductive construction on the
// training documents alone, the test documents appear in no other row,
// and almost every test document keeps edges to the training vocabulary.
func TestRealInductiveCorpusGraph(t *testing.T) {
	if testing.Short() {
		t.Skip("builds R8's graphs")
	}
	c := loadReal(t, "R8")
	g, err := c.InductiveCorpusGraph()
	if err != nil {
		t.Fatal(err)
	}
	isTest := make([]bool, c.Docs)
	for _, i := range c.Test {
		isTest[i] = true
	}
	words := g.Adj.Rows - c.Docs
	if words <= 0 || words > len(c.Vocab) {
		t.Fatalf("%d training words, want between 1 and the corpus's %d", words, len(c.Vocab))
	}
	empty := 0
	for i := 0; i < g.Adj.Rows; i++ {
		row := g.Adj.Indices[g.Adj.Indptr[i]:g.Adj.Indptr[i+1]]
		if i < c.Docs && isTest[i] && len(row) == 0 {
			empty++
		}
		for _, j := range row {
			if int(j) < c.Docs && isTest[j] {
				t.Fatalf("row %d holds test document %d", i, j)
			}
			if i < c.Docs && int(j) < c.Docs {
				t.Fatalf("document %d is joined to document %d", i, j)
			}
		}
	}
	if empty > len(c.Test)/100 {
		t.Errorf("%d of %d test documents have no training word", empty, len(c.Test))
	}
	// Training part: the training documents' own corpus, renumbered.
	train := slices.Concat(c.Train, c.Val)
	slices.Sort(train)
	meta := make([]Meta, len(train))
	texts := make([]string, len(train))
	for k, i := range train {
		meta[k] = Meta{Name: c.DocNames[i], Label: c.Classes[c.Labels[i]]}
		texts[k] = c.Texts[i]
	}
	sub, err := Build("R8-train", meta, texts, Options{ValFraction: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(sub.Vocab) != words || sub.WordWord.NNZ()+2*sub.DocWord.NNZ() != g.Adj.NNZ()-testEntries(g.Adj, isTest) {
		t.Errorf("training part: %d words and %d entries, want %d and %d", words, g.Adj.NNZ()-testEntries(g.Adj, isTest),
			len(sub.Vocab), sub.WordWord.NNZ()+2*sub.DocWord.NNZ())
	}
	for k, i := range train[:50] {
		for p := sub.DocWord.Indptr[k]; p < sub.DocWord.Indptr[k+1]; p++ {
			if got := g.Adj.At(i, c.Docs+int(sub.DocWord.Indices[p])); got != sub.DocWord.Data[p] {
				t.Fatalf("document %d word %d: %v, want %v", i, sub.DocWord.Indices[p], got, sub.DocWord.Data[p])
			}
		}
	}
}

// testEntries counts the stored entries of the test documents' rows.
func testEntries(a *sparse.CSR, isTest []bool) int {
	n := 0
	for i, t := range isTest {
		if t {
			n += a.Indptr[i+1] - a.Indptr[i]
		}
	}
	return n
}
