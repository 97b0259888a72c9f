// Package textgcn reads the TextGCN corpora (R8, R52, Ohsumed, MR) and builds
// their vocabulary, doc–word TF-IDF matrix, word–word positive PMI matrix and
// the seeded train/validation/test split, as Yao et al. (2019) define them.
package textgcn

import (
	"errors"

	"github.com/hylaflow/hylaflow/sparse"
)

// Options control corpus construction.
type Options struct {
	Seed        int     // seed of the validation draw from the training documents
	ValFraction float64 // fraction of training documents held out for validation (TextGCN: 0.1)
	Window      int     // sliding-window size for PMI (TextGCN: 20)
	MinFreq     int     // words rarer than this are removed when cleaning (TextGCN: 5)
	// Clean makes Load clean the raw corpus (corpus/NAME.txt) itself instead
	// of reading TextGCN's cleaned corpus/NAME.clean.txt.
	Clean bool
}

// Corpus is a loaded corpus. Documents are numbered in meta-file order;
// in the transductive graph, node i < Docs is document i and node Docs+j is word j.
type Corpus struct {
	Name     string
	Docs     int
	Vocab    []string
	Classes  []string    // class names, index = label
	Labels   []int       // per document
	Train    []int       // document indices
	Val      []int       // document indices (drawn from the training documents)
	Test     []int       // document indices
	DocWord  *sparse.CSR // Docs × len(Vocab), TF-IDF
	WordWord *sparse.CSR // len(Vocab) × len(Vocab), positive PMI, zero diagonal
}

// Load reads corpus name from root (the textgcn/ folder of the datasets).
func Load(root, name string, opts Options) (*Corpus, error) {
	return nil, errors.New("textgcn: Load is not implemented yet")
}

// Adjacency returns the (Docs+|V|)² symmetric corpus graph: doc–word TF-IDF
// and word–word PPMI entries, no self loops (normalisation adds them).
func (c *Corpus) Adjacency() *sparse.CSR { return nil }
