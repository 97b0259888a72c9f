// Package nn holds the small neural-network pieces HyLa needs: a linear
// head with bias, softmax cross-entropy and sigmoid binary cross-entropy
// losses with their gradients, the Adam and SGD optimisers with PyTorch's
// update rules, and classification metrics.
//
// Everything is float64 and deterministic; nothing allocates after
// construction, so the training loop can run without garbage.
package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Linear is a fully connected layer y = x·W + b with W ∈ R^{in×out}.
// (PyTorch's nn.Linear stores Wᵀ; the values are the same.)
type Linear struct {
	W    *mat.Dense // in×out
	Bias []float64  // out
}

// NewLinear returns a layer initialised like PyTorch's nn.Linear: every
// weight and bias entry uniform in [−1/√in, 1/√in). The weights are drawn
// row by row (input by input), then the biases.
func NewLinear(rng *rand.Rand, in, out int) *Linear {
	if in < 1 || out < 1 {
		panic(fmt.Sprintf("nn: NewLinear(%d, %d): sizes must be positive", in, out))
	}
	bound := 1 / math.Sqrt(float64(in))
	w := mat.NewDense(in, out, nil)
	for i, raw := 0, w.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = bound * (2*rng.Float64() - 1)
	}
	b := make([]float64, out)
	for j := range b {
		b[j] = bound * (2*rng.Float64() - 1)
	}
	return &Linear{W: w, Bias: b}
}

// Forward sets out (n×out) to x·W + b for x (n×in).
func (l *Linear) Forward(x, out *mat.Dense) {
	out.Mul(x, l.W)
	AddBias(out, l.Bias)
}

// Backward sets gradW = xᵀ·gradOut and gradB to the column sums of gradOut;
// if gradX is not nil it is set to gradOut·Wᵀ.
func (l *Linear) Backward(x, gradOut, gradW *mat.Dense, gradB []float64, gradX *mat.Dense) {
	gradW.Mul(x.T(), gradOut)
	ColSums(gradOut, gradB)
	if gradX != nil {
		gradX.Mul(gradOut, l.W.T())
	}
}

// AddBias adds b to every row of m.
func AddBias(m *mat.Dense, b []float64) {
	r, c := m.Dims()
	if len(b) != c {
		panic(fmt.Sprintf("nn: AddBias: %d biases for %d columns", len(b), c))
	}
	for i := 0; i < r; i++ {
		row := m.RawRowView(i)
		for j, v := range b {
			row[j] += v
		}
	}
}

// ColSums sets dst to the column sums of m (rows summed in order).
func ColSums(m *mat.Dense, dst []float64) {
	r, c := m.Dims()
	if len(dst) != c {
		panic(fmt.Sprintf("nn: ColSums: destination of %d for %d columns", len(dst), c))
	}
	clear(dst)
	for i := 0; i < r; i++ {
		for j, v := range m.RawRowView(i) {
			dst[j] += v
		}
	}
}

// SoftmaxCrossEntropy returns the mean over the n rows of logits (n×C) of
// −log softmax(logits_i)[labels_i], as PyTorch's F.cross_entropy, and sets
// grad (n×C, may be nil) to its gradient (softmax − onehot)/n. It returns an
// error for a label outside [0, C). The loss is summed in blocks of
// CrossEntropyBlock rows, as a caller of SoftmaxCrossEntropyRows sums them.
func SoftmaxCrossEntropy(logits *mat.Dense, labels []int, grad *mat.Dense) (float64, error) {
	n, _ := logits.Dims()
	if len(labels) != n {
		return 0, fmt.Errorf("nn: cross-entropy: %d labels for %d rows", len(labels), n)
	}
	if n == 0 {
		return 0, fmt.Errorf("nn: cross-entropy of zero rows")
	}
	var total float64
	for lo := 0; lo < n; lo += CrossEntropyBlock {
		s, err := SoftmaxCrossEntropyRows(logits, labels, grad, lo, min(lo+CrossEntropyBlock, n))
		if err != nil {
			return 0, err
		}
		total += s
	}
	return total / float64(n), nil
}

// CrossEntropyBlock is the number of rows whose losses SoftmaxCrossEntropy
// adds up before adding the block's sum to the total.
const CrossEntropyBlock = 512

// SoftmaxCrossEntropyRows is one block of SoftmaxCrossEntropy: for rows
// [lo, hi) of the n rows it returns the sum (not the mean) of their losses
// and sets their rows of grad (may be nil) to the gradient of the mean over
// all n rows. Blocks may run concurrently. One exponential per logit:
// softmax_j = e^{x_j − max}/Σ_k e^{x_k − max}.
func SoftmaxCrossEntropyRows(logits *mat.Dense, labels []int, grad *mat.Dense, lo, hi int) (float64, error) {
	n, c := logits.Dims()
	if len(labels) != n {
		return 0, fmt.Errorf("nn: cross-entropy: %d labels for %d rows", len(labels), n)
	}
	inv := 1 / float64(n)
	var total float64
	for i := lo; i < hi; i++ {
		y := labels[i]
		if y < 0 || y >= c {
			return 0, fmt.Errorf("nn: cross-entropy: row %d has label %d, want 0..%d", i, y, c-1)
		}
		row := logits.RawRowView(i)[:c]
		// The largest logit (a NaN anywhere makes the loss NaN either way:
		// as mx, or through its exponential).
		mx := row[0]
		for _, v := range row[1:] {
			if v > mx {
				mx = v
			}
		}
		var s float64
		if grad != nil {
			g := grad.RawRowView(i)[:c]
			for j, v := range row {
				e := math.Exp(v - mx)
				g[j] = e
				s += e
			}
			f := inv / s
			for j := range g {
				g[j] *= f
			}
			g[y] -= inv
		} else {
			for _, v := range row {
				s += math.Exp(v - mx)
			}
		}
		total += mx + math.Log(s) - row[y]
	}
	return total, nil
}

// SigmoidBCE returns the mean binary cross-entropy of the logits (n×1)
// against labels in {0, 1}, as PyTorch's F.binary_cross_entropy_with_logits,
// computed stably as max(x,0) − x·y + log(1+e^{−|x|}), and sets grad (n×1,
// may be nil) to (σ(x) − y)/n.
func SigmoidBCE(logits *mat.Dense, labels []int, grad *mat.Dense) (float64, error) {
	n, c := logits.Dims()
	if c != 1 {
		return 0, fmt.Errorf("nn: binary cross-entropy needs one logit per row, got %d", c)
	}
	if len(labels) != n {
		return 0, fmt.Errorf("nn: binary cross-entropy: %d labels for %d rows", len(labels), n)
	}
	if n == 0 {
		return 0, fmt.Errorf("nn: binary cross-entropy of zero rows")
	}
	inv := 1 / float64(n)
	var total float64
	for i := 0; i < n; i++ {
		y := labels[i]
		if y != 0 && y != 1 {
			return 0, fmt.Errorf("nn: binary cross-entropy: row %d has label %d, want 0 or 1", i, y)
		}
		x := logits.At(i, 0)
		total += math.Max(x, 0) - x*float64(y) + math.Log1p(math.Exp(-math.Abs(x)))
		if grad != nil {
			grad.Set(i, 0, (Sigmoid(x)-float64(y))*inv)
		}
	}
	return total * inv, nil
}

// Sigmoid returns 1/(1+e^{−x}) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
