package textgcn

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
)

// ViewInductiveCorpus is the dataset stage's view of a corpus for
// inductive graph models (TextGCN trained without the test documents).
const ViewInductiveCorpus = "inductive_corpus"

// InductiveCorpusGraph returns the corpus graph of an inductive GCN: the
// graph TextGCN builds, but from the training documents alone (the
// training and validation documents, Train ∪ Val), with the test documents
// attached afterwards by their own edges only.
//
//   - Vocabulary, TF-IDF and PPMI come from the training documents only
//     (Build on them, the same window): the IDF counts training documents,
//     the windows are theirs, words that occur only in test documents do
//     not exist.
//   - Nodes: every document in meta order (so Train, Val and Test keep
//     their indices), then the training vocabulary. Training documents and
//     words are joined symmetrically (doc–word TF-IDF, word–word PPMI), as
//     in the transductive graph.
//   - A test document's row holds its TF-IDF weights to the training
//     vocabulary (its word counts times the training IDF; unseen words are
//     dropped); no word's row holds the test document. The normalisation
//     D^-1/2 (A+I) D^-1/2 with row degrees then gives the test document
//     a_tw / √(d_t d_w) with the word's training degree d_w: a one-way
//     propagation from the trained graph into the new document, which
//     changes nothing for the other nodes.
//
// The graph is marked Inductive: a model with one-hot node inputs gives
// the test documents (unseen in training) no input of their own.
func (c *Corpus) InductiveCorpusGraph() (*datasets.Graph, error) {
	if c.DocWord == nil || len(c.Labels) != c.Docs || len(c.Texts) != c.Docs {
		return nil, fmt.Errorf("textgcn %s: corpus without texts, doc-word matrix or labels", c.Name)
	}
	train := slices.Concat(c.Train, c.Val)
	slices.Sort(train)
	if len(train) == 0 {
		return nil, fmt.Errorf("textgcn %s: no training documents", c.Name)
	}
	meta := make([]Meta, len(train))
	texts := make([]string, len(train))
	for k, i := range train {
		meta[k] = Meta{Name: c.DocNames[i], Label: c.Classes[c.Labels[i]]}
		texts[k] = c.Texts[i]
	}
	sub, err := Build(c.Name, meta, texts, Options{ValFraction: -1, Window: c.Window})
	if err != nil {
		return nil, fmt.Errorf("textgcn %s: training graph: %w", c.Name, err)
	}
	d, v := c.Docs, len(sub.Vocab)
	if d+v > math.MaxInt32 {
		return nil, fmt.Errorf("textgcn %s: %d nodes is too many", c.Name, d+v)
	}
	// Training IDF, from the training documents' document frequencies.
	df := make([]int, v)
	for _, w := range sub.DocWord.Indices {
		df[w]++
	}
	idf := make([]float64, v)
	for w, n := range df {
		idf[w] = math.Log(float64(len(train)) / float64(n))
	}
	id := make(map[string]int32, v)
	for j, w := range sub.Vocab {
		id[w] = int32(j)
	}
	subRow := make([]int, d) // document → row of sub.DocWord, or −1 for a test document
	for i := range subRow {
		subRow[i] = -1
	}
	for k, i := range train {
		subRow[i] = k
	}

	n := d + v
	dwT := sub.DocWord.Transpose() // words × training documents (subset numbering)
	a := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	count := make(map[int32]int)
	var cols []int32
	for i := 0; i < d; i++ {
		if k := subRow[i]; k >= 0 {
			for p := sub.DocWord.Indptr[k]; p < sub.DocWord.Indptr[k+1]; p++ {
				a.Indices = append(a.Indices, int32(d)+sub.DocWord.Indices[p])
				a.Data = append(a.Data, sub.DocWord.Data[p])
			}
		} else {
			clear(count)
			cols = cols[:0]
			for _, w := range strings.Fields(c.Texts[i]) {
				j, ok := id[w]
				if !ok {
					continue
				}
				if count[j] == 0 {
					cols = append(cols, j)
				}
				count[j]++
			}
			slices.Sort(cols)
			for _, j := range cols {
				a.Indices = append(a.Indices, int32(d)+j)
				a.Data = append(a.Data, float64(count[j])*idf[j])
			}
		}
		a.Indptr[i+1] = len(a.Data)
	}
	for j := 0; j < v; j++ {
		// Training documents in meta order: train is sorted, so the
		// subset's numbering keeps the order.
		for p := dwT.Indptr[j]; p < dwT.Indptr[j+1]; p++ {
			a.Indices = append(a.Indices, int32(train[dwT.Indices[p]]))
			a.Data = append(a.Data, dwT.Data[p])
		}
		for p := sub.WordWord.Indptr[j]; p < sub.WordWord.Indptr[j+1]; p++ {
			a.Indices = append(a.Indices, int32(d)+sub.WordWord.Indices[p])
			a.Data = append(a.Data, sub.WordWord.Data[p])
		}
		a.Indptr[d+j+1] = len(a.Data)
	}
	g := &datasets.Graph{Name: c.Name, Source: "textgcn", Classes: len(c.Classes), Binary: len(c.Classes) == 2,
		Adj: a, Docs: d, Inductive: true, Labels: make([]int, n),
		Train: slices.Clone(c.Train), Val: slices.Clone(c.Val), Test: slices.Clone(c.Test)}
	for i := range g.Labels {
		g.Labels[i] = -1
	}
	copy(g.Labels, c.Labels)
	return g, g.Validate()
}
