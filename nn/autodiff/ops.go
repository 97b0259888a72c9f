package autodiff

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/internal/vec"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// MatMul returns a·b.
func (t *Tape) MatMul(a, b *Node) *Node {
	if a.Cols() != b.Rows() {
		panic(fmt.Sprintf("autodiff: MatMul of %d×%d and %d×%d", a.Rows(), a.Cols(), b.Rows(), b.Cols()))
	}
	native := nativeBLAS()
	v := t.dense(a.Rows(), b.Cols())
	if native {
		t.mulSkipZeros(a.Value, b.Value, v)
	} else {
		v.Mul(a.Value, b.Value)
	}
	return t.record(v, func(out *Node) {
		// Every entry of each product is written, a sum from +0.
		if a.needs {
			g, fresh := a.gradTarget()
			// vec.GonumDots on the vector paths (amd64, where gonum's
			// DotUnitary is the assembly whose sums it reproduces); the
			// portable path calls gonum.
			if native && vec.Active() != vec.Generic && b.Cols() <= gonumBlock {
				t.mulByTransGonum(out.Grad, b.Value, g)
			} else {
				g.Mul(out.Grad, b.Value.T())
			}
			a.addGrad(g, fresh)
		}
		if b.needs {
			g, fresh := b.gradTarget()
			if native {
				t.mulTransSkipZeros(a.Value, out.Grad, g)
			} else {
				g.Mul(a.Value.T(), out.Grad)
			}
			b.addGrad(g, fresh)
		}
	}, a, b)
}

// Sparse is a fixed sparse matrix with its transpose, for SpMM.
type Sparse struct {
	A, AT *sparse.CSR
	// sortedA and sortedAT record that A's and AT's rows are sorted
	// (NewSparse checks once), so that a product need not check again.
	sortedA, sortedAT bool
}

// NewSparse returns a with its transpose. Neither may change afterwards.
func NewSparse(a *sparse.CSR) *Sparse {
	at := a.Transpose()
	return &Sparse{A: a, AT: at, sortedA: a.CheckSorted() == nil, sortedAT: at.CheckSorted() == nil}
}

// SpMM returns s.A·x (the sparse matrix is a constant).
func (t *Tape) SpMM(s *Sparse, x *Node) *Node {
	if s.A.Cols != x.Rows() {
		panic(fmt.Sprintf("autodiff: SpMM of %d×%d and %d×%d", s.A.Rows, s.A.Cols, x.Rows(), x.Cols()))
	}
	v := t.mulSparse(s.A, x.Value, s.sortedA)
	return t.record(v, func(out *Node) {
		g, fresh := x.gradTarget()
		t.mulSparseTo(s.AT, out.Grad, s.sortedAT, g) // sums from +0
		x.addGrad(g, fresh)
	}, x)
}

// mulSparse returns a·x in a matrix from the tape's buffers (MulDense's
// bits), so that recycled memory serves the large products. sorted says
// a's rows are known to be sorted.
func (t *Tape) mulSparse(a *sparse.CSR, x *mat.Dense, sorted bool) *mat.Dense {
	_, c := x.Dims()
	if a.Rows == 0 || c == 0 {
		v, err := sparse.MulDense(context.Background(), a, x, t.Workers)
		if err != nil {
			panic(err) // shapes were checked
		}
		return v
	}
	v := t.denseFull(a.Rows, c) // the product writes every entry
	t.mulSparseTo(a, x, sorted, v)
	return v
}

// mulSparseTo sets v = a·x (MulDense's bits: every entry written, a sum
// from +0).
func (t *Tape) mulSparseTo(a *sparse.CSR, x *mat.Dense, sorted bool, v *mat.Dense) {
	if _, c := x.Dims(); a.Rows == 0 || c == 0 {
		return // nothing to write
	}
	if err := sparse.MulDenseRowsTo(context.Background(), a, x, v, nil, sorted, t.Workers); err != nil {
		panic(err) // shapes were checked
	}
}

// SpMMDropout returns (M∘A)·x where M keeps each stored entry of A with
// probability 1−p and scales kept entries by 1/(1−p): dropout on sparse
// inputs (Kipf & Welling's sparse_dropout). The mask is drawn from rng, one
// Float64 per stored entry in row order. p = 0 is SpMM. It transposes a on
// every call; SpMMDrop with a Sparse made once does not.
func (t *Tape) SpMMDropout(a *sparse.CSR, x *Node, p float64, rng *rand.Rand) *Node {
	return t.SpMMDrop(NewSparse(a), x, p, rng)
}

// dropColBlock is the unit of the column blocks SpMMDrop's backward pass
// hands to its workers.
const dropColBlock = 8

// SpMMDrop is SpMMDropout on s.A (the same draws, values and gradients)
// without transposing anything per step: a pass without dropout is SpMM
// with s's transpose; with dropout, the kept entries form a smaller matrix
// M (the dropped ones are exact zeros, whose products add nothing to a sum
// of finite terms), the forward pass is M·x and the backward pass adds
// Mᵀ·g by scattering each kept entry's row of g into x's gradient, rows in
// order, so each entry sums the same terms in the same order as a product
// with Mᵀ; workers split the columns.
func (t *Tape) SpMMDrop(s *Sparse, x *Node, p float64, rng *rand.Rand) *Node {
	if p <= 0 {
		return t.SpMM(s, x)
	}
	a := s.A
	if a.Cols != x.Rows() {
		panic(fmt.Sprintf("autodiff: SpMM of %d×%d and %d×%d", a.Rows, a.Cols, x.Rows(), x.Cols()))
	}
	// Every entry is written at the next free place, which advances only
	// if it is kept: no branch on the draw, which is unpredictable.
	m := &sparse.CSR{Rows: a.Rows, Cols: a.Cols, Indptr: make([]int, a.Rows+1)}
	idx, val := t.int32s(len(a.Data)), t.floats(len(a.Data))
	keep := 1 / (1 - p)
	d := newDropDraw(p)
	w := 0
	for i := 0; i < a.Rows; i++ {
		for k := a.Indptr[i]; k < a.Indptr[i+1]; k++ {
			idx[w], val[w] = a.Indices[k], a.Data[k]*keep
			w += b2i(d.keep(rng))
		}
		m.Indptr[i+1] = w
	}
	m.Indices, m.Data = idx[:w], val[:w]
	v := t.mulSparse(m, x.Value, s.sortedA) // a subset of A's entries, in order
	return t.record(v, func(out *Node) {
		r, c := x.Value.Dims()
		g, fresh := x.gradTarget() // every entry is written below, a sum from +0
		gd, od := g.RawMatrix(), out.Grad.RawMatrix()
		// A block per worker when the columns allow, in whole groups of
		// dropColBlock: each block is a pass over M's entries. A block sums
		// into an r×(hi−lo) array of its own, copied into g at the end:
		// workers adding into different columns of the same rows of g
		// stall each other (twice the work took five times as long).
		workers := max(t.Workers, 1)
		size := max(dropColBlock, (c+workers*dropColBlock-1)/(workers*dropColBlock)*dropColBlock)
		part := t.floats(r * c) // block [lo, hi) at part[r·lo:], row stride hi − lo
		parallel.Blocks(context.Background(), c, size, workers, func(_, lo, hi int) {
			w := hi - lo
			acc := part[r*lo : r*hi]
			for i := 0; i < m.Rows; i++ {
				k0, k1 := m.Indptr[i], m.Indptr[i+1]
				vec.ScatterRow(m.Indices[k0:k1], m.Data[k0:k1], od.Data[i*od.Stride+lo:i*od.Stride+hi], acc, w)
			}
			for j := range r {
				copy(gd.Data[j*gd.Stride+lo:j*gd.Stride+hi], acc[j*w:(j+1)*w])
			}
		})
		x.addGrad(g, fresh)
	}, x)
}

// AddBias adds the 1×c row b to every row of x.
func (t *Tape) AddBias(x, b *Node) *Node {
	if b.Rows() != 1 || b.Cols() != x.Cols() {
		panic(fmt.Sprintf("autodiff: AddBias of %d×%d to %d columns", b.Rows(), b.Cols(), x.Cols()))
	}
	r, c := x.Value.Dims()
	v := t.dense(r, c)
	bias := b.Value.RawRowView(0)
	for i := 0; i < r; i++ {
		row, xr := v.RawRowView(i), x.Value.RawRowView(i)
		for j := range row {
			row[j] = xr[j] + bias[j]
		}
	}
	return t.record(v, func(out *Node) {
		if x.needs {
			x.grad().Add(x.Grad, out.Grad)
		}
		if b.needs {
			gb := b.grad().RawRowView(0)
			for i := 0; i < r; i++ {
				for j, g := range out.Grad.RawRowView(i) {
					gb[j] += g
				}
			}
		}
	}, x, b)
}

// elementwise records y = f(x) elementwise with dy/dx = df(x, y).
func (t *Tape) elementwise(x *Node, f func(float64) float64, df func(x, y float64) float64) *Node {
	r, c := x.Value.Dims()
	v := t.dense(r, c)
	for i := 0; i < r; i++ {
		xr, vr := x.Value.RawRowView(i), v.RawRowView(i)
		for j, xv := range xr {
			vr[j] = f(xv)
		}
	}
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for i := 0; i < r; i++ {
			xr, vr, gr, gxr := x.Value.RawRowView(i), out.Value.RawRowView(i), out.Grad.RawRowView(i), gx.RawRowView(i)
			for j := range xr {
				gxr[j] += gr[j] * df(xr[j], vr[j])
			}
		}
	}, x)
}

// ReLU returns max(x, 0) elementwise (gradient 0 at 0, as PyTorch).
// Its loops are written out (elementwise's with the functions inlined:
// the same operations, without a call per entry).
func (t *Tape) ReLU(x *Node) *Node {
	r, c := x.Value.Dims()
	v := t.denseFull(r, c)
	for i := 0; i < r; i++ {
		xr, vr := x.Value.RawRowView(i), v.RawRowView(i)
		for j, xv := range xr {
			vr[j] = math.Max(xv, 0)
		}
	}
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for i := 0; i < r; i++ {
			xr, gr, gxr := x.Value.RawRowView(i), out.Grad.RawRowView(i), gx.RawRowView(i)
			for j, xv := range xr {
				d := 0.0
				if xv > 0 {
					d = 1
				}
				gxr[j] += gr[j] * d
			}
		}
	}, x)
}

// ELU returns x for x > 0 and e^x − 1 otherwise (α = 1). Its loops are
// written out as ReLU's.
func (t *Tape) ELU(x *Node) *Node {
	r, c := x.Value.Dims()
	v := t.denseFull(r, c)
	for i := 0; i < r; i++ {
		xr, vr := x.Value.RawRowView(i), v.RawRowView(i)
		for j, xv := range xr {
			if xv > 0 {
				vr[j] = xv
			} else {
				vr[j] = math.Expm1(xv)
			}
		}
	}
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for i := 0; i < r; i++ {
			xr, vr, gr, gxr := x.Value.RawRowView(i), out.Value.RawRowView(i), out.Grad.RawRowView(i), gx.RawRowView(i)
			for j, xv := range xr {
				d := 1.0
				if !(xv > 0) {
					d = vr[j] + 1
				}
				gxr[j] += gr[j] * d
			}
		}
	}, x)
}

// LeakyReLU returns x for x > 0 and slope·x otherwise.
func (t *Tape) LeakyReLU(x *Node, slope float64) *Node {
	return t.elementwise(x, func(v float64) float64 {
		if v > 0 {
			return v
		}
		return slope * v
	}, func(x, _ float64) float64 {
		if x > 0 {
			return 1
		}
		return slope
	})
}

// Dropout zeroes each entry with probability p and scales the others by
// 1/(1−p) (inverted dropout, as PyTorch in training mode). The mask takes
// one rng.Float64 per entry in row-major order. p = 0 returns x.
func (t *Tape) Dropout(x *Node, p float64, rng *rand.Rand) *Node {
	if p <= 0 {
		return x
	}
	r, c := x.Value.Dims()
	mask := t.floatsFull(r * c)
	// mask[k] = keep if the draw keeps entry k, else 0: selected by index
	// (the draw is unpredictable, a branch on it mispredicts half the time).
	sel := [2]float64{0, 1 / (1 - p)}
	d := newDropDraw(p)
	for k := range mask {
		mask[k] = sel[b2i(d.keep(rng))]
	}
	v := t.dense(r, c)
	for i := 0; i < r; i++ {
		xr, vr := x.Value.RawRowView(i), v.RawRowView(i)
		for j := range xr {
			vr[j] = xr[j] * mask[i*c+j]
		}
	}
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for i := 0; i < r; i++ {
			gr, gxr := out.Grad.RawRowView(i), gx.RawRowView(i)
			for j := range gr {
				gxr[j] += gr[j] * mask[i*c+j]
			}
		}
	}, x)
}

// ColSlice returns columns [lo, hi) of x.
func (t *Tape) ColSlice(x *Node, lo, hi int) *Node {
	r, c := x.Value.Dims()
	if lo < 0 || hi > c || lo >= hi {
		panic(fmt.Sprintf("autodiff: ColSlice [%d, %d) of %d columns", lo, hi, c))
	}
	v := mat.DenseCopyOf(x.Value.Slice(0, r, lo, hi))
	return t.record(v, func(out *Node) {
		gx := x.grad()
		for i := 0; i < r; i++ {
			gxr := gx.RawRowView(i)[lo:hi]
			for j, g := range out.Grad.RawRowView(i) {
				gxr[j] += g
			}
		}
	}, x)
}

// ConcatCols returns [x1 x2 …] side by side (all with the same rows).
func (t *Tape) ConcatCols(xs ...*Node) *Node {
	r, total := xs[0].Rows(), 0
	for _, x := range xs {
		if x.Rows() != r {
			panic(fmt.Sprintf("autodiff: ConcatCols of %d and %d rows", r, x.Rows()))
		}
		total += x.Cols()
	}
	v := t.dense(r, total)
	off := 0
	for _, x := range xs {
		v.Slice(0, r, off, off+x.Cols()).(*mat.Dense).Copy(x.Value)
		off += x.Cols()
	}
	return t.record(v, func(out *Node) {
		off := 0
		for _, x := range xs {
			c := x.Cols()
			if x.needs {
				x.grad().Add(x.Grad, out.Grad.Slice(0, r, off, off+c))
			}
			off += c
		}
	}, xs...)
}

// Mean returns the elementwise mean of same-shaped nodes (the average of
// attention heads).
func (t *Tape) Mean(xs ...*Node) *Node {
	v := mat.DenseCopyOf(xs[0].Value)
	for _, x := range xs[1:] {
		same("Mean", xs[0], x)
		v.Add(v, x.Value)
	}
	inv := 1 / float64(len(xs))
	v.Scale(inv, v)
	return t.record(v, func(out *Node) {
		var tmp mat.Dense
		tmp.Scale(inv, out.Grad)
		for _, x := range xs {
			if x.needs {
				x.grad().Add(x.Grad, &tmp)
			}
		}
	}, xs...)
}

// Add returns a + b (same shapes).
func (t *Tape) Add(a, b *Node) *Node {
	same("Add", a, b)
	var v mat.Dense
	v.Add(a.Value, b.Value)
	return t.record(&v, func(out *Node) {
		for _, x := range []*Node{a, b} {
			if x.needs {
				x.grad().Add(x.Grad, out.Grad)
			}
		}
	}, a, b)
}

// Scale returns f·x.
func (t *Tape) Scale(x *Node, f float64) *Node {
	var v mat.Dense
	v.Scale(f, x.Value)
	return t.record(&v, func(out *Node) {
		var tmp mat.Dense
		tmp.Scale(f, out.Grad)
		x.grad().Add(x.Grad, &tmp)
	}, x)
}

// SumSquares returns the 1×1 value Σ x² (so ½·wd·SumSquares is the L2
// penalty whose gradient wd·x PyTorch's weight_decay adds).
func (t *Tape) SumSquares(x *Node) *Node {
	var s float64
	r, _ := x.Value.Dims()
	for i := 0; i < r; i++ {
		for _, v := range x.Value.RawRowView(i) {
			s += v * v
		}
	}
	return t.record(mat.NewDense(1, 1, []float64{s}), func(out *Node) {
		g := 2 * out.Grad.At(0, 0)
		gx := x.grad()
		for i := 0; i < r; i++ {
			xr, gr := x.Value.RawRowView(i), gx.RawRowView(i)
			for j, v := range xr {
				gr[j] += g * v
			}
		}
	}, x)
}

// CrossEntropy returns the mean over the given rows of
// −log softmax(logits_row)[labels[row]] (PyTorch's F.cross_entropy on
// logits[rows]), as a 1×1 node. labels is indexed by row of logits; it
// returns an error for an empty row set or a label outside [0, C).
func (t *Tape) CrossEntropy(logits *Node, rows, labels []int) (*Node, error) {
	n, c := logits.Value.Dims()
	if len(rows) == 0 {
		return nil, fmt.Errorf("autodiff: cross-entropy over no rows")
	}
	if len(labels) != n {
		return nil, fmt.Errorf("autodiff: cross-entropy: %d labels for %d rows", len(labels), n)
	}
	probs := make([]float64, len(rows)*c)
	var total float64
	for k, i := range rows {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("autodiff: cross-entropy: row %d outside 0..%d", i, n-1)
		}
		y := labels[i]
		if y < 0 || y >= c {
			return nil, fmt.Errorf("autodiff: cross-entropy: row %d has label %d, want 0..%d", i, y, c-1)
		}
		row := logits.Value.RawRowView(i)
		mx := row[0]
		for _, v := range row[1:] {
			mx = math.Max(mx, v)
		}
		var s float64
		p := probs[k*c : (k+1)*c]
		for j, v := range row {
			p[j] = math.Exp(v - mx)
			s += p[j]
		}
		for j := range p {
			p[j] /= s
		}
		total += mx + math.Log(s) - row[y]
	}
	m := float64(len(rows))
	return t.record(mat.NewDense(1, 1, []float64{total / m}), func(out *Node) {
		g := out.Grad.At(0, 0) / m
		gl := logits.grad()
		for k, i := range rows {
			gr := gl.RawRowView(i)
			p := probs[k*c : (k+1)*c]
			for j := range gr {
				gr[j] += g * p[j]
			}
			gr[labels[i]] -= g
		}
	}, logits), nil
}

// dropDraw decides dropout's draws as rng.Float64() >= p does, from the
// same one Uint64 per draw, without the conversion to a float: Float64 is
// x/2^53 for the low 53 bits x of the draw, exactly, so Float64() ≥ p
// exactly when x ≥ ⌈p·2^53⌉ (p·2^53 is exact: a power of two). The
// models' draws, and with them every artifact, keep their bits.
type dropDraw struct{ min uint64 }

func newDropDraw(p float64) dropDraw {
	switch {
	case math.IsNaN(p) || p >= 1:
		return dropDraw{min: math.MaxUint64} // Float64() < 1: never kept
	case p <= 0:
		return dropDraw{}
	}
	return dropDraw{min: uint64(math.Ceil(p * (1 << 53)))}
}

// keep draws once from rng and reports whether the entry is kept.
func (d dropDraw) keep(rng *rand.Rand) bool {
	return rng.Uint64()&(1<<53-1) >= d.min
}
