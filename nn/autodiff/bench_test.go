package autodiff

import (
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/cputime"
	"github.com/hylaflow/hylaflow/sparse"
)

// benchGraph returns a graph of Pubmed's size: 19 717 nodes, self loops
// and 44 000 random undirected edges (about 5.4 entries per row).
func benchGraph(b *testing.B) *AttnGraph {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	n, edges := 19717, 44000
	var ri, ci []int
	var v []float64
	for i := range n {
		ri, ci, v = append(ri, i), append(ci, i), append(v, 1)
	}
	for range edges {
		i, j := rng.IntN(n), rng.IntN(n)
		ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, 1, 1)
	}
	g, err := sparse.FromCOO(n, n, ri, ci, v)
	if err != nil {
		b.Fatal(err)
	}
	ag, err := NewAttnGraph(g)
	if err != nil {
		b.Fatal(err)
	}
	return ag
}

// BenchmarkGATHeads times one training step of a GAT layer on a
// Pubmed-sized graph (GATHeads forward with attention dropout, then its
// backward pass), on one worker, in CPU time (user + system, which a busy
// machine changes less than the wall time): the first layer (8 heads of 8 units,
// concatenated) and the second (8 heads of 3 classes, averaged). The
// previous implementation is timed alongside (prev) for comparison.
//
//	go test -run '^$' -bench GATHeads -cpu 1 ./nn/autodiff
func BenchmarkGATHeads(b *testing.B) {
	ag := benchGraph(b)
	n := ag.G.Rows
	for _, l := range []struct {
		name     string
		heads, c int
		mean     bool
	}{{"layer1", 8, 8, false}, {"layer2", 8, 3, true}} {
		rng := rand.New(rand.NewPCG(3, 3))
		params := gatParams(rng, n, l.heads, l.c)
		width := l.heads * l.c
		if l.mean {
			width = l.c
		}
		r := randDense(rng, n, width)
		for _, impl := range []string{"prev", "new"} {
			b.Run(l.name+"/"+impl, func(b *testing.B) {
				tp := New(1)
				drng := rand.New(rand.NewPCG(4, 4))
				cpu0 := cputime.Process()
				for b.Loop() {
					tp.Recycle()
					nodes := make([]*Node, len(params))
					for i, p := range params {
						nodes[i] = tp.Param(p)
					}
					h, as, ad := split(nodes, l.heads)
					var out *Node
					if impl == "prev" {
						out = tp.gatHeadsPrev(ag, h, as, ad, 0.2, 0.6, drng, l.mean)
					} else {
						out = tp.GATHeads(ag, h, as, ad, 0.2, 0.6, drng, l.mean)
					}
					if err := tp.Backward(project(tp, out, r)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cputime.Process()-cpu0).Seconds()*1e3/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
