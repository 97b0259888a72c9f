package all_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/datasets"
	_ "github.com/hylaflow/hylaflow/datasets/all"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/datasets/reddit/reddittest"
	"github.com/hylaflow/hylaflow/internal/testenv"
	"github.com/hylaflow/hylaflow/sparse"
)

var update = flag.Bool("update", false, "rewrite testdata/fingerprints.golden")

// fixture is a tiny dataset of one source, written by the test (never real
// data), with what loading it must give.
type fixture struct {
	name   string                          // dataset name within the source
	write  func(t *testing.T, root string) // writes the files under the data root
	params datasets.Options                // load parameters (nil: defaults)
	nodes  int                             // nodes of the loaded graph
	split  [3]int                          // official split sizes: train, val, test
}

// fixtures holds one fixture per registered source; a source without one
// fails TestConformance.
var fixtures = map[string]fixture{
	// Planetoid: 3 training rows, the 500 validation rows the loader
	// takes after them, 2 more rows in allx, 4 test rows given out of order.
	"planetoid": {name: "tiny", write: writePlanetoid, nodes: 509, split: [3]int{3, 500, 4}},
	// HGCN Disease: a 12-node tree, labels 1 on 4 nodes; HGCN's rule with
	// 0.10/0.60: m = 4, val = round(0.4) = 0 and test = round(2.4) = 2 of
	// each label, train the other 8.
	"hgcn": {name: "disease_nc", write: writeDisease, nodes: 12, split: [3]int{8, 0, 4}},
	// Reddit: a 6-node ring with FastGCN's given split 3/1/2.
	"reddit": {name: "reddit", write: writeReddit, nodes: reddittest.Nodes, split: [3]int{3, 1, 2}},
	// TextGCN: 10 training and 4 test documents; the validation draw takes
	// int(0.1·10) = 1 training document.
	"textgcn": {name: "tiny", write: writeText, nodes: 14 + 6, split: [3]int{9, 1, 4}},
	// Generated: the disease tree on 60 nodes, seed 3; HGCN's rule with
	// 0.10/0.60 on its labels (8 of the smaller class: 1 + 5 of each to
	// validation and test).
	// A user's graph: a 5-node edge list with string ids, labels.csv
	// (two classes) and features.csv; the stratified 0.2/0.2 draw takes
	// round(0.4) = 0 of class a (2 nodes) and round(0.6) = 1 of class b (3
	// nodes) for each of validation and test.
	"files": {name: "mine", write: writeUserFiles, nodes: 5, split: [3]int{3, 1, 1}},
	"synthetic": {name: "disease", write: func(*testing.T, string) {}, params: datasets.Options{"nodes": 60, "seed": 3},
		nodes: 60, split: [3]int{48, 2, 10}},
}

// TestConformance checks every registered source: its catalogue entries
// list the files it reads, a tiny fixture loads into a valid graph, the
// fingerprint is stable and follows the files' contents, and the official
// split has the rule's sizes.
func TestConformance(t *testing.T) {
	golden := readGolden(t)
	got := map[string]string{}
	names := datasets.Sources()
	if len(names) < 5 {
		t.Fatalf("registered sources %v, want at least the five built-in ones", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			src, _ := datasets.SourceOf(name)
			if src.Name() != name {
				t.Fatalf("registered as %q, Name() = %q", name, src.Name())
			}
			entries := 0
			for _, e := range datasets.Catalog() {
				if e.Source != name {
					continue
				}
				entries++
				if err := datasets.CheckEntryFiles(e); err != nil {
					t.Errorf("catalogue: %v", err)
				}
			}
			ps, userFiles := src.(datasets.PathSource)
			if entries == 0 && !userFiles {
				t.Errorf("no catalogue entry of source %s", name)
			}
			fx, ok := fixtures[name]
			if !ok {
				t.Fatalf("no conformance fixture for source %s: add one to fixtures", name)
			}
			root := t.TempDir()
			fx.write(t, root)
			params := fx.params
			if params == nil {
				params = datasets.Options{}
			}
			req, err := datasets.Resolve(src, datasets.Request{Root: root, Name: fx.name, Params: params, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			files := req.Files
			if userFiles { // the files at the user's path, exactly those the loader reads
				named, err := ps.FilesFor(datasets.Request{Root: root, Name: fx.name, Params: datasets.Options{}})
				if err != nil {
					t.Fatal(err)
				}
				files = nil
				for _, f := range named {
					rel, err := filepath.Rel(root, f.Path)
					if err != nil {
						t.Fatal(err)
					}
					files = append(files, datasets.File{Path: filepath.ToSlash(rel)})
				}
				if len(files) != 3 {
					t.Errorf("FilesFor lists %v, want the fixture's 3 files", files)
				}
			}
			for _, f := range files {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f.Path))); err != nil && !f.Optional {
					t.Errorf("fixture lacks required file %s: %v", f.Path, err)
				}
			}
			g := load(t, src, root, fx)
			fp, err := datasets.Fingerprint(src, req)
			if err != nil {
				t.Fatal(err)
			}
			got[name] = goldenForm(fp)
			g2 := load(t, src, root, fx)
			if fp2, _ := datasets.Fingerprint(src, req); fp2 != fp {
				t.Errorf("fingerprint %s, then %s", fp, fp2)
			}
			if !sparse.Equal(g.Adj, g2.Adj) || !slices.Equal(g.Labels, g2.Labels) {
				t.Error("two loads give different graphs")
			}
			if want, ok := golden[name]; !*update && (!ok || want != goldenForm(fp)) {
				t.Errorf("fingerprint %s, golden %s (go test -update after a deliberate change)", fp, want)
			}
			// The fingerprint follows the contents of every file read.
			for _, f := range files {
				p := filepath.Join(root, filepath.FromSlash(f.Path))
				data, err := os.ReadFile(p)
				if err != nil {
					continue
				}
				if err := os.WriteFile(p, append(data, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				if fp3, _ := datasets.Fingerprint(src, req); fp3 == fp {
					t.Errorf("fingerprint unchanged after %s changed", f.Path)
				}
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// The loader opens the declared files and nothing else: it
			// loads from a root holding only those, and fails (as the
			// fingerprint does) without any one of the required ones.
			only := t.TempDir()
			var present []string
			for _, f := range files {
				data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
				if err != nil {
					continue
				}
				present = append(present, f.Path)
				writeFile(t, only, f.Path, data)
			}
			if g3 := load(t, src, only, fx); !sparse.Equal(g.Adj, g3.Adj) {
				t.Error("the graph loaded from the declared files alone differs")
			}
			for _, f := range files {
				p := filepath.Join(only, filepath.FromSlash(f.Path))
				data, err := os.ReadFile(p)
				if err != nil || f.Optional || userFiles { // a user's path: FilesFor lists what it finds
					continue
				}
				os.Remove(p)
				if _, err := src.Load(context.Background(), datasets.Request{Root: only, Name: fx.name, Params: params, Workers: 1}); err == nil {
					t.Errorf("loaded without the required file %s", f.Path)
				}
				if _, err := datasets.Fingerprint(src, datasets.Request{Root: only, Name: fx.name, Params: params}); err == nil {
					t.Errorf("fingerprint without the required file %s: no error", f.Path)
				}
				writeFile(t, only, f.Path, data)
			}
			if g.Nodes() != fx.nodes || g.Source != name {
				t.Errorf("loaded %d nodes of source %q, want %d of %q", g.Nodes(), g.Source, fx.nodes, name)
			}
			sizes, rule := officialSplit(t, src, g)
			if sizes != fx.split {
				t.Errorf("official split (%s) sizes %v, want %v", rule.Rule, sizes, fx.split)
			}
		})
	}
	if *update {
		var b strings.Builder
		b.WriteString("# source fingerprint of the conformance fixture (go test ./datasets/all -update rewrites it)\n")
		for _, n := range names {
			fmt.Fprintf(&b, "%s %s\n", n, got[n])
		}
		if err := os.WriteFile(filepath.Join("testdata", "fingerprints.golden"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func load(t *testing.T, src datasets.Source, root string, fx fixture) *datasets.Graph {
	t.Helper()
	params := fx.params
	if params == nil {
		params = datasets.Options{}
	}
	g, err := src.Load(context.Background(), datasets.Request{Root: root, Name: fx.name, Params: params, Workers: 1})
	if err != nil {
		t.Fatalf("load %s: %v", fx.name, err)
	}
	if err := g.Validate(); err != nil {
		t.Fatalf("load %s: %v", fx.name, err)
	}
	return g
}

// officialSplit applies src's official split to g and returns its sizes.
func officialSplit(t *testing.T, src datasets.Source, g *datasets.Graph) ([3]int, datasets.SplitRule) {
	t.Helper()
	rule := src.OfficialSplit(g.Name)
	switch rule.Rule {
	case datasets.SplitGiven:
		if g.Train == nil {
			t.Fatalf("%s: rule given, but the graph has no split", g.Name)
		}
		return [3]int{len(g.Train), len(g.Val), len(g.Test)}, rule
	case datasets.SplitStratified:
		if g.Train != nil {
			t.Errorf("%s: rule stratified, but the graph brings a split", g.Name)
		}
		tr, va, te, err := datasets.StratifiedSplit(g.Labels, rule.PVal, rule.PTest, 0)
		if err != nil {
			t.Fatal(err)
		}
		return [3]int{len(tr), len(va), len(te)}, rule
	case datasets.SplitHGCN:
		if g.Train != nil {
			t.Errorf("%s: rule hgcn, but the graph brings a split", g.Name)
		}
		tr, va, te, err := datasets.HGCNSplit(g.Labels, rule.PVal, rule.PTest, 0)
		if err != nil {
			t.Fatal(err)
		}
		return [3]int{len(tr), len(va), len(te)}, rule
	}
	t.Fatalf("%s: official split %+v, want rule given or hgcn", g.Name, rule)
	return [3]int{}, rule
}

func readGolden(t *testing.T) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(filepath.Join("testdata", "fingerprints.golden"))
	if err != nil {
		if *update {
			return out
		}
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			out[f[0]] = f[1]
		}
	}
	return out
}

// docSplit finds "(train/val/test)" in a catalogue entry's Doc.
var docSplit = regexp.MustCompile(`\((\d+)/(\d+)/(\d+)\)`)

// TestCatalogueSplits loads every catalogue entry that records its split
// sizes from the shared datasets and checks the official split against
// them (and against the sizes its Doc quotes), and the loaded statistics
// against Expected. The text corpora take a minute; -short skips them.
func TestCatalogueSplits(t *testing.T) {
	for _, e := range datasets.Catalog() {
		if e.Split == ([3]int{}) {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			if m := docSplit.FindStringSubmatch(e.Doc); m != nil {
				if doc := fmt.Sprintf("%s/%s/%s", m[1], m[2], m[3]); doc != fmt.Sprintf("%d/%d/%d", e.Split[0], e.Split[1], e.Split[2]) {
					t.Errorf("Doc quotes the split %s, Split is %v", doc, e.Split)
				}
			}
			if testing.Short() && e.Source == "textgcn" {
				t.Skip("text corpora in -short mode")
			}
			root := e.FindRoot()
			if root == "" {
				root = testenv.Data(t)
			}
			src, err := datasets.SourceFor(e)
			if err != nil {
				t.Fatal(err)
			}
			g, err := src.Load(context.Background(), datasets.Request{Root: root, Name: e.Name, Params: datasets.Options{"identity_features": true}})
			if err != nil {
				t.Fatal(err)
			}
			if sizes, rule := officialSplit(t, src, g); sizes != e.Split {
				t.Errorf("official split (%s) sizes %v, catalogue says %v", rule.Rule, sizes, e.Split)
			}
			if x := e.Expected; x.Nodes != 0 {
				if _, missing := e.Present(root); len(missing) > 0 {
					x.Features = g.FeatureDim() // an optional feature file is missing: identity features
				}
				if got := (datasets.Stats{Nodes: g.Nodes(), Edges: g.Edges(), Features: g.FeatureDim(), Classes: g.Classes}); got != x {
					t.Errorf("loaded %+v, catalogue expects %+v", got, x)
				}
			}
		})
	}
}

// ---------------------------------------------------------------- fixtures

func writeFile(t *testing.T, root, rel string, data []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pickle writes protocol-2 pickles as Python 2's cPickle writes the
// Planetoid files (numpy arrays, scipy csr matrices, a defaultdict).
type pickle struct{ bytes.Buffer }

func (p *pickle) op(b ...byte) { p.Write(b) }
func (p *pickle) global(mod, name string) {
	p.WriteString("c" + mod + "\n" + name + "\n")
}
func (p *pickle) int(v int) { // BININT
	p.WriteByte('J')
	binary.Write(&p.Buffer, binary.LittleEndian, int32(v))
}
func (p *pickle) str(s string) { // SHORT_BINSTRING
	p.op('U', byte(len(s)))
	p.WriteString(s)
}

// ndarray is numpy's _reconstruct + BUILD of a C-ordered array.
func (p *pickle) ndarray(dtype string, shape []int, raw []byte) {
	p.global("numpy.core.multiarray", "_reconstruct")
	p.global("numpy", "ndarray")
	p.int(0)
	p.op(0x85) // TUPLE1
	p.str("b")
	p.op(0x87, 'R') // TUPLE3, REDUCE
	p.op('(')
	p.int(1)
	p.op('(')
	for _, d := range shape {
		p.int(d)
	}
	p.op('t')
	p.global("numpy", "dtype")
	p.str(dtype)
	p.int(0)
	p.int(1)
	p.op(0x87, 'R')
	p.op('(')
	p.int(3)
	p.str("<")
	p.op('N', 'N', 'N')
	p.int(-1)
	p.int(-1)
	p.int(0)
	p.op('t', 'b')
	p.op(0x89) // False: C order
	p.WriteByte('T')
	binary.Write(&p.Buffer, binary.LittleEndian, int32(len(raw)))
	p.Write(raw)
	p.op('t', 'b')
}

func le(v any) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	return b.Bytes()
}

// csrPickle is a rows×cols float32 csr_matrix with entry (i, i mod cols) = 1+i.
func csrPickle(rows, cols int) []byte {
	indptr, indices, data := make([]int32, rows+1), make([]int32, rows), make([]float32, rows)
	for i := range rows {
		indptr[i+1] = int32(i + 1)
		indices[i] = int32(i % cols)
		data[i] = float32(1 + i)
	}
	p := &pickle{}
	p.op(0x80, 2)
	p.global("scipy.sparse.csr", "csr_matrix")
	p.op(')', 0x81, '}', '(')
	p.str("format")
	p.str("csr")
	p.str("_shape")
	p.int(rows)
	p.int(cols)
	p.op(0x86)
	p.str("indptr")
	p.ndarray("i4", []int{rows + 1}, le(indptr))
	p.str("indices")
	p.ndarray("i4", []int{rows}, le(indices))
	p.str("data")
	p.ndarray("f4", []int{rows}, le(data))
	p.str("maxprint")
	p.int(50)
	p.op('u', 'b', '.')
	return p.Bytes()
}

// oneHotPickle is a rows×classes float64 one-hot label matrix, row i of class i mod classes.
func oneHotPickle(rows, classes int) []byte {
	v := make([]float64, rows*classes)
	for i := range rows {
		v[i*classes+i%classes] = 1
	}
	p := &pickle{}
	p.op(0x80, 2)
	p.ndarray("f8", []int{rows, classes}, le(v))
	p.op('.')
	return p.Bytes()
}

func writePlanetoid(t *testing.T, root string) {
	const train, all, test, feats, classes = 3, 505, 4, 3, 2
	n := all + test
	w := func(suffix string, data []byte) { writeFile(t, root, "planetoid/ind.tiny."+suffix, data) }
	w("x", csrPickle(train, feats))
	w("y", oneHotPickle(train, classes))
	w("allx", csrPickle(all, feats))
	w("ally", oneHotPickle(all, classes))
	w("tx", csrPickle(test, feats))
	w("ty", oneHotPickle(test, classes))
	w("test.index", []byte(fmt.Sprintf("%d\n%d\n%d\n%d\n", all+2, all, all+3, all+1)))
	// defaultdict(list): a path 0-1-…-(n-1).
	p := &pickle{}
	p.op(0x80, 2)
	p.global("collections", "defaultdict")
	p.global("__builtin__", "list")
	p.op(0x85, 'R', '(')
	for i := range n {
		p.int(i)
		p.op(']')
		if i+1 < n {
			p.op('(')
			p.int(i + 1)
			p.op('e')
		}
	}
	p.op('u', '.')
	w("graph", p.Bytes())
}

func writeDisease(t *testing.T, root string) {
	const n = 12
	var edges strings.Builder
	for i := 1; i < n; i++ {
		fmt.Fprintf(&edges, "%d,%d\n", (i-1)/2, i) // a binary tree, nodes named in order
	}
	dir := "hgcn/disease_nc/disease_nc"
	writeFile(t, root, dir+".edges.csv", []byte(edges.String()))
	labels := make([]int64, n)
	for _, i := range []int{0, 1, 3, 7} { // the infected path from the root
		labels[i] = 1
	}
	var b bytes.Buffer
	if err := npy.Write(&b, npy.Ints64([]int{n}, labels)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, root, dir+".labels.npy", b.Bytes())
	if err := npy.WriteArchive(filepath.Join(root, filepath.FromSlash(dir+".feats.npz")), npy.SparseArrays(sparse.Identity(n))); err != nil {
		t.Fatal(err)
	}
}

func writeReddit(t *testing.T, root string) { reddittest.Write(t, root) }

func writeText(t *testing.T, root string) {
	words := []string{"alpha", "beta", "gamma", "delta", "omega", "sigma"}
	var meta, corpus strings.Builder
	for i := range 14 {
		split, label := "train", []string{"pos", "neg"}[i%2]
		if i >= 10 {
			split = "test"
		}
		fmt.Fprintf(&meta, "doc%d\t%s\t%s\n", i, split, label)
		fmt.Fprintf(&corpus, "%s %s %s\n", words[i%6], words[(i+1)%6], words[(i+3)%6])
	}
	writeFile(t, root, "textgcn/tiny.txt", []byte(meta.String()))
	writeFile(t, root, "textgcn/corpus/tiny.clean.txt", []byte(corpus.String()))
}

func writeUserFiles(t *testing.T, root string) {
	t.Helper()
	for name, text := range map[string]string{
		"edges.csv":    "src,dst\nann,bob\nbob,cy\ncy,dee\ndee,ann\neve,ann\n",
		"labels.csv":   "id,label\nann,a\nbob,b\ncy,a\ndee,b\neve,b\n",
		"features.csv": "id,x,y\nann,1,0\nbob,0,1\ncy,1,1\ndee,0.5,0\neve,0,0.5\n",
		"val.csv.bak":  "not read: not a split file name\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goldenForm is a fingerprint as the golden file records it: itself, or
// the SHA-256 of a multi-line one (the files source's readable list).
func goldenForm(fp string) string {
	if !strings.Contains(fp, "\n") {
		return fp
	}
	sum := sha256.Sum256([]byte(fp))
	return "sha256:" + hex.EncodeToString(sum[:])
}
