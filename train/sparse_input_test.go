package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// sparseDense returns an r×c matrix with about density·r·c non-zeros of
// both signs, its first row and first column left empty.
func sparseDense(rng *rand.Rand, r, c int, density float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 1; i < r; i++ {
		for j := 1; j < c; j++ {
			if rng.Float64() < density {
				m.Set(i, j, rng.NormFloat64())
			}
		}
	}
	return m
}

func TestCSRFromDenseAndTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m := sparseDense(rng, 37, 23, 0.2)
	s := csrFromDense(m)
	st := s.transpose()
	if s.rows != 37 || s.cols != 23 || st.rows != 23 || st.cols != 37 || len(st.idx) != len(s.idx) || len(s.idx) != denseNNZ(m) {
		t.Fatalf("shapes %d×%d and %d×%d, nnz %d and %d, want 37×23, 23×37, %d", s.rows, s.cols, st.rows, st.cols, len(s.idx), len(st.idx), denseNNZ(m))
	}
	back := mat.NewDense(37, 23, nil)
	for i := 0; i < s.rows; i++ {
		for p := s.ptr[i]; p < s.ptr[i+1]; p++ {
			if p > s.ptr[i] && s.idx[p] <= s.idx[p-1] {
				t.Fatalf("row %d: columns not increasing", i)
			}
			back.Set(i, int(s.idx[p]), s.val[p])
		}
	}
	for j := 0; j < st.rows; j++ {
		for p := st.ptr[j]; p < st.ptr[j+1]; p++ {
			if p > st.ptr[j] && st.idx[p] <= st.idx[p-1] {
				t.Fatalf("column %d: rows not increasing", j)
			}
			if back.At(int(st.idx[p]), j) != st.val[p] {
				t.Fatalf("transpose entry (%d,%d) = %v, want %v", st.idx[p], j, st.val[p], back.At(int(st.idx[p]), j))
			}
		}
	}
	if !mat.Equal(back, m) {
		t.Fatal("the row-compressed form does not give the matrix back")
	}
}

// The sparse kernels give the dense vector kernels' bits: row lengths
// with and without a tail and below one lane block, 1…9 classes, column
// sums over several row chunks, split at any column.
func TestSparseKernelsMatchDenseBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, tc := range []struct {
		n, d    int
		density float64
	}{{1, 5, 0.5}, {9, 8, 0.3}, {130, 37, 0.1}, {300, 602, 0.02}, {257, 64, 0.05}, {40, 3703, 0.005}} {
		for c := 1; c <= 9; c++ {
			name := fmt.Sprintf("n=%d d=%d C=%d", tc.n, tc.d, c)
			x := sparseDense(rng, tc.n, tc.d, tc.density)
			yT := mat.NewDense(c, tc.d, nil)
			g := mat.NewDense(tc.n, c, nil)
			for _, m := range []*mat.Dense{yT, g} {
				raw := m.RawMatrix().Data
				for i := range raw {
					raw[i] = rng.NormFloat64()
				}
			}
			s := csrFromDense(x)
			// X·Y, row by row.
			got := mat.NewDense(tc.n, c, nil)
			s.rowsProductRange(nil, yT, got, 0, tc.n)
			want := mat.NewDense(tc.n, c, nil)
			rowsProductRange(x, nil, yT, want, 0, tc.n)
			if !sameBits(got.RawMatrix().Data, want.RawMatrix().Data) {
				t.Fatalf("%s: sparse X·Y differs from the dense kernel's bits", name)
			}
			// Selected rows, as for validation and test.
			rows := []int{tc.n - 1, 0, tc.n / 2}
			gotR, wantR := mat.NewDense(3, c, nil), mat.NewDense(3, c, nil)
			s.rowsProductRange(rows, yT, gotR, 0, 3)
			rowsProductRange(x, rows, yT, wantR, 0, 3)
			if !sameBits(gotR.RawMatrix().Data, wantR.RawMatrix().Data) {
				t.Fatalf("%s: sparse X[rows]·Y differs from the dense kernel's bits", name)
			}
			// Gᵀ·X, whole and in two column ranges.
			gm, xm := g.RawMatrix(), x.RawMatrix()
			wantG := mat.NewDense(c, tc.d, nil)
			gtxRangeAVX512(gm.Data, xm.Data, wantG.RawMatrix().Data, make([]float64, gtxPackLen(c)), gm.Stride, xm.Stride, tc.d, tc.n, c, 0, tc.d)
			st := s.transpose()
			gotG := mat.NewDense(c, tc.d, nil)
			for i := range gotG.RawMatrix().Data {
				gotG.RawMatrix().Data[i] = math.NaN() // every entry must be written
			}
			part := make([]float64, c)
			cut := tc.d / 3
			st.gtxRange(g, gotG, part, cut, tc.d)
			st.gtxRange(g, gotG, part, 0, cut)
			if !sameBits(gotG.RawMatrix().Data, wantG.RawMatrix().Data) {
				t.Fatalf("%s: sparse Gᵀ·X differs from the dense kernel's bits", name)
			}
		}
	}
}

// Training on sparse inputs gives the same bits with the sparse path as
// with the dense one, for every model, transductive and inductive,
// multi-class and binary, with one worker and two.
func TestSparseInputTrainingBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const n, d = 420, 61
	x := sparseDense(rng, n, d, 0.03)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(4)
		x.Set(i, 1+labels[i], x.At(i, 1+labels[i])+1) // a learnable signal
	}
	for k := 0; k < 40; k++ { // −0 entries: stored by Data.XRows, skipped by the dense X's compression
		x.Set(rng.IntN(n), rng.IntN(d), math.Copysign(0, -1))
	}
	perm := rng.Perm(n)
	base := Data{X: x, Labels: labels, Train: perm[:300], Val: perm[300:360], Test: perm[360:]}
	tr, err := newTrainer(&base, nil, nil, Config{Model: ModelSGC, Level: LevelFeatures, Epochs: 1}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if tr.sparse == nil {
		t.Fatalf("X with %d non-zeros of %d entries did not take the sparse path", denseNNZ(x), n*d)
	}
	inductive := base
	inductive.XTrain = mat.NewDense(len(base.Train), d, nil)
	for r, i := range base.Train {
		copy(inductive.XTrain.RawRowView(r), x.RawRowView(i))
	}
	binary := base
	binary.Labels = make([]int, n)
	for i, l := range labels {
		binary.Labels[i] = l % 2
	}
	binary.Binary = true
	rows := base
	rows.X, rows.XRows = nil, sparse.FromDenseBits(x)
	rowsInductive := inductive
	rowsInductive.X, rowsInductive.XRows = nil, rows.XRows
	// X given as its rows' non-zeros must give X's results: same bits as
	// the variant it stands for.
	standsFor := map[string]string{"rows": "transductive", "rows inductive": "inductive"}
	for _, model := range []Model{ModelHyLa, ModelRFF, ModelSGC} {
		results := map[string]*Result{}
		for _, name := range []string{"transductive", "inductive", "binary", "rows", "rows inductive"} {
			data := map[string]*Data{"transductive": &base, "inductive": &inductive, "binary": &binary, "rows": &rows, "rows inductive": &rowsInductive}[name]
			for _, workers := range []int{1, 2} {
				run := func(dense bool) *Result {
					t.Helper()
					denseInputOnly = dense
					defer func() { denseInputOnly = false }()
					cfg := Config{Model: model, Level: LevelFeatures, Epochs: 15, LREmbedding: 0.5, LRClassifier: 0.05, Workers: workers}
					res, err := Run(context.Background(), data, featureMap(t, model, 3, 40, 8, 0.5), nil, cfg, rand.New(rand.NewPCG(5, 6)))
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				sp, de := run(false), run(true)
				what := fmt.Sprintf("%s %s workers=%d", model, name, workers)
				if workers == 1 {
					results[name] = sp
				}
				if other := results[standsFor[name]]; other != nil && !sameResult(sp, other) {
					t.Errorf("%s: results differ from %s's", what, standsFor[name])
				}
				if !sameBits(sp.W.RawMatrix().Data, de.W.RawMatrix().Data) || !sameBits(sp.Bias, de.Bias) {
					t.Errorf("%s: classifier differs between the sparse and the dense path", what)
				}
				if model != ModelSGC && !sameBits(sp.Z.RawMatrix().Data, de.Z.RawMatrix().Data) {
					t.Errorf("%s: embedding differs between the sparse and the dense path", what)
				}
				for e := range sp.Curves {
					if sp.Curves[e] != de.Curves[e] {
						t.Errorf("%s: epoch %d: %+v (sparse) vs %+v (dense)", what, e, sp.Curves[e], de.Curves[e])
						break
					}
				}
				if sp.Test != de.Test || sp.BestTest != de.BestTest {
					t.Errorf("%s: test %v / %v (sparse) vs %v / %v (dense)", what, sp.Test, sp.BestTest, de.Test, de.BestTest)
				}
				if sp.Train < 0.5 && !data.Binary {
					t.Errorf("%s: training accuracy %.2f: the problem did not learn, the comparison proves little", what, sp.Train)
				}
			}
		}
	}
}

// sameResult reports whether two runs gave the same bits.
func sameResult(a, b *Result) bool {
	if !sameBits(a.W.RawMatrix().Data, b.W.RawMatrix().Data) || !sameBits(a.Bias, b.Bias) ||
		(a.Z == nil) != (b.Z == nil) || a.Test != b.Test || a.BestTest != b.BestTest || len(a.Curves) != len(b.Curves) {
		return false
	}
	if a.Z != nil && !sameBits(a.Z.RawMatrix().Data, b.Z.RawMatrix().Data) {
		return false
	}
	for e := range a.Curves {
		if a.Curves[e] != b.Curves[e] {
			return false
		}
	}
	return true
}

// The sparse path is taken only when X_train is sparse enough.
func TestSparseInputThreshold(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct {
		density float64
		sparse  bool
	}{{0.01, true}, {0.04, true}, {0.3, false}, {1, false}} {
		x := sparseDense(rng, 200, 100, tc.density)
		if got := newSparseInput(x, x, 3, 1) != nil; got != tc.sparse {
			t.Errorf("density %v: sparse path %v, want %v", tc.density, got, tc.sparse)
		}
		all := make([]int, 200)
		for i := range all {
			all[i] = i
		}
		if got := newSparseInputRows(sparse.FromDenseBits(x), nil, all[50:], 3, 1) != nil; got != tc.sparse {
			t.Errorf("density %v, X as its rows: sparse path %v, want %v", tc.density, got, tc.sparse)
		}
	}
}
