package sparse

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cputime"
	"gonum.org/v1/gonum/mat"
)

// randCSR returns a random rows×cols matrix with about density·rows·cols entries.
func randCSR(rng *rand.Rand, rows, cols int, density float64) *CSR {
	var ri, ci []int
	var v []float64
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if rng.Float64() < density {
				ri = append(ri, i)
				ci = append(ci, j)
				v = append(v, rng.NormFloat64())
			}
		}
	}
	m, err := FromCOO(rows, cols, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return m
}

// randGraph returns a random symmetric 0/1 adjacency without self loops.
func randGraph(rng *rand.Rand, n int, p float64) *CSR {
	var ri, ci []int
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if rng.Float64() < p {
				ri = append(ri, i, j)
				ci = append(ci, j, i)
			}
		}
	}
	m, err := FromCOO(n, n, ri, ci, nil)
	if err != nil {
		panic(err)
	}
	return m
}

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	d := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d.Set(i, j, rng.NormFloat64())
		}
	}
	return d
}

func assertClose(t *testing.T, what string, got, want mat.Matrix, tol float64) {
	t.Helper()
	gr, gc := got.Dims()
	wr, wc := want.Dims()
	if gr != wr || gc != wc {
		t.Fatalf("%s: shape %dx%d, want %dx%d", what, gr, gc, wr, wc)
	}
	for i := 0; i < gr; i++ {
		for j := 0; j < gc; j++ {
			g, w := got.At(i, j), want.At(i, j)
			if math.Abs(g-w) > tol*(1+math.Abs(w)) {
				t.Fatalf("%s: (%d,%d) = %v, want %v", what, i, j, g, w)
			}
		}
	}
}

func TestFromCOOSumsDuplicatesAndSorts(t *testing.T) {
	m, err := FromCOO(3, 4, []int{2, 0, 2, 0, 2}, []int{3, 1, 0, 1, 3}, []float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := m.CheckSorted(); err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 4, []float64{0, 6, 0, 0, 0, 0, 0, 0, 3, 0, 0, 6})
	assertClose(t, "FromCOO", m.ToDense(), want, 0)
	if m.NNZ() != 3 {
		t.Fatalf("nnz = %d, want 3", m.NNZ())
	}
	for _, tc := range []struct {
		name   string
		ri, ci []int
	}{
		{"row too big", []int{3}, []int{0}},
		{"negative col", []int{0}, []int{-1}},
		{"col too big", []int{0}, []int{4}},
	} {
		if _, err := FromCOO(3, 4, tc.ri, tc.ci, nil); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestTransposeSubmatrixNormalize(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := randCSR(rng, 37, 23, 0.2)
	var tr mat.Dense
	tr.CloneFrom(m.ToDense().T())
	assertClose(t, "Transpose", m.Transpose().ToDense(), &tr, 0)

	rows, cols := []int{5, 0, 36, 5}, []int{22, 3, 0, 7}
	sub, err := m.Submatrix(rows, cols)
	if err != nil {
		t.Fatal(err)
	}
	d := m.ToDense()
	want := mat.NewDense(len(rows), len(cols), nil)
	for a, r := range rows {
		for b, c := range cols {
			want.Set(a, b, d.At(r, c))
		}
	}
	assertClose(t, "Submatrix", sub.ToDense(), want, 0)
	if err := sub.CheckSorted(); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Submatrix([]int{0}, []int{1, 1}); err == nil {
		t.Error("repeated column: no error")
	}
	if _, err := m.Submatrix([]int{37}, []int{1}); err == nil {
		t.Error("row out of range: no error")
	}

	// S = D^-1/2 (A+I) D^-1/2 against a dense computation.
	a := randGraph(rng, 40, 0.1)
	s, err := SymNormalize(a)
	if err != nil {
		t.Fatal(err)
	}
	ad := a.ToDense()
	n, _ := ad.Dims()
	deg := make([]float64, n)
	for i := 0; i < n; i++ {
		ad.Set(i, i, ad.At(i, i)+1)
		deg[i] = mat.Sum(ad.RowView(i))
	}
	ws := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			ws.Set(i, j, ad.At(i, j)/math.Sqrt(deg[i]*deg[j]))
		}
	}
	assertClose(t, "SymNormalize", s.ToDense(), ws, 1e-15)
	if !s.IsSymmetric() {
		t.Error("S not symmetric")
	}
	// The largest eigenvalue of S is 1 (eigenvector D^1/2·1).
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, ws.RawMatrix().Data), false) {
		t.Fatal("eigen failed")
	}
	vals := eig.Values(nil)
	if math.Abs(vals[len(vals)-1]-1) > 1e-12 {
		t.Errorf("largest eigenvalue of S = %v, want 1", vals[len(vals)-1])
	}

	r := RowNormalize(m)
	for i, s := range r.RowSums() {
		orig := m.RowSums()[i]
		if orig != 0 && math.Abs(s-1) > 1e-12 {
			t.Errorf("row %d sums to %v after RowNormalize", i, s)
		}
	}
}

func TestProductsMatchDense(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name    string
		n, d    int
		p       float64
		workers int
	}{
		{"tiny", 5, 3, 0.5, 1},
		{"one block", 200, 7, 0.05, 2},
		{"many blocks", 1500, 9, 0.004, 3},
		{"empty graph", 300, 4, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := randGraph(rng, tc.n, tc.p)
			s, err := SymNormalize(a)
			if err != nil {
				t.Fatal(err)
			}
			x := randDense(rng, tc.n, tc.d)
			sd := s.ToDense()

			got, err := MulDense(ctx, s, x, tc.workers)
			if err != nil {
				t.Fatal(err)
			}
			var want mat.Dense
			want.Mul(sd, x)
			assertClose(t, "MulDense", got, &want, 1e-13)

			for k := 0; k <= 3; k++ {
				want := mat.DenseCopyOf(x)
				for i := 0; i < k; i++ {
					var nx mat.Dense
					nx.Mul(sd, want)
					want = &nx
				}
				pk, err := PowerDense(ctx, s, x, k, tc.workers)
				if err != nil {
					t.Fatal(err)
				}
				assertClose(t, "PowerDense", pk, want, 1e-12)
				rows := []int{tc.n - 1, 0, tc.n / 2, 0}
				pr, err := PowerDenseRows(ctx, s, x, k, rows, tc.workers)
				if err != nil {
					t.Fatal(err)
				}
				for a, r := range rows {
					for j := 0; j < tc.d; j++ {
						if pr.At(a, j) != pk.At(r, j) {
							t.Fatalf("PowerDenseRows k=%d row %d col %d = %v, PowerDense %v", k, r, j, pr.At(a, j), pk.At(r, j))
						}
					}
				}
			}

			b := randCSR(rng, tc.n, 11, 0.1)
			prod, err := Mul(ctx, s, b, tc.workers)
			if err != nil {
				t.Fatal(err)
			}
			if err := prod.Validate(); err != nil {
				t.Fatal(err)
			}
			if err := prod.CheckSorted(); err != nil {
				t.Fatal(err)
			}
			if nnz, err := MulNNZ(ctx, s, b, tc.workers); err != nil || nnz != int64(prod.NNZ()) {
				t.Fatalf("MulNNZ = %d (%v), product has %d entries", nnz, err, prod.NNZ())
			}
			var wp mat.Dense
			wp.Mul(sd, b.ToDense())
			assertClose(t, "Mul", prod.ToDense(), &wp, 1e-13)
		})
	}
}

func TestProductsDeterministicAcrossWorkers(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	s, _ := SymNormalize(randGraph(rng, 3000, 0.003))
	x := randDense(rng, 3000, 5)
	ref, err := PowerDense(ctx, s, x, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 8} {
		got, _ := PowerDense(ctx, s, x, 3, w)
		if !mat.Equal(got, ref) {
			t.Fatalf("PowerDense with %d workers differs from 1 worker", w)
		}
		m1, _ := Mul(ctx, s, s, 1)
		mw, _ := Mul(ctx, s, s, w)
		if !Equal(m1, mw) {
			t.Fatalf("Mul with %d workers differs", w)
		}
	}
}

func TestProductErrorsAndCancel(t *testing.T) {
	ctx := context.Background()
	s := Identity(4)
	if _, err := MulDense(ctx, s, mat.NewDense(3, 2, nil), 1); err == nil {
		t.Error("MulDense shape mismatch: no error")
	}
	if _, err := PowerDense(ctx, s, mat.NewDense(4, 2, nil), -1, 1); err == nil {
		t.Error("negative k: no error")
	}
	if _, err := PowerDenseRows(ctx, s, mat.NewDense(4, 2, nil), 1, []int{4}, 1); err == nil {
		t.Error("row out of range: no error")
	}
	if _, err := Mul(ctx, s, Identity(5), 1); err == nil {
		t.Error("Mul shape mismatch: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	rng := rand.New(rand.NewPCG(7, 8))
	big, _ := SymNormalize(randGraph(rng, 2000, 0.002))
	if _, err := PowerDense(cctx, big, randDense(rng, 2000, 3), 2, 2); err == nil {
		t.Error("canceled context: no error")
	}
}

// BenchmarkPowerDenseK2 times S²X for a random graph (cpu-s/op is the
// process CPU time, steadier than the wall time on a shared machine).
func BenchmarkPowerDenseK2(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 20000
	// ~10 neighbours per node
	var ri, ci []int
	for i := 0; i < n; i++ {
		for e := 0; e < 5; e++ {
			j := rng.IntN(n)
			ri = append(ri, i, j)
			ci = append(ci, j, i)
		}
	}
	a, _ := FromCOO(n, n, ri, ci, nil)
	s, _ := SymNormalize(a)
	x := randDense(rng, n, 500)
	for _, w := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[w], func(b *testing.B) {
			cpu0 := cputime.Process()
			for b.Loop() {
				if _, err := PowerDense(context.Background(), s, x, 2, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// TestRowParallelOpsMatchSerial checks AddIdentity, SymNormalize and
// Submatrix on matrices of many row blocks bit for bit against one-pass
// definitions built with FromCOO (which sums repeated entries in input
// order and sorts stably), including rows that already hold their diagonal.
func TestRowParallelOpsMatchSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	const n = 3000
	a := randCSR(rng, n, n, 0.004)
	for k := range a.Data {
		a.Data[k] = float64(1 + rng.IntN(3))
	}
	// A + I: every entry, then a 1 on each diagonal (summed after the entry).
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			ri, ci, v = append(ri, i), append(ci, int(a.Indices[p])), append(v, a.Data[p])
		}
		ri, ci, v = append(ri, i), append(ci, i), append(v, 1)
	}
	want, err := FromCOO(n, n, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := a.AddIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if !Equal(got, want) {
		t.Fatal("AddIdentity differs from the one-pass definition")
	}
	// SymNormalize: entries of A+I times inv[i]·inv[j], inv = 1/√(row sum).
	s, err := SymNormalize(a)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		var di float64
		for p := want.Indptr[i]; p < want.Indptr[i+1]; p++ {
			di += want.Data[p]
		}
		for p := want.Indptr[i]; p < want.Indptr[i+1]; p++ {
			j := int(want.Indices[p])
			var dj float64
			for q := want.Indptr[j]; q < want.Indptr[j+1]; q++ {
				dj += want.Data[q]
			}
			w := want.Data[p] * ((1 / math.Sqrt(di)) * (1 / math.Sqrt(dj)))
			if s.Indices[p] != want.Indices[p] || math.Float64bits(s.Data[p]) != math.Float64bits(w) {
				t.Fatalf("SymNormalize entry %d of row %d: (%d, %v), want (%d, %v)", p, i, s.Indices[p], s.Data[p], want.Indices[p], w)
			}
		}
	}
	// Submatrix with shuffled rows (one repeated) and columns, dense and
	// map lookups.
	for _, nc := range []int{n / 2, n / 20} {
		rows := rng.Perm(n)[:n/2]
		rows = append(rows, rows[0])
		cols := rng.Perm(n)[:nc]
		pos := map[int]int{}
		for b, c := range cols {
			pos[c] = b
		}
		ri, ci, v = nil, nil, nil
		for x, r := range rows {
			for p := a.Indptr[r]; p < a.Indptr[r+1]; p++ {
				if b, ok := pos[int(a.Indices[p])]; ok {
					ri, ci, v = append(ri, x), append(ci, b), append(v, a.Data[p])
				}
			}
		}
		wantSub, err := FromCOO(len(rows), len(cols), ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		sub, err := a.Submatrix(rows, cols)
		if err != nil {
			t.Fatal(err)
		}
		if !Equal(sub, wantSub) {
			t.Fatalf("Submatrix with %d columns differs from the one-pass definition", nc)
		}
	}
}
