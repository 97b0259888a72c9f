package textgcn

import (
	"math"
	"sync"
	"testing"

	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/sparse"
)

// testRoot locates the TextGCN folder of the shared datasets: $HYLAFLOW_DATA,
// else shared/datasets beside the repository (testenv.Data: skips without
// it, fails on CI).
func testRoot(tb testing.TB) string {
	tb.Helper()
	return testenv.Data(tb, "textgcn")
}

// realCorpora caches each real corpus (default options) for the test binary.
var realCorpora sync.Map // name → *realEntry

type realEntry struct {
	once sync.Once
	c    *Corpus
	err  error
}

func loadReal(tb testing.TB, name string) *Corpus {
	tb.Helper()
	root := testRoot(tb)
	e, _ := realCorpora.LoadOrStore(name, &realEntry{})
	ent := e.(*realEntry)
	ent.once.Do(func() { ent.c, ent.err = Load(root, name, Options{}) })
	if ent.err != nil {
		tb.Fatalf("Load(%s): %v", name, ent.err)
	}
	return ent.c
}

// refGraph is TextGCN's build_graph.py written out literally (windows list,
// per-window sets, position-pair loops, string-keyed counts), as an
// independent reference for Build. It returns the TF-IDF and PPMI entries
// keyed by (row, column) in Build's numbering (vocab from Build).
func refGraph(docs []string, vocab []string, window int) (dw, ww map[[2]int]float64, nWindows int) {
	id := map[string]int{}
	for j, w := range vocab {
		id[w] = j
	}
	var windows [][]string
	split := make([][]string, len(docs))
	for i, d := range docs {
		split[i] = fieldsASCII(d)
		words := split[i]
		if len(words) <= window {
			windows = append(windows, words)
			continue
		}
		for j := 0; j < len(words)-window+1; j++ {
			windows = append(windows, words[j:j+window])
		}
	}
	wordWindowFreq := map[string]int{}
	for _, w := range windows {
		appeared := map[string]bool{}
		for _, x := range w {
			if !appeared[x] {
				wordWindowFreq[x]++
				appeared[x] = true
			}
		}
	}
	pairCount := map[[2]int]int{}
	for _, w := range windows {
		for i := 1; i < len(w); i++ {
			for j := 0; j < i; j++ {
				a, b := id[w[i]], id[w[j]]
				if a == b {
					continue
				}
				pairCount[[2]int{a, b}]++
				pairCount[[2]int{b, a}]++
			}
		}
	}
	n := len(windows)
	ww = map[[2]int]float64{}
	for k, cnt := range pairCount {
		fi, fj := wordWindowFreq[vocab[k[0]]], wordWindowFreq[vocab[k[1]]]
		pmi := math.Log((float64(cnt) / float64(n)) / (float64(fi) * float64(fj) / float64(n*n)))
		if pmi > 0 {
			ww[k] = pmi
		}
	}
	docFreq := map[string]int{}
	for _, words := range split {
		seen := map[string]bool{}
		for _, w := range words {
			if !seen[w] {
				docFreq[w]++
				seen[w] = true
			}
		}
	}
	dw = map[[2]int]float64{}
	for i, words := range split {
		tf := map[string]int{}
		for _, w := range words {
			tf[w]++
		}
		for w, f := range tf {
			dw[[2]int{i, id[w]}] = float64(f) * math.Log(float64(len(docs))/float64(docFreq[w]))
		}
	}
	return dw, ww, n
}

// fieldsASCII splits at runs of ASCII white space (Python's str.split on
// the ASCII corpora).
func fieldsASCII(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\v' || s[i] == '\f' {
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	return out
}

// csrEntries returns m's entries keyed by (row, column).
func csrEntries(m *sparse.CSR) map[[2]int]float64 {
	out := make(map[[2]int]float64, m.NNZ())
	for i := 0; i < m.Rows; i++ {
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			out[[2]int{i, int(m.Indices[p])}] = m.Data[p]
		}
	}
	return out
}

// compareEntries reports differences between got and want (exact values).
func compareEntries(t *testing.T, what string, got, want map[[2]int]float64) {
	t.Helper()
	bad := 0
	for k, w := range want {
		g, ok := got[k]
		if !ok || g != w {
			if bad < 5 {
				t.Errorf("%s%v = %v (present %v), want %v", what, k, g, ok, w)
			}
			bad++
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			if bad < 5 {
				t.Errorf("%s%v = %v, want no entry", what, k, g)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d differing entries (%d got, %d want)", what, bad, len(got), len(want))
	}
}
