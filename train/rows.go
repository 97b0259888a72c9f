package train

import "github.com/hylaflow/hylaflow/internal/vec"

// The row kernels of the classifier's products. Their loops live in
// internal/vec (AVX-512, AVX2+FMA or portable Go, identical bits on every
// path); the names keep the AVX512 suffix of the path whose arithmetic
// defines them (eight lanes, fused multiply-adds, a fixed reduction).

// rowDots4AVX512 is vec.RowDots for four rows x[0…3] (each of length d)
// into out[0…3]: same sums, same bits, with four rows sharing each load of
// y in groups of four classes.
func rowDots4AVX512(x *[4][]float64, y []float64, stride int, out *[4][]float64) {
	d := len(x[0])
	nb := d / 8
	c := len(out[0])
	if c == 0 {
		return
	}
	if d == 0 || nb == 0 {
		for t := range x {
			vec.RowDots(x[t], y, stride, out[t])
		}
		return
	}
	_ = y[(c-1)*stride+d-1]
	for t := range x {
		_ = x[t][d-1]
		_ = out[t][c-1]
	}
	var acc [128]float64
	k := 0
	for ; k < c && c >= 4; k += 4 {
		// The last group of four ends at the last class (overlapping the
		// one before it, whose sums it recomputes to the same bits).
		k = min(k, c-4)
		vec.Dots4x4(x, y[k*stride:], stride, &acc)
		for t := 0; t < 4; t++ {
			xt := x[t]
			for kk := 0; kk < 4; kk++ {
				s := vec.Lanes8((*[8]float64)(acc[8*(4*t+kk) : 8*(4*t+kk)+8]))
				yc := y[(k+kk)*stride : (k+kk)*stride+d]
				for j := nb * 8; j < d; j++ {
					s += float64(xt[j] * yc[j])
				}
				out[t][k+kk] = s
			}
		}
	}
	for ; k < c; k++ {
		yc := y[k*stride : k*stride+d]
		for t := 0; t < 4; t++ {
			xt := x[t]
			vec.Dot1(xt, yc, (*[8]float64)(acc[:8]))
			s := vec.Lanes8((*[8]float64)(acc[:8]))
			for j := nb * 8; j < d; j++ {
				s += float64(xt[j] * yc[j])
			}
			out[t][k] = s
		}
	}
}

// gtxPackLen is the length of the pack buffer gtxRangeAVX512 needs for C
// classes.
func gtxPackLen(c int) int { return 4 * max(c, gtxRowChunk) }

// gtxRangeAVX512 sets columns [j0, j1) of out (C×d) to Gᵀ·X for G (n×C)
// and X (n×d). Tiles of 32 columns × 4 classes go through
// gtxTilesAVX512 (the last, narrower one through gtxTileMaskedAVX512): per
// chunk of gtxRowChunk rows a sum in row order (fused multiply-adds from
// zero), added to the output chunk after chunk. Every entry is a fixed
// sequence of operations on its column, so the result does not depend on
// how the columns are split at multiples of 32. gp is scratch of length
// gtxPackLen(C).
func gtxRangeAVX512(g, x, out, gp []float64, gStride, xStride, outStride, n, c, j0, j1 int) {
	for k := 0; k < c; k++ {
		clear(out[k*outStride+j0 : k*outStride+j1])
	}
	if n == 0 || c == 0 {
		return
	}
	_ = out[(c-1)*outStride+j1-1]
	_ = x[(n-1)*xStride+j1-1]
	_ = g[(n-1)*gStride+c-1]
	ntiles := (j1 - j0) / 32
	if ntiles > 0 {
		gp = gp[:4*gtxRowChunk]
		for r0 := 0; r0 < n; r0 += gtxRowChunk {
			rows := min(gtxRowChunk, n-r0)
			for c0 := 0; c0 < c; c0 += 4 {
				nc := min(4, c-c0)
				gtxPack(gp, g, gStride, r0, rows, c0, nc)
				vec.GtxTiles(gp, x[r0*xStride+j0:], xStride, rows, out[c0*outStride+j0:], outStride, ntiles, nc)
			}
		}
	}
	if jt := j0 + 32*ntiles; jt < j1 {
		// The last columns: one narrower tile.
		gp = gp[:4*gtxRowChunk]
		for r0 := 0; r0 < n; r0 += gtxRowChunk {
			rows := min(gtxRowChunk, n-r0)
			for c0 := 0; c0 < c; c0 += 4 {
				nc := min(4, c-c0)
				gtxPack(gp, g, gStride, r0, rows, c0, nc)
				vec.GtxTile(gp, x[r0*xStride+jt:], xStride, rows, out[c0*outStride+jt:], outStride, j1-jt, nc)
			}
		}
	}
}

// gtxPack copies classes [c0, c0+nc) of G's rows [r0, r0+rows) into gp as
// rows of four (zero-padded past nc), the layout the Gᵀ·X tiles read.
func gtxPack(gp, g []float64, gStride, r0, rows, c0, nc int) {
	for r := 0; r < rows; r++ {
		gr := g[(r0+r)*gStride+c0 : (r0+r)*gStride+c0+nc]
		p := (*[4]float64)(gp[4*r : 4*r+4])
		*p = [4]float64{}
		copy(p[:], gr)
	}
}
