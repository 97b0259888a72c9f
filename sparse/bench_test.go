package sparse

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cputime"
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
