package vec

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Guard bands around the attention kernels' arguments (guard_test.go): the
// eight-head kernels of every path read and write nothing outside their
// slices, which are as short as the documentation allows (src ends with
// the last source's last column), and give the portable code's bits.
func TestGuardAttention(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	const heads, nodes = 8, 5
	idxOf := func(deg int) []int32 {
		idx := make([]int32, deg)
		for p := range idx {
			idx[p] = int32(r.IntN(nodes))
		}
		idx[deg-1] = nodes - 1 // the last row, which ends at the guard
		return idx
	}
	for deg := 1; deg <= 6; deg++ {
		for off := range 8 {
			for _, withMask := range []bool{false, true} {
				idx := idxOf(deg)
				var mask []uint8
				das := 0
				if withMask {
					mask = make([]uint8, deg*heads)
					for e := range mask {
						mask[e] = uint8(r.IntN(2))
					}
					das = deg * heads
				}
				args := []*arg{
					newArg("di", heads, o2(off), uniform(r, 2), nil),
					newArg("src", nodes*heads, o3(off), uniform(r, 2), nil),
					newArg("al", deg*heads, off, uniform(r, 1), every),
					newArg("da", das, o2(off), uniform(r, 1), every),
				}
				checkGuarded(t, fmt.Sprintf("AttnSoftmaxRow deg=%d off=%d mask=%v", deg, off, withMask), args, func(s [][]float64) ([]float64, bool) {
					AttnSoftmaxRow(idx, s[0], s[1], 0.2, s[2], mask, 2.5, s[3])
					return nil, true
				})
			}
		}
	}
	for _, c := range []int{1, 2, 3, 4, 5, 8, 9} {
		for _, shared := range []bool{false, true} {
			for _, extra := range []int{0, 3} {
				for _, deg := range []int{1, 2, 7} {
					off := (c + deg + extra) % 8
					gcol, stride := c, heads*c+extra
					if shared {
						gcol, stride = 0, c+extra
					}
					idx := idxOf(deg)
					n := (nodes-1)*stride + 7*gcol + c
					args := []*arg{
						newArg("w", deg*heads, o2(off), uniform(r, 1), nil),
						newArg("src", n, o3(off), uniform(r, 1), nil),
						newArg("acc", heads*c, off, uniform(r, 1), every),
					}
					checkGuarded(t, fmt.Sprintf("AttnAggregate c=%d gcol=%d stride=%d deg=%d", c, gcol, stride, deg), args, func(s [][]float64) ([]float64, bool) {
						AttnAggregate(idx, s[0], heads, c, s[1], stride, gcol, s[2], nil)
						return nil, true
					})
				}
			}
		}
	}
	for _, c := range []int{1, 3, 8, 16} {
		for _, deg := range []int{1, 2, 7} {
			for _, withMask := range []bool{false, true} {
				off := (c + deg) % 8
				idx := idxOf(deg)
				var mask []uint8
				if withMask {
					mask = make([]uint8, deg*heads)
					for e := range mask {
						mask[e] = uint8(r.IntN(2))
					}
				}
				h := randSlice(r, nodes*heads*c, 1)
				hT := make([]float64, len(h))
				AttnTranspose(h, heads*c, heads, c, hT, 0, nodes)
				args := []*arg{
					newArg("gi", heads*c, o2(off), uniform(r, 1), nil),
					newArg("h", len(h), o3(off), func(i int) float64 { return h[i] }, nil),
					newArg("hT", len(hT), off, func(i int) float64 { return hT[i] }, nil),
					newArg("al", deg*heads, o2(off), uniform(r, 1), nil),
					newArg("di", heads, o3(off), uniform(r, 2), nil),
					newArg("src", nodes*heads, off, uniform(r, 2), nil),
					newArg("gm", deg*heads, o2(off), uniform(r, 1), every),
					newArg("gdst", heads, o3(off), uniform(r, 1), every),
				}
				checkGuarded(t, fmt.Sprintf("AttnGradRow c=%d deg=%d mask=%v", c, deg, withMask), args, func(s [][]float64) ([]float64, bool) {
					AttnGradRow(idx, s[0], c, s[1], heads*c, c, s[2], s[3], mask, 2.5, s[4], s[5], 0.2, s[6], s[7])
					return nil, true
				})
			}
		}
	}
	for ne := 1; ne <= 5; ne++ {
		for off := range 8 {
			const nnz = 6
			edges := make([]int, ne)
			for p := range edges {
				edges[p] = r.IntN(nnz)
			}
			edges[ne-1] = nnz - 1
			args := []*arg{
				newArg("ge", nnz*heads, o2(off), uniform(r, 1), nil),
				newArg("da", nnz*heads, o3(off), uniform(r, 1), nil),
				newArg("gs", heads, off, uniform(r, 1), every),
				newArg("w", ne*heads, o2(off), uniform(r, 1), every),
				newArg("gs2", heads, o3(off), uniform(r, 1), every),
			}
			checkGuarded(t, fmt.Sprintf("AttnGatherEdges ne=%d off=%d", ne, off), args, func(s [][]float64) ([]float64, bool) {
				AttnGatherEdges(edges, heads, s[0], s[1], s[2], s[3])
				AttnGatherEdges(edges, heads, s[0], nil, s[4], nil)
				return nil, true
			})
		}
	}
	for off := range 8 {
		const c = 8
		args := []*arg{
			newArg("acc", heads*c, o2(off), uniform(r, 1), nil),
			newArg("gs", heads, o3(off), uniform(r, 1), nil),
			newArg("gd", heads, off, uniform(r, 1), nil),
			newArg("as", heads*c, o2(off), uniform(r, 1), nil),
			newArg("ad", heads*c, o3(off), uniform(r, 1), nil),
			newArg("gh", heads*c, off, uniform(r, 1), every),
		}
		checkGuarded(t, fmt.Sprintf("AttnInputGradRow off=%d", off), args, func(s [][]float64) ([]float64, bool) {
			AttnInputGradRow(s[0], s[1], s[2], s[3], s[4], c, s[5])
			return nil, true
		})
	}
}
