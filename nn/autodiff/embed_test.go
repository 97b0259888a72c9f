package autodiff

import (
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
