package gnn

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// identityCSR returns the n×n identity as a CSR matrix.
func identityCSR(n int) *sparse.CSR {
	m := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		m.Indices = append(m.Indices, int32(i))
		m.Data = append(m.Data, 1)
		m.Indptr[i+1] = i + 1
	}
	return m
}

// TextGCN with identity inputs is Kipf & Welling's GCN on X = I: the same
// draws, the same arithmetic, so the same bits after training.
func TestTextGCNIsGCNOnIdentity(t *testing.T) {
	d := communities(2, 3, 30)
	d.X = identityCSR(d.A.Rows)
	cfg := Config{Epochs: 40, LR: 0.02, Stopping: "loss", Patience: 10, Workers: 2}
	gcn, err := NewGCN(d, 8, 0.5, 0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	tg, err := NewTextGCN(d, 8, 0.5, 0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Train(context.Background(), gcn, d, cfg, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), tg, d, cfg, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Curves, b.Curves) {
		t.Errorf("curves differ:\nGCN     %+v\nTextGCN %+v", a.Curves[len(a.Curves)-1], b.Curves[len(b.Curves)-1])
	}
	for _, name := range []string{"W1", "W2"} {
		if !mat.Equal(a.FinalParams[name], b.FinalParams[name]) {
			t.Errorf("%s differs between GCN on the identity and TextGCN", name)
		}
	}
}

// corpusGraph returns a toy corpus graph: docs documents of 3 classes, each
// using mostly its class's words; words follow the documents. Documents
// in test get their edges in their own row only when oneWay is set (the
// inductive corpus graph) and then have no input; the normalisation is
// D^-1/2 (A+I) D^-1/2 with row degrees, as the normalize stage's.
func corpusGraph(seed uint64, docs, wordsPerClass int, oneWay bool) *Data {
	rng := rand.New(rand.NewPCG(seed, 5))
	const classes = 3
	words := classes * wordsPerClass
	n := docs + words
	adj := mat.NewDense(n, n, nil)
	d := &Data{Labels: make([]int, n), Classes: classes}
	test := map[int]bool{}
	for i := 0; i < docs; i++ {
		y := i % classes
		d.Labels[i] = y
		switch k := i / classes; {
		case k%4 == 0:
			d.Val = append(d.Val, i)
		case k%4 == 1:
			d.Test = append(d.Test, i)
			test[i] = true
		default:
			d.Train = append(d.Train, i)
		}
		for k := 0; k < 6; k++ {
			w := y*wordsPerClass + rng.IntN(wordsPerClass)
			if rng.Float64() < 0.3 {
				w = rng.IntN(words)
			}
			adj.Set(i, docs+w, 1)
			if !(oneWay && test[i]) {
				adj.Set(docs+w, i, 1)
			}
		}
	}
	for i := docs; i < n; i++ {
		d.Labels[i] = -1
	}
	a := sparse.FromDense(adj)
	var err error
	if d.A, err = sparse.SymNormalize(a); err != nil {
		panic(err)
	}
	x := &sparse.CSR{Rows: n, Indptr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		if !(oneWay && test[i]) {
			x.Indices = append(x.Indices, int32(x.Cols))
			x.Data = append(x.Data, 1)
			x.Cols++
		}
		x.Indptr[i+1] = len(x.Data)
	}
	d.X = x
	return d
}

func TestTextGCNLearnsCorpus(t *testing.T) {
	for _, oneWay := range []bool{false, true} {
		d := corpusGraph(7, 150, 10, oneWay)
		m, err := NewTextGCN(d, 16, 0.5, 0, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := m.W1.Value.Dims(); r != d.X.Cols {
			t.Errorf("oneWay %v: W1 has %d rows, want one per input (%d)", oneWay, r, d.X.Cols)
		}
		res, err := Train(context.Background(), m, d, Config{Epochs: 200, LR: 0.02, Stopping: "loss", Patience: 10, Workers: 1}, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Test < 0.85 {
			t.Errorf("oneWay %v: test accuracy %.3f (epoch %d), want ≥ 0.85", oneWay, res.Test, res.StopEpoch)
		}
	}
}

// In the inductive graph a test document changes nothing for the other
// nodes: the training curve is the same with or without its edges.
func TestTextGCNInductiveTestDocsDoNotLeak(t *testing.T) {
	d := corpusGraph(9, 60, 5, true)
	// The same graph with every test document's row emptied.
	cut := d.A.Clone()
	isTest := map[int]bool{}
	for _, i := range d.Test {
		isTest[i] = true
	}
	var idx []int32
	var val []float64
	ptr := []int{0}
	for i := 0; i < cut.Rows; i++ {
		for p := cut.Indptr[i]; p < cut.Indptr[i+1]; p++ {
			if !isTest[i] {
				idx = append(idx, cut.Indices[p])
				val = append(val, cut.Data[p])
			}
		}
		ptr = append(ptr, len(idx))
	}
	cut.Indices, cut.Data, cut.Indptr = idx, val, ptr
	d2 := *d
	d2.A = cut
	cfg := Config{Epochs: 30, LR: 0.02, Stopping: "loss", Patience: 0, Workers: 1}
	run := func(d *Data) *Result {
		m, err := NewTextGCN(d, 8, 0.5, 0, rand.New(rand.NewPCG(4, 4)))
		if err != nil {
			t.Fatal(err)
		}
		r, err := Train(context.Background(), m, d, cfg, rand.New(rand.NewPCG(5, 5)))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := run(d), run(&d2)
	for e := range a.Curves {
		if a.Curves[e].Loss != b.Curves[e].Loss || a.Curves[e].Val != b.Curves[e].Val {
			t.Fatalf("epoch %d: training differs when test documents lose their edges: %+v vs %+v", e, a.Curves[e], b.Curves[e])
		}
	}
	if !mat.Equal(a.FinalParams["W1"], b.FinalParams["W1"]) {
		t.Error("W1 differs when test documents lose their edges")
	}
}

func TestTextGCNRejectsBadInput(t *testing.T) {
	d := corpusGraph(1, 30, 3, false)
	cases := []struct {
		name, want string
		edit       func(d *Data)
		hidden     int
		dropout    float64
	}{
		{"hidden", "hidden width 0", func(*Data) {}, 0, 0.5},
		{"dropout", "dropout 1", func(*Data) {}, 4, 1},
		{"not a one", "row 0 is not one-hot (1 stored", func(d *Data) { d.X = identityCSR(d.A.Rows); d.X.Data[0] = 2 }, 4, 0.5},
		{"two entries", "row 1 is not one-hot (2 stored", func(d *Data) {
			x := &sparse.CSR{Rows: d.A.Rows, Cols: 3, Indptr: make([]int, d.A.Rows+1)}
			x.Indices, x.Data = []int32{0, 1}, []float64{1, 1}
			for i := 2; i <= d.A.Rows; i++ {
				x.Indptr[i] = 2
			}
			d.X = x
		}, 4, 0.5},
		{"rows", "one input row per node", func(d *Data) { d.X = identityCSR(3) }, 4, 0.5},
	}
	for _, tc := range cases {
		dd := *d
		tc.edit(&dd)
		_, err := NewTextGCN(&dd, tc.hidden, tc.dropout, 0, rand.New(rand.NewPCG(1, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}
