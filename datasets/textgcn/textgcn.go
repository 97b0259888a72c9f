// Package textgcn reads the TextGCN corpora (R8, R52, Ohsumed, MR) and builds
// their vocabulary, doc–word TF-IDF matrix, word–word positive PMI matrix and
// the seeded train/validation/test split, as Yao et al. (2019) define them.
//
// A corpus lives in a folder (the datasets' textgcn/) as
//
//	NAME.txt               meta file: doc<TAB>train|test<TAB>label per line
//	corpus/NAME.clean.txt  TextGCN's cleaned corpus, one document per line
//	corpus/NAME.txt        the raw corpus, one document per line (Latin-1)
//
// Load reads the cleaned corpus when it exists and otherwise cleans the raw
// one itself (CleanStr, NLTK stop words, words rarer than MinFreq; MR only
// through CleanStr), which is what TextGCN's remove_words.py does.
package textgcn

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/hylaflow/hylaflow/sparse"
)

// Options control corpus construction. Zero fields take TextGCN's values.
type Options struct {
	Seed        int     // seed of the validation draw from the training documents
	ValFraction float64 // fraction of training documents held out for validation (0: TextGCN's 0.1; negative: none)
	Window      int     // sliding-window size for PMI (0: TextGCN's 20)
	MinFreq     int     // words rarer than this are removed when cleaning (0: TextGCN's 5)
	// Clean makes Load clean the raw corpus (corpus/NAME.txt) itself instead
	// of reading TextGCN's cleaned corpus/NAME.clean.txt. Load also cleans
	// when NAME.clean.txt does not exist.
	Clean bool
}

// Defaults of TextGCN's build_graph.py and remove_words.py.
const (
	DefaultValFraction = 0.1
	DefaultWindow      = 20
	DefaultMinFreq     = 5
)

// withDefaults fills zero fields and rejects invalid values.
func (o Options) withDefaults() (Options, error) {
	switch {
	case math.IsNaN(o.ValFraction) || o.ValFraction >= 1:
		return o, fmt.Errorf("textgcn: validation fraction %v, want a value in [0, 1)", o.ValFraction)
	case o.Window < 0:
		return o, fmt.Errorf("textgcn: window %d, want a positive size", o.Window)
	case o.MinFreq < 0:
		return o, fmt.Errorf("textgcn: minimum frequency %d, want >= 0", o.MinFreq)
	}
	if o.ValFraction == 0 {
		o.ValFraction = DefaultValFraction
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.MinFreq == 0 {
		o.MinFreq = DefaultMinFreq
	}
	return o, nil
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
	DocWord  *sparse.CSR // Docs × len(Vocab), TF-IDF; also the inductive feature matrix
	WordWord *sparse.CSR // len(Vocab) × len(Vocab), positive PMI, zero diagonal

	DocNames []string // per document, the meta file's first field
	Texts    []string // per document, the cleaned words joined by single spaces
	Windows  int      // number of sliding windows behind WordWord
	Window   int      // the sliding-window size behind WordWord
	Cleaned  bool     // whether Load cleaned the raw corpus (rather than reading NAME.clean.txt)
}

// Load reads corpus name from root (the textgcn/ folder of the datasets).
// The name is matched case-insensitively against the meta files (R8, R52,
// ohsumed, mr). Errors name the file and, for malformed lines, the line.
func Load(root, name string, opts Options) (*Corpus, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	base, err := resolveName(root, name)
	if err != nil {
		return nil, err
	}
	return LoadFiles(base, filepath.Join(root, base+".txt"), filepath.Join(root, "corpus", base+".clean.txt"),
		filepath.Join(root, "corpus", base+".txt"), o)
}

// LoadFiles is Load on the given meta file, cleaned corpus and raw corpus
// of corpus base (the Source passes the files it declares); the cleaned
// corpus is read unless opts.Clean is set or it does not exist.
func LoadFiles(base, metaPath, cleanPath, rawPath string, opts Options) (*Corpus, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	metaData, err := os.ReadFile(metaPath)
	if err != nil {
		return nil, fmt.Errorf("textgcn: %w", err)
	}
	var corpusPath string
	var corpusData []byte
	clean := o.Clean
	if !clean {
		corpusData, err = os.ReadFile(cleanPath)
		switch {
		case err == nil:
			corpusPath = cleanPath
		case errors.Is(err, fs.ErrNotExist):
			clean = true
		default:
			return nil, fmt.Errorf("textgcn: %w", err)
		}
	}
	if clean {
		corpusData, err = os.ReadFile(rawPath)
		if errors.Is(err, fs.ErrNotExist) && !o.Clean {
			return nil, fmt.Errorf("textgcn %s: neither %s nor %s exists (hylaflow datasets fetch %s gets them)",
				base, cleanPath, rawPath, strings.ToLower(base))
		}
		if err != nil {
			return nil, fmt.Errorf("textgcn: %w", err)
		}
		corpusPath = rawPath
	}
	return loadBytes(base, metaPath, metaData, corpusPath, corpusData, clean, o)
}

// loadBytes builds a corpus from the meta file's and the corpus file's
// contents; clean says whether the corpus is raw and must be cleaned first.
func loadBytes(name, metaPath string, metaData []byte, corpusPath string, corpusData []byte, clean bool, o Options) (*Corpus, error) {
	meta, err := ParseMeta(metaData, metaPath)
	if err != nil {
		return nil, err
	}
	lines := splitLines(corpusData)
	if len(lines) != len(meta) {
		return nil, fmt.Errorf("%s: %d documents, but %s lists %d", corpusPath, len(lines), metaPath, len(meta))
	}
	docs := make([]string, len(lines))
	for i, l := range lines {
		docs[i] = string(l)
	}
	if clean {
		docs = Clean(docs, CleanOptionsFor(name, o.MinFreq))
	}
	c, err := Build(name, meta, docs, o)
	if err != nil {
		return nil, err
	}
	c.Cleaned = clean
	return c, nil
}

// resolveName returns the base name of root's meta file for name: name
// itself if root/name.txt exists, else a case-insensitive match.
func resolveName(root, name string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return "", fmt.Errorf("textgcn: invalid corpus name %q (want R8, R52, ohsumed or mr)", name)
	}
	p := filepath.Join(root, name+".txt")
	if _, err := os.Stat(p); err == nil {
		return name, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return "", fmt.Errorf("textgcn: corpus %s: %w (hylaflow datasets fetch %s gets it)", name, err, strings.ToLower(name))
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(e.Name(), name+".txt") {
			return strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), nil
		}
	}
	return "", fmt.Errorf("textgcn: corpus %s: meta file %s does not exist (hylaflow datasets fetch %s gets it)", name, p, strings.ToLower(name))
}

// Adjacency returns the (Docs+|V|)² symmetric corpus graph: doc–word TF-IDF
// and word–word PPMI entries, no self loops (normalisation adds them). It is
// TextGCN's adjacency after load_corpus's symmetrisation, with documents
// first and words after them.
func (c *Corpus) Adjacency() *sparse.CSR {
	if c == nil || c.DocWord == nil || c.WordWord == nil {
		return nil
	}
	d, v := c.DocWord.Rows, c.WordWord.Rows
	dwT := c.DocWord.Transpose()
	n := d + v
	nnz := 2*c.DocWord.NNZ() + c.WordWord.NNZ()
	a := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1),
		Indices: make([]int32, 0, nnz), Data: make([]float64, 0, nnz)}
	for i := 0; i < d; i++ {
		for p := c.DocWord.Indptr[i]; p < c.DocWord.Indptr[i+1]; p++ {
			a.Indices = append(a.Indices, int32(d)+c.DocWord.Indices[p])
		}
		a.Data = append(a.Data, c.DocWord.Data[c.DocWord.Indptr[i]:c.DocWord.Indptr[i+1]]...)
		a.Indptr[i+1] = len(a.Data)
	}
	for j := 0; j < v; j++ {
		a.Indices = append(a.Indices, dwT.Indices[dwT.Indptr[j]:dwT.Indptr[j+1]]...)
		a.Data = append(a.Data, dwT.Data[dwT.Indptr[j]:dwT.Indptr[j+1]]...)
		for p := c.WordWord.Indptr[j]; p < c.WordWord.Indptr[j+1]; p++ {
			a.Indices = append(a.Indices, int32(d)+c.WordWord.Indices[p])
		}
		a.Data = append(a.Data, c.WordWord.Data[c.WordWord.Indptr[j]:c.WordWord.Indptr[j+1]]...)
		a.Indptr[d+j+1] = len(a.Data)
	}
	return a
}
