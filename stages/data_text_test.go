package stages

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/train"
	"gonum.org/v1/gonum/mat"
)

// TestDataPrecomputeIdentityMinMax checks precompute on a featureless
// graph (identity features) with rows = "labelled" and scale = "minmax"
// against a dense reference: S = D^-1/2 (A+I) D^-1/2 with gonum, S^K, the
// labelled rows, min-max per column over the training rows, constant
// columns dropped; labels and split renumbered.
func TestDataPrecomputeIdentityMinMax(t *testing.T) {
	// 7 nodes: 0..3 labelled "documents", 4..6 unlabelled "words"; node 3
	// (a test document) is the only neighbour of word 6.
	n := 7
	edges := [][3]float64{{0, 4, 1.5}, {0, 5, 0.5}, {1, 4, 2}, {2, 5, 1}, {2, 4, 0.25}, {3, 6, 3}, {4, 5, 0.7}}
	var ri, ci []int
	var v []float64
	for _, e := range edges {
		ri, ci, v = append(ri, int(e[0]), int(e[1])), append(ci, int(e[1]), int(e[0])), append(v, e[2], e[2])
	}
	adj, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	g := &datasets.Graph{Name: "tiny", Source: "textgcn", Adj: adj, Labels: []int{0, 1, 0, 1, -1, -1, -1}, Classes: 2,
		Train: []int{0, 1}, Val: []int{2}, Test: []int{3}, Docs: 4}
	ga, err := dataGraphArtifact(g)
	if err != nil {
		t.Fatal(err)
	}
	norm := learnRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {ga}}, 1, 1)["graph"]
	a := mat.NewDense(n, n, nil)
	for _, e := range edges {
		a.Set(int(e[0]), int(e[1]), e[2])
		a.Set(int(e[1]), int(e[0]), e[2])
	}
	for i := 0; i < n; i++ {
		a.Set(i, i, 1)
	}
	s := mat.NewDense(n, n, nil)
	deg := make([]float64, n)
	for i := 0; i < n; i++ {
		deg[i] = mat.Sum(a.RowView(i))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s.Set(i, j, a.At(i, j)/math.Sqrt(deg[i]*deg[j]))
		}
	}
	for _, k := range []int{0, 1, 2, 3} {
		for _, scale := range []string{"none", "minmax"} {
			out := learnRun(t, "precompute", map[string]any{"k": k, "rows": "labelled", "scale": scale},
				map[string][]*bundle.Bundle{"graph": {norm}}, 1, 2)["features"]
			sk := mat.NewDense(n, n, nil)
			for i := 0; i < n; i++ {
				sk.Set(i, i, 1)
			}
			for range k {
				sk.Mul(sk, s)
			}
			want := [][]float64{}
			for i := 0; i < 4; i++ {
				want = append(want, mat.Row(nil, i, sk))
			}
			if scale == "minmax" {
				var cols [][]float64
				for j := 0; j < n; j++ {
					lo, hi := math.Min(want[0][j], want[1][j]), math.Max(want[0][j], want[1][j])
					if hi > lo {
						col := make([]float64, 4)
						for i := range col {
							col[i] = (want[i][j] - lo) / (hi - lo)
						}
						cols = append(cols, col)
					}
				}
				for i := range want {
					want[i] = want[i][:0]
					for _, col := range cols {
						want[i] = append(want[i], col[i])
					}
				}
			}
			if out.Has(schema.MemberX) {
				t.Fatalf("k %d %s: a dense X was stored for identity features", k, scale)
			}
			x, err := featuresX(context.Background(), out, 2)
			if err != nil {
				t.Fatal(err)
			}
			r, c := x.Dims()
			if r != 4 || c != len(want[0]) {
				t.Fatalf("k %d %s: X is %dx%d, want 4x%d", k, scale, r, c, len(want[0]))
			}
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if d := math.Abs(x.At(i, j) - want[i][j]); d > 1e-12 {
						t.Fatalf("k %d %s: X[%d,%d] = %v, want %v", k, scale, i, j, x.At(i, j), want[i][j])
					}
				}
			}
			labels, _ := out.Ints(schema.MemberLabels)
			test, _ := out.Ints(schema.MemberTest)
			if len(labels) != 4 || labels[3] != 1 || len(test) != 1 || test[0] != 3 {
				t.Fatalf("k %d %s: labels %v test %v", k, scale, labels, test)
			}
		}
	}
	// A split node without a label cannot be kept.
	g.Test = []int{3, 6}
	bad, _ := dataGraphArtifact(g)
	bad = learnRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {bad}}, 1, 1)["graph"]
	if _, err := learnRunErr("precompute", map[string]any{"k": 2, "rows": "labelled"}, map[string][]*bundle.Bundle{"graph": {bad}}, 1, 1, nil); err == nil {
		t.Error("a test node without a label was accepted with rows = labelled")
	}
	if _, err := learnRunErr("precompute", map[string]any{"k": 2, "scale": "minmax", "inductive": true}, map[string][]*bundle.Bundle{"graph": {norm}}, 1, 1, nil); err == nil {
		t.Error("inductive with minmax was accepted")
	}
}

func TestDataProductNNZLowerBound(t *testing.T) {
	csr := func(rows, cols int, entries [][3]float64) *sparse.CSR {
		m := &sparse.CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
		for _, e := range entries { // entries in row-major order
			m.Indices = append(m.Indices, int32(e[1]))
			m.Data = append(m.Data, e[2])
			m.Indptr[int(e[0])+1]++
		}
		for i := 0; i < rows; i++ {
			m.Indptr[i+1] += m.Indptr[i]
		}
		return m
	}
	// Row 0 of a reaches rows 0 (2 entries) and 2 (3 entries) of b: ≥ 3;
	// row 1 reaches row 1 (1 entry): ≥ 1; row 2 is empty.
	a := csr(3, 3, [][3]float64{{0, 0, 1}, {0, 2, 2}, {1, 1, 1}})
	b := csr(3, 4, [][3]float64{{0, 0, 1}, {0, 1, 1}, {1, 3, 1}, {2, 0, 1}, {2, 1, 1}, {2, 2, 1}})
	neg := csr(3, 4, [][3]float64{{0, 0, -1}})
	for _, tc := range []struct {
		name string
		a, b *sparse.CSR
		want int
	}{
		{"hand", a, b, 4},
		{"negative b", a, neg, 0},
		{"negative a", csr(3, 3, [][3]float64{{2, 2, -0.5}}), b, 0},
		{"empty", csr(3, 3, nil), b, 0},
	} {
		if got := dataProductNNZLowerBound(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	// Random non-negative matrices: the bound never exceeds the real count
	// and is exact when every row of a has one entry.
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		n := 5 + rng.IntN(40)
		var ea, eb [][3]float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if rng.Float64() < 0.1 {
					ea = append(ea, [3]float64{float64(i), float64(j), rng.Float64()})
				}
				if rng.Float64() < 0.15 {
					eb = append(eb, [3]float64{float64(i), float64(j), rng.Float64()})
				}
			}
		}
		ma, mb := csr(n, n, ea), csr(n, n, eb)
		nnz, err := sparse.MulNNZ(context.Background(), ma, mb, 1)
		if err != nil {
			t.Fatal(err)
		}
		if lb := dataProductNNZLowerBound(ma, mb); int64(lb) > nnz {
			t.Fatalf("trial %d: bound %d above the real count %d", trial, lb, nnz)
		}
		perm := rng.Perm(n)
		var ep [][3]float64
		for i := 0; i < n; i++ {
			ep = append(ep, [3]float64{float64(i), float64(perm[i]), 1})
		}
		mp := csr(n, n, ep)
		nnz, _ = sparse.MulNNZ(context.Background(), mp, mb, 1)
		if lb := dataProductNNZLowerBound(mp, mb); int64(lb) != nnz {
			t.Fatalf("trial %d: permutation bound %d, want the real count %d", trial, lb, nnz)
		}
	}
}

// dataIdentityFactors' X formed row by row (train.FactoredX.Dense with
// range [0, 1] on every column, the dense reference of the factored
// products) must equal the sparse chain S[keep,:]·S^{K−1} made dense bit
// for bit, for any number of workers (rows in blocks of 64, so n > 64).
func TestDataIdentityFactorsMatchSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := 300
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < 0.02 {
				w := rng.Float64()
				ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, w, w)
			}
		}
	}
	adj, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sparse.SymNormalize(adj)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	var keep []int
	for i := 0; i < n; i += 2 {
		keep = append(keep, i)
	}
	ctx := context.Background()
	for _, k := range []int{0, 1, 2, 3} {
		for _, rows := range [][]int{nil, keep} {
			want := sparse.Identity(n)
			if rows != nil {
				if want, err = want.Submatrix(rows, all); err != nil {
					t.Fatal(err)
				}
			}
			for range k {
				if want, err = sparse.Mul(ctx, want, s, 1); err != nil {
					t.Fatal(err)
				}
			}
			wd := want.ToDense()
			for _, workers := range []int{1, 2, 5} {
				a, b, err := dataIdentityFactors(ctx, s, k, rows, workers)
				if err != nil {
					t.Fatal(err)
				}
				f := &train.FactoredX{A: a, B: b}
				for j := 0; j < n; j++ {
					f.Cols, f.Lo, f.Hi = append(f.Cols, j), append(f.Lo, 0), append(f.Hi, 1)
				}
				got, err := f.Dense(ctx, workers)
				if err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(got, wd) {
					t.Fatalf("k %d, %d rows, %d workers: differs from the sparse product", k, len(rows), workers)
				}
			}
		}
	}
}

// Precompute with K = 0 on sparse features hands X on as its non-zeros
// (bundle.SetDenseRows) without forming it, and stores the bytes of the
// dense X it stored before: duplicates summed in stored order from +0 (a
// pair that cancels, a −0 that becomes +0), unsorted rows, explicit
// zeros; every row or the labelled ones.
func TestDataPrecomputeSparseFeaturesK0(t *testing.T) {
	n := 6
	adj, err := sparse.FromCOO(n, n, []int{0, 1, 2, 3, 4, 5}, []int{1, 0, 3, 2, 5, 4}, []float64{1, 1, 1, 1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	negZero := math.Copysign(0, -1)
	feats := &sparse.CSR{Rows: n, Cols: 5,
		Indptr:  []int{0, 3, 5, 5, 8, 10, 11},
		Indices: []int32{4, 0, 2, 1, 1, 3, 0, 3, 2, 2, 4},
		Data:    []float64{0.5, 1e-300, 2, 0.1, 0.2, 1, 7, -1, 0, negZero, 3},
	}
	g := &datasets.Graph{Name: "tiny", Source: "textgcn", Adj: adj, SparseFeatures: feats,
		Labels: []int{0, 1, -1, 1, 0, -1}, Classes: 2, Train: []int{0, 1}, Val: []int{3}, Test: []int{4}}
	ga, err := dataGraphArtifact(g)
	if err != nil {
		t.Fatal(err)
	}
	norm := learnRun(t, "normalize", nil, map[string][]*bundle.Bundle{"graph": {ga}}, 1, 1)["graph"]
	dense := feats.ToDense()
	for _, tc := range []struct {
		rows string
		keep []int
	}{{"all", nil}, {"labelled", []int{0, 1, 3, 4}}} {
		out := learnRun(t, "precompute", map[string]any{"k": 0, "rows": tc.rows}, map[string][]*bundle.Bundle{"graph": {norm}}, 1, 1)["features"]
		rows, ok := out.DenseRows(schema.MemberX)
		if !ok {
			t.Fatalf("rows %s: X was formed dense, want it given by its non-zeros", tc.rows)
		}
		want := dense
		if tc.keep != nil {
			want = dataSelectRows(dense, tc.keep)
		}
		ref := bundle.New(schema.KindFeatures)
		ref.SetDense(schema.MemberX, want)
		var got, exp bytes.Buffer
		if _, err := bundle.WriteMember(&got, out, schema.MemberX); err != nil {
			t.Fatal(err)
		}
		if _, err := bundle.WriteMember(&exp, ref, schema.MemberX); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), exp.Bytes()) {
			t.Fatalf("rows %s: X's .npy differs from the dense X's", tc.rows)
		}
		// Row 1 holds 0.1 + 0.2 summed in stored order; row 3's 1 + (−1)
		// cancels and its 0 entry is not a non-zero.
		if r := rows.Indptr[2] - rows.Indptr[1]; r != 1 || rows.Data[rows.Indptr[1]] != feats.Data[3]+feats.Data[4] {
			t.Fatalf("rows %s: row 1 is %v, want [0.1+0.2]", tc.rows, rows.Data[rows.Indptr[1]:rows.Indptr[2]])
		}
	}
	// Min-max scaling and the inductive view still form X dense.
	out := learnRun(t, "precompute", map[string]any{"k": 0, "scale": "minmax", "rows": "labelled"}, map[string][]*bundle.Bundle{"graph": {norm}}, 1, 1)["features"]
	if _, ok := out.DenseRows(schema.MemberX); ok {
		t.Fatal("scale = minmax: X given by its non-zeros")
	}
}
