package autodiff

import (
	"context"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/internal/vec"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"
)

// The products A·B and Aᵀ·B of MatMul skip A's zero entries — half or more
// of a hidden layer after ReLU and dropout — with the bits of gonum's
// native BLAS, the default blas64. Its Dgemm computes every entry of C as
// Σ_l a·b over l in increasing order, from zero, each product rounded
// before it is added (f64.AxpyUnitary: a multiplication, then an
// addition), and skips the terms whose a is zero (±0; a NaN is kept); its
// parallel blocks only split C. vec.SpMMRow adds a row's terms the same
// way, so a sparse×dense product over A's non-zeros, in the same order,
// gives the same bits, on every kernel path. With another BLAS in blas64
// (the openblas build), whose sums are ordered its own way, MatMul calls
// it as before.

// matMulRowBlock is the number of output rows a worker takes at a time.
const matMulRowBlock = 64

// nativeBLAS reports whether blas64 is gonum's native implementation,
// whose bits mulSkipZeros and mulTransSkipZeros reproduce.
func nativeBLAS() bool {
	_, ok := blas64.Implementation().(gonum.Implementation)
	return ok
}

// mulSkipZeros sets c = a·b (c is r×n for an r×k a and a k×n b) over a's
// non-zero entries, with the bits of gonum's Dgemm.
func (t *Tape) mulSkipZeros(a, b, c *mat.Dense) {
	ar, bw, cw := a.RawMatrix(), b.RawMatrix(), c.RawMatrix()
	parallel.Balanced(context.Background(), ar.Rows, matMulRowBlock, t.Workers, func(lo, hi int) {
		idx, val := make([]int32, ar.Cols+vec.CompressSlack), make([]float64, ar.Cols+vec.CompressSlack)
		for i := lo; i < hi; i++ {
			n := vec.CompressNonzeros(ar.Data[i*ar.Stride:i*ar.Stride+ar.Cols], idx, val)
			vec.SpMMRow(idx[:n], val[:n], bw.Data, bw.Stride, cw.Data[i*cw.Stride:i*cw.Stride+cw.Cols], false)
		}
	})
}

// mulTransSkipZeros sets c = aᵀ·b (c is m×n for a k×m a and a k×n b) over
// a's non-zero entries, with the bits of gonum's Dgemm: row i of c is +0
// plus a[l][i]·b[l] (each product rounded, then added) for the non-zero
// a[l][i], l increasing. The workers split c's rows (a's columns) in one
// block each; a worker clears its rows, then for each row l of a in order
// compresses the non-zeros of its columns (vec.CompressNonzeros) and
// scatters them times b's row l into its rows of c (vec.ScatterRow), so
// every entry of c takes its terms in the order of l. Each worker reads a
// only in its columns, b in order, and writes only its rows of c: no
// column lists of a to build and fill by scattered writes first, one
// thread at a time, which took most of the product's time.
func (t *Tape) mulTransSkipZeros(a, b, c *mat.Dense) {
	ar, bw, cw := a.RawMatrix(), b.RawMatrix(), c.RawMatrix()
	n := bw.Cols
	workers := max(t.Workers, 1)
	size := (ar.Cols + workers - 1) / workers
	parallel.Blocks(context.Background(), ar.Cols, size, workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			clear(cw.Data[i*cw.Stride : i*cw.Stride+n])
		}
		if n == 0 {
			return
		}
		idx, val := make([]int32, hi-lo+vec.CompressSlack), make([]float64, hi-lo+vec.CompressSlack)
		dst := cw.Data[lo*cw.Stride:]
		for l := 0; l < ar.Rows; l++ {
			k := vec.CompressNonzeros(ar.Data[l*ar.Stride+lo:l*ar.Stride+hi], idx, val)
			vec.ScatterRow(idx[:k], val[:k], bw.Data[l*bw.Stride:l*bw.Stride+n], dst, cw.Stride)
		}
	})
}

// gonumBlock is gonum's Dgemm block: with an inner dimension up to it,
// every entry of a product is one f64.DotUnitary (past it, the parallel
// path sums the blocks' dot products).
const gonumBlock = 64

// mulByTransGonum sets c = g·bᵀ (c is r×m for an r×k g and an m×k b, k ≤
// gonumBlock) with the bits of gonum's Dgemm, row by row on the workers:
// each row of c is vec.GonumDots of g's row with bᵀ, which makes eight
// columns of c the lanes of one register (two on the AVX2 path) where
// gonum calls DotUnitary once per entry. MatMul's backward pass uses it
// for its input's gradient.
func (t *Tape) mulByTransGonum(g, b, c *mat.Dense) {
	gr, br, cr := g.RawMatrix(), b.RawMatrix(), c.RawMatrix()
	bt := t.floatsFull(br.Rows * br.Cols) // bᵀ, k×m
	for j := 0; j < br.Rows; j++ {
		for q, x := range br.Data[j*br.Stride : j*br.Stride+br.Cols] {
			bt[q*br.Rows+j] = x
		}
	}
	parallel.Balanced(context.Background(), gr.Rows, matMulRowBlock, t.Workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			vec.GonumDots(gr.Data[i*gr.Stride:i*gr.Stride+gr.Cols], bt, br.Rows, cr.Data[i*cr.Stride:i*cr.Stride+cr.Cols])
		}
	})
}
