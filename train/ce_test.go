package train

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hylaflow/hylaflow/nn"
	"gonum.org/v1/gonum/mat"
)

// TestCrossEntropyWorkers: the blocked, parallel cross-entropy gives the
// bits of nn.SoftmaxCrossEntropy for 1…4 workers on more rows than one
// block, and a loss within rounding of a plain per-row sum.
func TestCrossEntropyWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	const n, c = 3*nn.CrossEntropyBlock + 17, 5
	logits := mat.NewDense(n, c, nil)
	for i, raw := 0, logits.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = 3 * rng.NormFloat64()
	}
	labels := make([]int, n)
	for i := range labels {
		labels[i] = rng.IntN(c)
	}
	refG := mat.NewDense(n, c, nil)
	ref, err := nn.SoftmaxCrossEntropy(logits, labels, refG)
	if err != nil {
		t.Fatal(err)
	}
	var plain float64
	for i := 0; i < n; i++ {
		row := logits.RawRowView(i)
		var s float64
		for _, v := range row {
			s += math.Exp(v)
		}
		plain += math.Log(s) - row[labels[i]]
	}
	if plain /= n; math.Abs(ref-plain) > 1e-12*plain {
		t.Errorf("loss %v, plain sum %v", ref, plain)
	}
	for w := 1; w <= 4; w++ {
		tr := &trainer{workers: w, logTr: logits, yTr: labels, g: mat.NewDense(n, c, nil)}
		loss, err := tr.crossEntropy(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(loss) != math.Float64bits(ref) || !mat.Equal(tr.g, refG) {
			t.Errorf("%d workers: loss %v (want %v) or gradient differs", w, loss, ref)
		}
	}
}
