package textgcn

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/sparse"
)

// Build constructs a corpus from its meta entries and cleaned documents (one
// per meta entry, words separated by white space), following TextGCN's
// build_graph.py:
//
//   - vocabulary: every distinct word of the cleaned corpus, ordered by
//     frequency (descending), ties by first appearance in document order;
//     this is the order HyLa's build_graph.py writes (Counter.most_common) —
//     TextGCN's own order, list(set(...)), depends on Python's string hashing;
//   - doc–word weights: TF-IDF = (count of the word in the document) ×
//     log(Docs / number of documents containing the word), natural log;
//   - word–word weights: PMI(i, j) = log(#W(i,j)·#W / (#W(i)·#W(j))) over
//     sliding windows of opts.Window words (a document of at most Window
//     words, also an empty one, is a single window), where #W(i) counts the
//     windows containing i and #W(i,j) counts, over all windows, the position
//     pairs holding i and j; only positive values are kept; no diagonal;
//   - classes: the distinct labels, sorted; split: opts.ValFraction of the
//     training documents, drawn with opts.Seed, become validation documents;
//     the meta file's test documents are the test set.
//
// Documents keep their meta order; Train, Val and Test are sorted.
func Build(name string, meta []Meta, docs []string, opts Options) (*Corpus, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if len(meta) != len(docs) {
		return nil, fmt.Errorf("textgcn %s: %d meta entries but %d documents", name, len(meta), len(docs))
	}
	if len(meta) == 0 {
		return nil, fmt.Errorf("textgcn %s: no documents", name)
	}
	if len(meta) > math.MaxInt32/2 {
		return nil, fmt.Errorf("textgcn %s: %d documents is too many", name, len(meta))
	}
	c := &Corpus{Name: name, Docs: len(meta), DocNames: make([]string, len(meta)), Texts: make([]string, len(docs))}
	for i, m := range meta {
		c.DocNames[i] = m.Name
	}
	buildLabels(c, meta)
	buildSplit(c, meta, opts)

	// Tokens, vocabulary in most_common order.
	words := make([][]string, len(docs))
	freq := make(map[string]int)
	var order []string
	total := 0
	for i, d := range docs {
		words[i] = strings.Fields(d)
		c.Texts[i] = strings.Join(words[i], " ")
		total += len(words[i])
		for _, w := range words[i] {
			if freq[w] == 0 {
				order = append(order, w)
			}
			freq[w]++
		}
	}
	if total > math.MaxInt32 || len(order) > math.MaxInt32-len(docs) {
		return nil, fmt.Errorf("textgcn %s: corpus too large (%d tokens, %d words)", name, total, len(order))
	}
	slices.SortStableFunc(order, func(a, b string) int { return cmp.Compare(freq[b], freq[a]) })
	c.Vocab = order
	id := make(map[string]int32, len(order))
	for j, w := range order {
		id[w] = int32(j)
	}
	t := &buildTokens{start: make([]int, len(docs)+1), tok: make([]int32, 0, total)}
	for i, ws := range words {
		for _, w := range ws {
			t.tok = append(t.tok, id[w])
		}
		t.start[i+1] = len(t.tok)
	}
	c.DocWord = buildTFIDF(t, len(order))
	c.WordWord, c.Windows = buildPPMI(t, len(order), opts.Window)
	c.Window = opts.Window
	return c, nil
}

// buildTokens holds the corpus as word ids: document i is tok[start[i]:start[i+1]].
type buildTokens struct {
	start []int
	tok   []int32
}

func (t *buildTokens) docs() int { return len(t.start) - 1 }

// buildLabels sets Classes (sorted distinct labels) and Labels.
func buildLabels(c *Corpus, meta []Meta) {
	set := make(map[string]int)
	for _, m := range meta {
		set[m.Label] = 0
	}
	c.Classes = make([]string, 0, len(set))
	for l := range set {
		c.Classes = append(c.Classes, l)
	}
	slices.Sort(c.Classes)
	for k, l := range c.Classes {
		set[l] = k
	}
	c.Labels = make([]int, len(meta))
	for i, m := range meta {
		c.Labels[i] = set[m.Label]
	}
}

// buildSplit draws the validation documents: the training documents are
// shuffled with a PCG generator seeded by opts.Seed, and the last
// int(ValFraction·n) of them become validation documents (TextGCN shuffles
// and keeps the first 90 % for training).
func buildSplit(c *Corpus, meta []Meta, opts Options) {
	var train []int
	c.Test = []int{}
	for i, m := range meta {
		if m.Test {
			c.Test = append(c.Test, i)
		} else {
			train = append(train, i)
		}
	}
	nVal := 0
	if opts.ValFraction > 0 {
		nVal = int(opts.ValFraction * float64(len(train)))
	}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), 0x7465787467636e)) // "textgcn"
	rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
	c.Train = append([]int{}, train[:len(train)-nVal]...)
	c.Val = append([]int{}, train[len(train)-nVal:]...)
	slices.Sort(c.Train)
	slices.Sort(c.Val)
}

// buildTFIDF returns the Docs × vocab TF-IDF matrix.
func buildTFIDF(t *buildTokens, vocab int) *sparse.CSR {
	n := t.docs()
	df := make([]int, vocab)
	seen := make([]int32, vocab) // document stamp + 1
	for i := 0; i < n; i++ {
		for _, w := range t.tok[t.start[i]:t.start[i+1]] {
			if seen[w] != int32(i+1) {
				seen[w] = int32(i + 1)
				df[w]++
			}
		}
	}
	idf := make([]float64, vocab)
	for w, d := range df {
		idf[w] = math.Log(float64(n) / float64(d))
	}
	m := &sparse.CSR{Rows: n, Cols: vocab, Indptr: make([]int, n+1)}
	count := make([]int, vocab)
	var cols []int32
	for i := 0; i < n; i++ {
		cols = cols[:0]
		for _, w := range t.tok[t.start[i]:t.start[i+1]] {
			if count[w] == 0 {
				cols = append(cols, w)
			}
			count[w]++
		}
		slices.Sort(cols)
		for _, w := range cols {
			m.Indices = append(m.Indices, w)
			m.Data = append(m.Data, float64(count[w])*idf[w])
			count[w] = 0
		}
		m.Indptr[i+1] = len(m.Data)
	}
	return m
}

// buildPPMI returns the vocab × vocab positive-PMI matrix and the number of
// windows. Instead of enumerating the windows it counts, for every pair of
// positions p < q closer than window, the windows that contain both:
// min(p, L−window) − max(0, q−window+1) + 1 in a document of L > window
// words, 1 in a shorter one. Rows are computed in parallel blocks; every row
// depends only on the corpus, so the result does not depend on the number of
// threads.
func buildPPMI(t *buildTokens, vocab, window int) (*sparse.CSR, int) {
	n := t.docs()
	// Windows and, per word, the number of windows containing it.
	windows := 0
	wfreq := make([]int, vocab)
	last := make([]int, vocab) // last window start counted for the word in the current document
	stamp := make([]int32, vocab)
	for i := 0; i < n; i++ {
		doc := t.tok[t.start[i]:t.start[i+1]]
		L := len(doc)
		if L <= window {
			windows++
			for _, w := range doc {
				if stamp[w] != int32(i+1) {
					stamp[w] = int32(i + 1)
					wfreq[w]++
				}
			}
			continue
		}
		windows += L - window + 1
		for p, w := range doc {
			lo, hi := max(0, p-window+1), min(p, L-window)
			if stamp[w] == int32(i+1) && last[w] >= lo {
				lo = last[w] + 1
			}
			stamp[w] = int32(i + 1)
			if lo <= hi {
				wfreq[w] += hi - lo + 1
				last[w] = hi
			}
		}
	}

	// Occurrences of every word: positions into t.tok, and the document of each token.
	occStart := make([]int, vocab+1)
	for _, w := range t.tok {
		occStart[w+1]++
	}
	for w := 0; w < vocab; w++ {
		occStart[w+1] += occStart[w]
	}
	occ := make([]int32, len(t.tok))
	next := slices.Clone(occStart[:vocab])
	tokDoc := make([]int32, len(t.tok))
	for i := 0; i < n; i++ {
		for g := t.start[i]; g < t.start[i+1]; g++ {
			w := t.tok[g]
			occ[next[w]] = int32(g)
			next[w]++
			tokDoc[g] = int32(i)
		}
	}

	type rowOut struct {
		idx []int32
		val []float64
	}
	rows := make([]rowOut, vocab)
	nw := float64(windows)
	nw2 := float64(windows) * float64(windows)
	// Rows cost unequal work (frequent words have many occurrences): the
	// blocks go to whichever worker is free, each with scratch space from
	// a pool (acc is all zero between rows). Every row is written whole by
	// one block, so the result does not depend on the workers.
	type scratch struct {
		acc          []int64
		touched, idx []int32
		val          []float64
	}
	pool := sync.Pool{New: func() any { return &scratch{acc: make([]int64, vocab)} }}
	workers := min(runtime.GOMAXPROCS(0), max(1, vocab/64))
	parallel.Balanced(context.Background(), vocab, 64, workers, func(lo, hi int) {
		sc := pool.Get().(*scratch)
		defer pool.Put(sc)
		acc, touched, idx, val := sc.acc, sc.touched, sc.idx, sc.val
		defer func() { sc.touched, sc.idx, sc.val = touched, idx, val }()
		for a := lo; a < hi; a++ {
			touched = touched[:0]
			for _, g32 := range occ[occStart[a]:occStart[a+1]] {
				g := int(g32)
				d := int(tokDoc[g])
				s, L := t.start[d], t.start[d+1]-t.start[d]
				p := g - s
				qlo, qhi := max(0, p-window+1), min(L-1, p+window-1)
				for q := qlo; q <= qhi; q++ {
					b := t.tok[s+q]
					if int(b) == a {
						continue
					}
					var cnt int64 = 1
					if L > window {
						lo, hi := min(p, q), max(p, q)
						cnt = int64(min(lo, L-window) - max(0, hi-window+1) + 1)
					}
					if acc[b] == 0 {
						touched = append(touched, b)
					}
					acc[b] += cnt
				}
			}
			slices.Sort(touched)
			idx, val = idx[:0], val[:0]
			fa := float64(wfreq[a])
			for _, b := range touched {
				cnt := acc[b]
				acc[b] = 0
				// As build_graph.py: log((count/W) / (f_i·f_j/W²)).
				pmi := math.Log((float64(cnt) / nw) / (fa * float64(wfreq[b]) / nw2))
				if pmi <= 0 {
					continue
				}
				idx = append(idx, b)
				val = append(val, pmi)
			}
			rows[a] = rowOut{slices.Clone(idx), slices.Clone(val)}
		}
	})
	m := &sparse.CSR{Rows: vocab, Cols: vocab, Indptr: make([]int, vocab+1)}
	nnz := 0
	for a := range rows {
		nnz += len(rows[a].idx)
	}
	m.Indices = make([]int32, 0, nnz)
	m.Data = make([]float64, 0, nnz)
	for a := range rows {
		m.Indices = append(m.Indices, rows[a].idx...)
		m.Data = append(m.Data, rows[a].val...)
		m.Indptr[a+1] = len(m.Data)
	}
	return m, windows
}
