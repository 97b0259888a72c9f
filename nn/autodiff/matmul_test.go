package autodiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/internal/vec"
	"gonum.org/v1/gonum/mat"
)

// TestMatMulSkipZerosSameBits checks MatMul's products over A's non-zeros
// against gonum's Dgemm (mat.Dense.Mul, the native BLAS) bit for bit: A·B
// and Aᵀ·B for shapes around the kernels' 4- and 8-column blocks and
// gonum's 64-wide parallel blocks, A with zeros of both signs (a hidden
// layer after ReLU and dropout), infinities in B, 1 and 3 workers.
func TestMatMulSkipZerosSameBits(t *testing.T) {
	if !nativeBLAS() {
		t.Skip("blas64 is not gonum's native BLAS (openblas build): MatMul calls it")
	}
	rng := rand.New(rand.NewPCG(43, 44))
	for _, sh := range []struct{ r, k, n int }{
		{1, 1, 1}, {3, 5, 2}, {7, 13, 4}, {17, 9, 8}, {40, 33, 12}, {65, 200, 52}, {300, 130, 1}, {260, 70, 47},
	} {
		a := randDense(rng, sh.r, sh.k)
		for i := 0; i < sh.r; i++ {
			for l := 0; l < sh.k; l++ {
				switch rng.IntN(4) {
				case 0:
					a.Set(i, l, 0)
				case 1:
					a.Set(i, l, math.Copysign(0, -1))
				}
			}
		}
		b := randDense(rng, sh.k, sh.n)
		if sh.k > 2 {
			b.Set(1, 0, math.Inf(1))
			b.Set(2, 0, math.Inf(-1))
		}
		g := randDense(rng, sh.r, sh.n)
		for _, workers := range []int{1, 3} {
			name := fmt.Sprintf("%dx%d·%dx%d/%d workers", sh.r, sh.k, sh.k, sh.n, workers)
			tp := New(workers)
			want := mat.NewDense(sh.r, sh.n, nil)
			want.Mul(a, b)
			got := mat.NewDense(sh.r, sh.n, nil)
			tp.mulSkipZeros(a, b, got)
			if d := firstBitDiff(got, want); d != "" {
				t.Errorf("%s: A·B %s", name, d)
			}
			wantT := mat.NewDense(sh.k, sh.n, nil)
			wantT.Mul(a.T(), g)
			gotT := mat.NewDense(sh.k, sh.n, nil)
			for i := range gotT.RawMatrix().Data {
				gotT.RawMatrix().Data[i] = math.NaN() // every entry is written
			}
			tp.mulTransSkipZeros(a, g, gotT)
			if d := firstBitDiff(gotT, wantT); d != "" {
				t.Errorf("%s: Aᵀ·G %s", name, d)
			}
			if sh.n <= gonumBlock { // the input's gradient G·Bᵀ, on every kernel path
				wantG := mat.NewDense(sh.r, sh.k, nil)
				wantG.Mul(g, b.T())
				for _, arch := range vec.Available() {
					restore, err := vec.Use(arch)
					if err != nil {
						t.Fatal(err)
					}
					gotG := mat.NewDense(sh.r, sh.k, nil)
					for i := range gotG.RawMatrix().Data {
						gotG.RawMatrix().Data[i] = math.NaN() // every entry is written
					}
					tp.mulByTransGonum(g, b, gotG)
					restore()
					if d := firstBitDiff(gotG, wantG); d != "" {
						t.Errorf("%s: G·Bᵀ on %s %s", name, arch, d)
					}
				}
			}
		}
	}
}

// heldBytes is what a recycling tape keeps between passes: its free and
// owned buffers, in bytes.
func (t *Tape) heldBytes() int {
	n := 0
	for _, l := range t.free {
		for _, b := range l {
			n += 8 * len(b)
		}
	}
	for _, l := range t.freeInt32 {
		for _, b := range l {
			n += 4 * len(b)
		}
	}
	for _, l := range t.freeBytes {
		for _, b := range l {
			n += len(b)
		}
	}
	for _, b := range t.owned {
		n += 8 * len(b)
	}
	for _, b := range t.ownedInt32 {
		n += 4 * len(b)
	}
	for _, b := range t.ownedBytes {
		n += len(b)
	}
	return n
}

// A recycling tape's memory does not grow from pass to pass when the
// number of non-zeros of MatMul's A changes with dropout, as TextGCN's
// hidden layer does every epoch: the Aᵀ·G of the backward pass used to
// ask for buffers of that number's length, and the tape kept a new pair
// every pass (R52's inductive TextGCN grew to 3.5 GB over 165 epochs).
func TestRecycleMatMulBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const n, h, c = 200, 16, 3
	x, w := randDense(rng, n, h), randDense(rng, h, c)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(c)
	}
	rows := []int{0, 3, 50, 199}
	tp := New(2)
	var held []int
	for pass := range 12 {
		tp.Recycle()
		hid := tp.Dropout(tp.ReLU(tp.Param(x)), 0.5, rand.New(rand.NewPCG(uint64(pass), 1)))
		wn := tp.Param(w)
		loss, err := tp.CrossEntropy(tp.MatMul(hid, wn), rows, labels)
		if err != nil {
			t.Fatal(err)
		}
		if err := tp.Backward(loss); err != nil {
			t.Fatal(err)
		}
		held = append(held, tp.heldBytes())
	}
	for pass := 2; pass < len(held); pass++ {
		if held[pass] != held[1] {
			t.Fatalf("the tape holds %v bytes after each pass: it grows after the second", held)
		}
	}
}
