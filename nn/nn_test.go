package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randDense(rng *rand.Rand, r, c int, scale float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i, raw := 0, m.RawMatrix().Data; i < len(raw); i++ {
		raw[i] = scale * rng.NormFloat64()
	}
	return m
}

// fdCheck compares an analytic gradient with central differences of f
// over every entry of x.
func fdCheck(t *testing.T, name string, x []float64, analytic []float64, f func() float64) {
	t.Helper()
	const h = 1e-6
	for i := range x {
		old := x[i]
		x[i] = old + h
		fp := f()
		x[i] = old - h
		fm := f()
		x[i] = old
		num := (fp - fm) / (2 * h)
		if d := math.Abs(num - analytic[i]); d > 1e-7*math.Max(1, math.Abs(num)) {
			t.Fatalf("%s: entry %d: analytic %.10g, finite difference %.10g", name, i, analytic[i], num)
		}
	}
}

func TestSoftmaxCrossEntropyGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct{ n, c int }{{1, 2}, {5, 3}, {7, 7}} {
		logits := randDense(rng, tc.n, tc.c, 3)
		labels := make([]int, tc.n)
		for i := range labels {
			labels[i] = rng.IntN(tc.c)
		}
		grad := mat.NewDense(tc.n, tc.c, nil)
		if _, err := SoftmaxCrossEntropy(logits, labels, grad); err != nil {
			t.Fatal(err)
		}
		fdCheck(t, "cross-entropy", logits.RawMatrix().Data, grad.RawMatrix().Data, func() float64 {
			l, _ := SoftmaxCrossEntropy(logits, labels, nil)
			return l
		})
	}
}

func TestSoftmaxCrossEntropyValues(t *testing.T) {
	// Two rows: uniform logits give log C; a confident right answer ~0;
	// large logits do not overflow.
	logits := mat.NewDense(3, 3, []float64{0, 0, 0, 100, 0, 0, 1000, 1001, 999})
	l, err := SoftmaxCrossEntropy(logits, []int{2, 0, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	third := math.Log(1 + math.Exp(-1) + math.Exp(-2))
	want := (math.Log(3) + math.Log1p(2*math.Exp(-100)) + third) / 3
	if math.Abs(l-want) > 1e-13 {
		t.Fatalf("loss %.17g, want %.17g", l, want)
	}
	if _, err := SoftmaxCrossEntropy(logits, []int{0, 3, 1}, nil); err == nil {
		t.Fatal("label 3 of 3 classes accepted")
	}
	if _, err := SoftmaxCrossEntropy(logits, []int{0, 1}, nil); err == nil {
		t.Fatal("label count mismatch accepted")
	}
}

func TestSigmoidBCE(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	logits := randDense(rng, 9, 1, 4)
	labels := []int{0, 1, 1, 0, 1, 0, 0, 1, 1}
	grad := mat.NewDense(9, 1, nil)
	l, err := SigmoidBCE(logits, labels, grad)
	if err != nil {
		t.Fatal(err)
	}
	// Independent: the textbook formula −y log σ(x) − (1−y) log(1−σ(x)).
	var want float64
	for i, y := range labels {
		s := 1 / (1 + math.Exp(-logits.At(i, 0)))
		if y == 1 {
			want -= math.Log(s)
		} else {
			want -= math.Log(1 - s)
		}
	}
	want /= 9
	if math.Abs(l-want) > 1e-12 {
		t.Fatalf("BCE %.15g, want %.15g", l, want)
	}
	fdCheck(t, "BCE", logits.RawMatrix().Data, grad.RawMatrix().Data, func() float64 {
		l, _ := SigmoidBCE(logits, labels, nil)
		return l
	})
	big := mat.NewDense(2, 1, []float64{800, -800})
	if l, _ := SigmoidBCE(big, []int{0, 1}, nil); math.Abs(l-800) > 1e-9 {
		t.Fatalf("BCE of saturated logits %g, want 800", l)
	}
	if _, err := SigmoidBCE(big, []int{0, 2}, nil); err == nil {
		t.Fatal("label 2 accepted by BCE")
	}
}

func TestLinearGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	l := NewLinear(rng, 4, 3)
	x := randDense(rng, 6, 4, 1)
	labels := []int{0, 1, 2, 2, 1, 0}
	out := mat.NewDense(6, 3, nil)
	loss := func() float64 {
		l.Forward(x, out)
		v, _ := SoftmaxCrossEntropy(out, labels, nil)
		return v
	}
	g := mat.NewDense(6, 3, nil)
	l.Forward(x, out)
	if _, err := SoftmaxCrossEntropy(out, labels, g); err != nil {
		t.Fatal(err)
	}
	gw, gb, gx := mat.NewDense(4, 3, nil), make([]float64, 3), mat.NewDense(6, 4, nil)
	l.Backward(x, g, gw, gb, gx)
	fdCheck(t, "W", l.W.RawMatrix().Data, gw.RawMatrix().Data, loss)
	fdCheck(t, "bias", l.Bias, gb, loss)
	fdCheck(t, "x", x.RawMatrix().Data, gx.RawMatrix().Data, loss)
}

func TestNewLinearBounds(t *testing.T) {
	l := NewLinear(rand.New(rand.NewPCG(7, 8)), 100, 50)
	bound := 0.1
	var sum, sq float64
	raw := l.W.RawMatrix().Data
	for _, v := range raw {
		if math.Abs(v) > bound {
			t.Fatalf("weight %g outside ±%g", v, bound)
		}
		sum += v
		sq += v * v
	}
	n := float64(len(raw))
	// U(−a, a) has variance a²/3.
	if v := sq / n; math.Abs(v-bound*bound/3) > 0.1*bound*bound/3 {
		t.Fatalf("weight variance %g, want about %g", v, bound*bound/3)
	}
	if m := sum / n; math.Abs(m) > 0.005 {
		t.Fatalf("weight mean %g", m)
	}
}

func TestAdamMatchesKingmaBa(t *testing.T) {
	// PyTorch's update equals the paper's bias-corrected form
	// m̂ = m/(1−β1^t), v̂ = v/(1−β2^t), p −= lr·m̂/(√v̂ + ε); check it over
	// several steps with changing gradients, and the first step by hand.
	rng := rand.New(rand.NewPCG(9, 10))
	const n, lr = 5, 0.01
	p := make([]float64, n)
	ref := make([]float64, n)
	for i := range p {
		p[i] = rng.NormFloat64()
		ref[i] = p[i]
	}
	a := NewAdam(lr, n)
	m, v := make([]float64, n), make([]float64, n)
	for step := 1; step <= 20; step++ {
		g := make([]float64, n)
		for i := range g {
			g[i] = rng.NormFloat64() + 0.3*p[i]
		}
		if step == 1 {
			first := append([]float64(nil), p...)
			a.Step(p, g)
			for i := range p {
				want := first[i] - lr*g[i]/(math.Abs(g[i])+1e-8)
				if math.Abs(p[i]-want) > 1e-15 {
					t.Fatalf("first step: p[%d] = %.17g, want %.17g", i, p[i], want)
				}
			}
		} else {
			a.Step(p, g)
		}
		for i := range ref {
			m[i] = 0.9*m[i] + 0.1*g[i]
			v[i] = 0.999*v[i] + 0.001*g[i]*g[i]
			mh := m[i] / (1 - math.Pow(0.9, float64(step)))
			vh := v[i] / (1 - math.Pow(0.999, float64(step)))
			ref[i] -= lr * mh / (math.Sqrt(vh) + 1e-8)
		}
		for i := range p {
			if math.Abs(p[i]-ref[i]) > 1e-13 {
				t.Fatalf("step %d: p[%d] = %.17g, reference %.17g", step, i, p[i], ref[i])
			}
		}
	}
	if a.Steps() != 20 {
		t.Fatalf("Steps() = %d", a.Steps())
	}
}

func TestAdamWeightDecayAndSGD(t *testing.T) {
	a := NewAdam(0.1, 1)
	a.WeightDecay = 0.5
	p := []float64{2}
	a.Step(p, []float64{-1}) // effective gradient −1 + 0.5·2 = 0: no move
	if p[0] != 2 {
		t.Fatalf("Adam with zero effective gradient moved p to %g", p[0])
	}
	q := []float64{1, -2}
	SGD{LR: 0.5, WeightDecay: 0.1}.Step(q, []float64{2, 4})
	if want := []float64{1 - 0.5*(2+0.1), -2 - 0.5*(4-0.2)}; math.Abs(q[0]-want[0]) > 1e-15 || math.Abs(q[1]-want[1]) > 1e-15 {
		t.Fatalf("SGD step %v, want %v", q, want)
	}
}

func TestMetrics(t *testing.T) {
	logits := mat.NewDense(5, 3, []float64{
		1, 2, 3,
		5, 5, 1, // tie: first max
		0, -1, -2,
		0, 9, 9,
		-1, -1, -1,
	})
	pred := make([]int, 5)
	Predict(logits, pred)
	if want := []int{2, 0, 0, 1, 0}; !equalInts(pred, want) {
		t.Fatalf("Predict %v, want %v", pred, want)
	}
	labels := []int{2, 1, 0, 1, 2}
	if acc := Accuracy(pred, labels); acc != 0.6 {
		t.Fatalf("accuracy %g, want 0.6", acc)
	}
	if f := MicroF1(pred, labels, 3); math.Abs(f-0.6) > 1e-15 {
		t.Fatalf("micro-F1 %g, want the accuracy 0.6", f)
	}
	// Over a subset of classes micro-F1 differs from accuracy: classes {0,1}
	// only: TP = 2 (rows 2, 3), FP = 1 (row 1 predicted 0; row 4 predicted 0),
	// i.e. FP = 2, FN = 1 (row 1's label 1).
	if f := MicroF1(pred, labels, 2); math.Abs(f-4.0/7) > 1e-15 {
		t.Fatalf("micro-F1 over two classes %g, want 4/7", f)
	}
	bin := mat.NewDense(3, 1, []float64{0.5, 0, -2})
	bp := make([]int, 3)
	Predict(bin, bp)
	if !equalInts(bp, []int{1, 0, 0}) {
		t.Fatalf("binary predictions %v", bp)
	}
	pm := mat.NewDense(2, 3, []float64{1, 0, 1, 0, 1, 0})
	tm := mat.NewDense(2, 3, []float64{1, 1, 0, 0, 1, 0})
	// TP 2, FP 1, FN 1 → 4/6.
	if f := MicroF1Multi(pm, tm); math.Abs(f-2.0/3) > 1e-15 {
		t.Fatalf("multi-label micro-F1 %g, want 2/3", f)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestSoftmaxCrossEntropyNaN: a NaN logit, first in its row or not, makes
// the loss NaN (train stops on it).
func TestSoftmaxCrossEntropyNaN(t *testing.T) {
	for _, pos := range []int{0, 2} {
		logits := mat.NewDense(2, 3, []float64{0.5, -1, 2, 0.1, 0.2, 0.3})
		logits.Set(1, pos, math.NaN())
		l, err := SoftmaxCrossEntropy(logits, []int{0, 1}, mat.NewDense(2, 3, nil))
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsNaN(l) {
			t.Errorf("NaN logit at column %d: loss %v, want NaN", pos, l)
		}
	}
}
