package sparse

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cputime"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkPowerDenseScale times S²X on a graph at a tenth of Reddit's
// scale with Reddit's average degree (~50 neighbours, no locality, like the
// synthetic SBM) and 64 feature columns: the gathers miss the cache unless
// the product works in narrow column blocks.
func BenchmarkPowerDenseScale(b *testing.B) {
	rng := rand.New(rand.NewPCG(13, 14))
	n := 23000
	var ri, ci []int
	for i := 0; i < n; i++ {
		for e := 0; e < 25; e++ {
			j := rng.IntN(n)
			ri = append(ri, i, j)
			ci = append(ci, j, i)
		}
	}
	a, _ := FromCOO(n, n, ri, ci, nil)
	s, _ := SymNormalize(a)
	x := randDense(rng, n, 602)
	b.ResetTimer()
	cpu0 := cputime.Process()
	for b.Loop() {
		if _, err := PowerDense(context.Background(), s, x, 2, 2); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkMulDenseR8Like times one product of TextGCN's first layer on a
// graph of R8's corpus size: 15 362 nodes, about 3.5 million stored entries
// with no locality, by a 200-column x (24.6 MB, larger than the caches),
// and by an 8-column one (the second layer's).
//
//	go test ./sparse -run '^$' -bench MulDenseR8Like -cpu 1
func BenchmarkMulDenseR8Like(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	n, pairs := 15362, 1_750_000
	ri, ci := make([]int, 0, 2*pairs+n), make([]int, 0, 2*pairs+n)
	for i := range n {
		ri, ci = append(ri, i), append(ci, i)
	}
	for range pairs {
		i, j := rng.IntN(n), rng.IntN(n)
		ri, ci = append(ri, i, j), append(ci, j, i)
	}
	a, err := FromCOO(n, n, ri, ci, nil)
	if err != nil {
		b.Fatal(err)
	}
	if a, err = SymNormalize(a); err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{200, 8} {
		x := randDense(rng, n, w)
		out := mat.NewDense(n, w, nil)
		b.Run(fmt.Sprintf("cols=%d", w), func(b *testing.B) {
			cpu0 := cputime.Process()
			for b.Loop() {
				if err := MulDenseTo(context.Background(), a, x, out, 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
