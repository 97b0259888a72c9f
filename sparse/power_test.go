package sparse

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// refMul is m·x computed entry by entry in plain Go: each entry is the sum of
// the row's rounded products in stored order, the arithmetic the package
// promises whatever kernel, column blocking or worker count it uses.
func refMul(m *CSR, x [][]float64) [][]float64 {
	out := make([][]float64, m.Rows)
	for i := range out {
		out[i] = make([]float64, len(x[0]))
		for c := range out[i] {
			acc := 0.0
			for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
				acc += float64(m.Data[p] * x[m.Indices[p]][c])
			}
			out[i][c] = acc
		}
	}
	return out
}

// TestPowerDenseBitIdentical checks MulDense and PowerDense bit for bit
// against refMul for widths around the kernels' 8- and 32-column runs and
// the column blocks, several powers and worker counts.
func TestPowerDenseBitIdentical(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(11, 12))
	s, err := SymNormalize(randGraph(rng, 700, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range []int{1, 7, 8, 17, 31, 32, 33, 64, 101} {
		x := randDense(rng, s.Rows, cols)
		rows := make([][]float64, s.Rows)
		for i := range rows {
			rows[i] = mat.Row(nil, i, x)
		}
		want := rows
		for k := 1; k <= 3; k++ {
			want = refMul(s, want)
			for _, workers := range []int{1, 2, 3} {
				t.Run(fmt.Sprintf("cols=%d/k=%d/workers=%d", cols, k, workers), func(t *testing.T) {
					got, err := PowerDense(ctx, s, x, k, workers)
					if err != nil {
						t.Fatal(err)
					}
					if k == 1 {
						if got, err = MulDense(ctx, s, x, workers); err != nil {
							t.Fatal(err)
						}
					}
					for i, row := range want {
						for c, w := range row {
							if g := got.At(i, c); math.Float64bits(g) != math.Float64bits(w) {
								t.Fatalf("(%d,%d) = %v (%#x), want %v (%#x)", i, c, g, math.Float64bits(g), w, math.Float64bits(w))
							}
						}
					}
				})
			}
		}
	}
}
