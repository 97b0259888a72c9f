package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// oneHot returns the len(index)×cols CSR matrix with a one at (i, index[i])
// for every index[i] ≥ 0: the input EmbedRows stands for.
func oneHot(index []int, cols int) *sparse.CSR {
	m := &sparse.CSR{Rows: len(index), Cols: cols, Indptr: []int{0}}
	for _, k := range index {
		if k >= 0 {
			m.Indices = append(m.Indices, int32(k))
			m.Data = append(m.Data, 1)
		}
		m.Indptr = append(m.Indptr, len(m.Data))
	}
	return m
}

func TestEmbedRows(t *testing.T) {
	cases := []struct {
		name  string
		index []int
		p     float64
	}{
		{"identity", []int{0, 1, 2, 3, 4}, 0},
		{"identity-dropout", []int{0, 1, 2, 3, 4}, 0.5},
		{"missing-rows", []int{0, -1, 3, 1, -1, 4, 2}, 0},
		{"missing-rows-dropout", []int{0, -1, 3, 1, -1, 4, 2}, 0.3},
		{"repeated-rows", []int{2, 2, -1, 0}, 0.4},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(11, 3))
			w := randDense(rng, 5, 3)
			r := randDense(rng, len(tc.index), 3)
			g := randGraph(rng, len(tc.index), 2)
			sp := NewSparse(g)
			// The gradient through a following sparse product and ReLU.
			checkGrad(t, tc.name, []*mat.Dense{w}, func(tp *Tape, ps []*Node) *Node {
				return project(tp, tp.ReLU(tp.SpMM(sp, tp.EmbedRows(ps[0], tc.index, tc.p, rand.New(rand.NewPCG(5, 9))))), r)
			})

			// The value is SpMMDropout's on the one-hot matrix with the
			// same draws, bit for bit, and so is the gradient.
			tp := New(1)
			a := tp.Param(w)
			got := tp.EmbedRows(a, tc.index, tc.p, rand.New(rand.NewPCG(5, 9)))
			if err := tp.Backward(project(tp, got, r)); err != nil {
				t.Fatal(err)
			}
			tp2 := New(1)
			b := tp2.Param(w)
			want := tp2.SpMMDropout(oneHot(tc.index, 5), b, tc.p, rand.New(rand.NewPCG(5, 9)))
			if err := tp2.Backward(project(tp2, want, r)); err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(got.Value, want.Value) {
				t.Errorf("value\n%v\nwant (one-hot SpMMDropout)\n%v", mat.Formatted(got.Value), mat.Formatted(want.Value))
			}
			if !mat.Equal(a.Grad, b.Grad) {
				t.Errorf("gradient\n%v\nwant\n%v", mat.Formatted(a.Grad), mat.Formatted(b.Grad))
			}
			// Rows without an input are zero; with p = 0 the others are w's rows.
			for i, k := range tc.index {
				row := got.Value.RawRowView(i)
				for j, v := range row {
					switch {
					case k < 0 && v != 0:
						t.Errorf("row %d (no input) column %d = %v, want 0", i, j, v)
					case k >= 0 && tc.p == 0 && v != w.At(k, j):
						t.Errorf("row %d column %d = %v, want w[%d][%d] = %v", i, j, v, k, j, w.At(k, j))
					case k >= 0 && tc.p > 0 && v != 0 && v != w.At(k, j)*(1/(1-tc.p)):
						t.Errorf("row %d column %d = %v, want 0 or w·1/(1-p) = %v", i, j, v, w.At(k, j)*(1/(1-tc.p)))
					}
				}
			}
		})
	}
}

func TestEmbedRowsDropoutRate(t *testing.T) {
	// Over many rows, the fraction dropped is near p and every kept row
	// is scaled by 1/(1−p).
	const n, p = 20000, 0.5
	index := make([]int, n)
	w := mat.NewDense(n, 1, nil)
	for i := range index {
		index[i] = i
		w.Set(i, 0, 1)
	}
	tp := New(1)
	out := tp.EmbedRows(tp.Param(w), index, p, rand.New(rand.NewPCG(1, 2)))
	dropped := 0
	for i := 0; i < n; i++ {
		switch v := out.Value.At(i, 0); v {
		case 0:
			dropped++
		case 2:
		default:
			t.Fatalf("row %d = %v, want 0 or 2", i, v)
		}
	}
	if f := float64(dropped) / n; f < 0.48 || f > 0.52 {
		t.Errorf("dropped fraction %.4f, want about %.2f", f, p)
	}
}

func TestEmbedRowsPanicsOnBadIndex(t *testing.T) {
	for _, index := range [][]int{{0, 5}, {}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("EmbedRows(%v) on 5 rows did not panic", index)
				}
			}()
			tp := New(1)
			tp.EmbedRows(tp.Param(mat.NewDense(5, 2, nil)), index, 0, nil)
		}()
	}
}

// TestSpMMEmbedRowsSameBits checks SpMMEmbedRows against SpMM of
// EmbedRows bit for bit — the value, W's gradient and the draws left in
// the generator — with and without dropout, rows without input, entries of
// both signs in the graph, 1 and 2 workers, and over two recycled steps
// (reused buffers full of NaNs, so an unwritten entry that is read shows).
// The graph has 3000 nodes and x 200 columns, so the products run in
// segments (sparse's 4 MiB of x), as TextGCN's do.
func TestSpMMEmbedRowsSameBits(t *testing.T) {
	poisonFull = true
	defer func() { poisonFull = false }()
	rng := rand.New(rand.NewPCG(41, 42))
	const n, c = 3000, 200
	g := randGraph(rng, n, 6)
	for q := range g.Data {
		if rng.IntN(4) == 0 {
			g.Data[q] = -g.Data[q]
		}
	}
	sp := NewSparse(g)
	w := randDense(rng, n, c)
	for i := 0; i < 40; i++ { // some zero weights, of both signs
		w.Set(rng.IntN(n), rng.IntN(c), math.Copysign(0, float64(i%2)-0.5))
	}
	r := randDense(rng, n, c)
	index := make([]int, n)
	for i := range index {
		index[i] = i
		if rng.IntN(10) == 0 {
			index[i] = -1
		}
	}
	for _, p := range []float64{0, 0.5} {
		for _, workers := range []int{1, 2} {
			run := func(fused bool) (vals, grads []*mat.Dense, next uint64) {
				tp := New(workers)
				draws := rand.New(rand.NewPCG(7, 8))
				for step := 0; step < 2; step++ {
					tp.Recycle()
					a := tp.Param(w)
					var out *Node
					if fused {
						out = tp.SpMMEmbedRows(sp, a, index, p, draws)
					} else {
						out = tp.SpMM(sp, tp.EmbedRows(a, index, p, draws))
					}
					if err := tp.Backward(project(tp, tp.ReLU(out), r)); err != nil {
						t.Fatal(err)
					}
					vals, grads = append(vals, mat.DenseCopyOf(out.Value)), append(grads, mat.DenseCopyOf(a.Grad))
				}
				return vals, grads, draws.Uint64()
			}
			wantV, wantG, wantNext := run(false)
			gotV, gotG, gotNext := run(true)
			for step := range wantV {
				if d := firstBitDiff(gotV[step], wantV[step]); d != "" {
					t.Errorf("p %v, %d workers, step %d: value %s", p, workers, step, d)
				}
				if d := firstBitDiff(gotG[step], wantG[step]); d != "" {
					t.Errorf("p %v, %d workers, step %d: gradient %s", p, workers, step, d)
				}
			}
			if gotNext != wantNext {
				t.Errorf("p %v, %d workers: the generator is left in another state", p, workers)
			}
		}
	}
}

// firstBitDiff describes the first entry where a and b differ in their
// bits, or returns "".
func firstBitDiff(a, b *mat.Dense) string {
	ad, bd := a.RawMatrix().Data, b.RawMatrix().Data
	if len(ad) != len(bd) {
		return fmt.Sprintf("has %d entries, want %d", len(ad), len(bd))
	}
	for k := range ad {
		if math.Float64bits(ad[k]) != math.Float64bits(bd[k]) {
			return fmt.Sprintf("entry %d = %v, want %v", k, ad[k], bd[k])
		}
	}
	return ""
}
