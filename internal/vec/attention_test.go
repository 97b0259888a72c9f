package vec

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// attnRow is one destination row's inputs for the attention kernels.
type attnRow struct {
	idx       []int32
	di, src   []float64
	slope     float64
	mask      []uint8
	factor    float64
	heads     int
	nodes     int
	scoreSpan float64
}

// newAttnRow draws a row of deg edges among nodes sources, with scores of
// about ±span; every 7th source score is replaced by one of the special
// values when specials is set.
func newAttnRow(r *rand.Rand, heads, nodes, deg int, span float64, withMask, specials bool) attnRow {
	a := attnRow{heads: heads, nodes: nodes, slope: 0.2, factor: 1 / (1 - 0.6), scoreSpan: span}
	a.idx = make([]int32, deg)
	for p := range a.idx {
		a.idx[p] = int32(r.IntN(nodes))
	}
	a.di = randSlice(r, heads, span)
	a.src = randSlice(r, nodes*heads, span)
	if specials {
		sp := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), -800, 800, 1e300}
		for k := 0; k < len(a.src); k += 7 {
			a.src[k] = sp[(k/7)%len(sp)]
		}
	}
	if withMask {
		a.mask = make([]uint8, deg*heads)
		for e := range a.mask {
			a.mask[e] = uint8(r.IntN(2))
		}
	}
	return a
}

// run returns the coefficients and the dropped-out ones.
func (a attnRow) run() []float64 {
	n := len(a.idx) * a.heads
	al, da := make([]float64, n), make([]float64, n)
	AttnSoftmaxRow(a.idx, a.di, a.src, a.slope, al, a.mask, a.factor, da)
	return append(al, da...)
}

func TestAttnSoftmaxRowSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, heads := range []int{1, 3, 8, 17} {
		for _, deg := range []int{1, 2, 5, 40} {
			for _, span := range []float64{0.5, 30, 400} { // 400: Exp arguments below expLo, the portable fallback
				for _, withMask := range []bool{false, true} {
					for _, specials := range []bool{false, true} {
						a := newAttnRow(r, heads, 60, deg, span, withMask, specials)
						sameBits(t, fmt.Sprintf("AttnSoftmaxRow heads=%d deg=%d span=%g mask=%v specials=%v", heads, deg, span, withMask, specials),
							onEveryPath(t, a.run))
					}
				}
			}
		}
	}
}

// The eight-lane exponential against Exp on scores spread over the whole of
// the kernel's range: slope 1 makes the LeakyReLU the identity, and one
// edge per row scores 0, so Exp's arguments are −src.
func TestAttnSoftmaxRowExpRange(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const heads, deg = 8, 500
	for range 40 {
		a := attnRow{heads: heads, slope: 1, di: make([]float64, heads), src: make([]float64, deg*heads), idx: make([]int32, deg)}
		for p := range a.idx {
			a.idx[p] = int32(p)
		}
		for k := range a.src {
			a.src[k] = -708 * r.Float64()
			if k < heads {
				a.src[k] = 0
			}
		}
		sameBits(t, "AttnSoftmaxRow exp range", onEveryPath(t, a.run))
	}
}

func TestAttnSoftmaxRowBadSource(t *testing.T) {
	forEachPath(t, func(arch Arch) {
		for _, bad := range []int32{10, -1, 1 << 30} {
			al := make([]float64, 3*8)
			for k := range al {
				al[k] = 7
			}
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: source %d of 10: no panic", arch, bad)
					}
				}()
				AttnSoftmaxRow([]int32{0, bad, 1}, make([]float64, 8), make([]float64, 10*8), 0.2, al, nil, 0, nil)
			}()
			if arch != Generic { // the assembly checks the sources first
				for k, x := range al {
					if x != 7 {
						t.Errorf("%s: source %d: al[%d] written (%v) before the panic", arch, bad, k, x)
						break
					}
				}
			}
		}
	})
}

// The attention-weighted sums, against the plain loop over edges, heads
// and columns (each accumulator's terms in edge order), on every path:
// eight heads of eight columns (the AVX-512 kernel), other shapes, shared
// columns (gcol = 0), and sums onto a nonzero acc.
func TestAttnAggregateSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	const nodes = 30
	for _, shape := range []struct{ heads, c, gcol int }{{8, 8, 8}, {8, 3, 0}, {8, 3, 3}, {8, 1, 1}, {8, 2, 2}, {8, 4, 0}, {8, 4, 4}, {8, 5, 0}, {8, 8, 0}, {3, 4, 4}, {1, 7, 7}, {8, 16, 16}, {2, 5, 0}} {
		for _, deg := range []int{0, 1, 4, 33} {
			for _, extra := range []int{0, 5} { // row stride past the heads' columns
				stride := shape.heads*shape.gcol + extra
				if shape.gcol == 0 {
					stride = shape.c + extra
				}
				src := randSlice(r, nodes*stride, 1)
				idx := make([]int32, deg)
				for p := range idx {
					idx[p] = int32(r.IntN(nodes))
				}
				w := randSlice(r, deg*shape.heads, 1)
				if len(w) > 1 {
					w[1] = math.Copysign(0, -1)
				}
				src[2], src[stride+1] = math.Inf(1), math.NaN() // Inf·0, NaN through the sums
				acc0 := randSlice(r, shape.heads*shape.c, 1)
				want := append([]float64(nil), acc0...)
				for p, j := range idx {
					for m := range shape.heads {
						for q := range shape.c {
							want[m*shape.c+q] += float64(w[p*shape.heads+m] * src[int(j)*stride+m*shape.gcol+q])
						}
					}
				}
				res := onEveryPath(t, func() []float64 {
					acc := append([]float64(nil), acc0...)
					AttnAggregate(idx, w, shape.heads, shape.c, src, stride, shape.gcol, acc, nil)
					return acc
				})
				res[-1] = want // the loop, compared as another path
				sameBits(t, fmt.Sprintf("AttnAggregate %+v deg=%d stride=%d", shape, deg, stride), res)
			}
		}
	}
}

// Eight and three columns per head: the AVX2 path has a kernel for each.
func TestAttnAggregateBadSource(t *testing.T) {
	forEachPath(t, func(arch Arch) {
		for _, c := range []int{8, 3} {
			for _, bad := range []int32{10, -1} {
				acc := make([]float64, 8*c)
				func() {
					defer func() {
						if recover() == nil {
							t.Errorf("%s c=%d: source %d of 10: no panic", arch, c, bad)
						}
					}()
					AttnAggregate([]int32{0, bad}, make([]float64, 16), 8, c, make([]float64, 10*8*c), 8*c, c, acc, nil)
				}()
				for k, x := range acc {
					if x != 0 {
						t.Errorf("%s c=%d: source %d: acc[%d] written before the panic", arch, c, bad, k)
						break
					}
				}
			}
		}
	})
}

// attentionDigest is the sha256 of the attention kernels' and Exp's outputs
// on fixed inputs.
func attentionDigest() string {
	r := rand.New(rand.NewPCG(2026, 12))
	h := sha256.New()
	put := func(xs ...float64) {
		var b [8]byte
		for _, x := range xs {
			u := math.Float64bits(x)
			if x != x {
				// A NaN made by an operation is x86's negative default NaN
				// and arm64's positive one: the hardware's, not the
				// kernels'. (On one machine the paths must agree on it:
				// the same-bits tests compare NaNs bit for bit.)
				u = 0x7ff8000000000001
			}
			binary.LittleEndian.PutUint64(b[:], u)
			h.Write(b[:])
		}
	}
	for _, x := range expCases {
		put(Exp(x))
	}
	for range 1000 {
		// float64(·) keeps arm64 from fusing the input's product and sum.
		put(Exp(-750 + float64(1460*r.Float64())))
	}
	for _, heads := range []int{1, 8, 9} {
		for _, deg := range []int{1, 6, 33} {
			for _, span := range []float64{1, 50, 500} {
				put(newAttnRow(r, heads, 40, deg, span, deg%2 == 0, span == 50).run()...)
			}
		}
	}
	for _, deg := range []int{1, 9} {
		src := randSlice(r, 12*70, 1)
		idx := make([]int32, deg)
		for p := range idx {
			idx[p] = int32(r.IntN(12))
		}
		w := randSlice(r, deg*8, 1)
		for _, gcol := range []int{8, 0} {
			acc := randSlice(r, 64, 1)
			AttnAggregate(idx, w, 8, 8, src, 70, gcol, acc, nil)
			put(acc...)
		}
	}
	for _, shape := range [][2]int{{8, 8}, {8, 3}, {3, 2}} {
		heads, c := shape[0], shape[1]
		const nodes = 15
		row := newAttnRow(r, heads, nodes, 7, 3, true, false)
		al := make([]float64, 7*heads)
		AttnSoftmaxRow(row.idx, row.di, row.src, row.slope, al, nil, 0, nil)
		hm := randSlice(r, nodes*heads*c, 1)
		hT := make([]float64, len(hm))
		AttnTranspose(hm, heads*c, heads, c, hT, 0, nodes)
		gm, gdst := make([]float64, 7*heads), make([]float64, heads)
		AttnGradRow(row.idx, randSlice(r, heads*c, 1), c, hm, heads*c, c, hT, al, row.mask, row.factor, row.di, row.src, row.slope, gm, gdst)
		put(gm...)
		put(gdst...)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestAttentionGolden pins the attention kernels' outputs on every path of
// this CPU and on other architectures (CI runs it under qemu-aarch64).
func TestAttentionGolden(t *testing.T) {
	checkGolden(t, "attention kernels", "attention.sha256", attentionDigest)
}

// AttnGradRow on every path, against the portable code: eight heads of
// eight own columns (layer 1) and of three shared ones (the averaged output
// layer), other head counts, with and without a mask.
func TestAttnGradRowSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	const nodes = 25
	for _, shape := range []struct{ heads, c, gcol int }{{8, 8, 8}, {8, 3, 0}, {8, 1, 1}, {8, 16, 16}, {8, 17, 17}, {3, 4, 4}, {1, 7, 0}} {
		for _, deg := range []int{1, 2, 9, 30} {
			for _, withMask := range []bool{false, true} {
				heads, c := shape.heads, shape.c
				stride := heads*c + 3
				h := randSlice(r, nodes*stride, 1)
				h[5] = math.Copysign(0, -1)
				gi := randSlice(r, heads*c+3, 1)
				row := newAttnRow(r, heads, nodes, deg, 2, withMask, false)
				al := make([]float64, deg*heads)
				AttnSoftmaxRow(row.idx, row.di, row.src, row.slope, al, nil, 0, nil)
				hT := make([]float64, nodes*heads*c)
				AttnTranspose(h, stride, heads, c, hT, 0, nodes)
				sameBits(t, fmt.Sprintf("AttnGradRow %+v deg=%d mask=%v", shape, deg, withMask), onEveryPath(t, func() []float64 {
					gm, gdst := make([]float64, deg*heads), make([]float64, heads)
					AttnGradRow(row.idx, gi, shape.gcol, h, stride, c, hT, al, row.mask, row.factor, row.di, row.src, row.slope, gm, gdst)
					return append(gm, gdst...)
				}))
			}
		}
	}
}

func TestAttnGradRowBadSource(t *testing.T) {
	forEachPath(t, func(arch Arch) {
		const nodes = 10
		h, hT := make([]float64, nodes*64), make([]float64, nodes*64)
		gm := make([]float64, 16)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: source %d of %d: no panic", arch, nodes, nodes)
				}
			}()
			AttnGradRow([]int32{0, nodes}, make([]float64, 64), 8, h, 64, 8, hT, make([]float64, 16), nil, 0, make([]float64, 8), make([]float64, nodes*8), 0.2, gm, make([]float64, 8))
		}()
		if arch != Generic { // the assembly checks the sources first
			for k, x := range gm {
				if x != 0 {
					t.Errorf("%s: gm[%d] written before the panic", arch, k)
					break
				}
			}
		}
	})
}

// The per-source gathers and the input gradient's row, on every path
// against the portable code.
func TestAttnSourceKernelsSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	for _, heads := range []int{1, 3, 8} {
		for _, c := range []int{3, 8} {
			for _, ne := range []int{0, 1, 4, 19} {
				const nnz = 40
				ge, da := randSlice(r, nnz*heads, 1), randSlice(r, nnz*heads, 1)
				ge[0] = math.Copysign(0, -1)
				edges := make([]int, ne)
				for p := range edges {
					edges[p] = r.IntN(nnz)
				}
				acc, as, ad, gh0 := randSlice(r, heads*c, 1), randSlice(r, heads*c, 1), randSlice(r, heads*c, 1), randSlice(r, heads*c, 1)
				gd := randSlice(r, heads, 1)
				sameBits(t, fmt.Sprintf("AttnGatherEdges heads=%d c=%d ne=%d", heads, c, ne), onEveryPath(t, func() []float64 {
					gs, w := make([]float64, heads), make([]float64, ne*heads)
					AttnGatherEdges(edges, heads, ge, da, gs, w)
					gs2 := make([]float64, heads)
					AttnGatherEdges(edges, heads, ge, nil, gs2, nil)
					gh := append([]float64(nil), gh0...)
					AttnInputGradRow(acc, gs, gd, as, ad, c, gh)
					return slices.Concat(gs, w, gs2, gh)
				}))
			}
		}
	}
	forEachPath(t, func(arch Arch) {
		gs := make([]float64, 8)
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: edge 5 of 5: no panic", arch)
				}
			}()
			AttnGatherEdges([]int{1, 5}, 8, make([]float64, 40), make([]float64, 40), gs, make([]float64, 16))
		}()
	})
}
