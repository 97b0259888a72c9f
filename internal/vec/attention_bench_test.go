package vec

import (
	"math/rand/v2"
	"testing"
)

// benchPaths runs f as a sub-benchmark on each path of this CPU.
func benchPaths(b *testing.B, f func(b *testing.B)) {
	for _, a := range Available() {
		b.Run(a.String(), func(b *testing.B) {
			restore, err := Use(a)
			if err != nil {
				b.Fatal(err)
			}
			defer restore()
			f(b)
		})
	}
}

// The attention kernels on rows of Pubmed's mean degree (about five edges
// and a self loop) among 20 000 nodes, eight heads of eight columns.
const benchNodes, benchDeg = 20000, 6

func benchRows(r *rand.Rand, rows int) [][]int32 {
	idx := make([][]int32, rows)
	for i := range idx {
		idx[i] = make([]int32, benchDeg)
		for p := range idx[i] {
			idx[i][p] = int32(r.IntN(benchNodes))
		}
	}
	return idx
}

func BenchmarkAttnSoftmaxRow(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	rows := benchRows(r, 1024)
	di, src := randSlice(r, 8, 2), randSlice(r, benchNodes*8, 2)
	al, da := make([]float64, benchDeg*8), make([]float64, benchDeg*8)
	mask := make([]uint8, benchDeg*8)
	for e := range mask {
		mask[e] = uint8(r.IntN(2))
	}
	benchPaths(b, func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			AttnSoftmaxRow(rows[i%len(rows)], di, src, 0.2, al, mask, 2.5, da)
		}
	})
}

func BenchmarkAttnAggregate(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	rows := benchRows(r, 1024)
	w, src := randSlice(r, benchDeg*8, 1), randSlice(r, benchNodes*64, 1)
	acc := make([]float64, 64)
	var wt []float64
	benchPaths(b, func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			wt = AttnAggregate(rows[i%len(rows)], w, 8, 8, src, 64, 8, acc, wt)
		}
	})
}

func BenchmarkAttnGradRow(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	rows := benchRows(r, 1024)
	h := randSlice(r, benchNodes*64, 1)
	hT := make([]float64, len(h))
	AttnTranspose(h, 64, 8, 8, hT, 0, benchNodes)
	gi, al := randSlice(r, 64, 1), randSlice(r, benchDeg*8, 1)
	di, src := randSlice(r, 8, 2), randSlice(r, benchNodes*8, 2)
	gm, gdst := make([]float64, benchDeg*8), make([]float64, 8)
	benchPaths(b, func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			AttnGradRow(rows[i%len(rows)], gi, 8, h, 64, 8, hT, al, nil, 0, di, src, 0.2, gm, gdst)
		}
	})
}
