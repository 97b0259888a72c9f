package hyla

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func smallFigureConfig(workers int) KernelFigureConfig {
	return KernelFigureConfig{
		Dim: 3, Scale: 0.5, MaxDistance: 6, Points: 13, Grid: 21, Features: 400,
		SamplePoints: 200, FeatureCounts: []int{25, 100, 400, 1600}, Repeats: 3, Workers: workers,
	}
}

func TestComputeKernelFigure(t *testing.T) {
	fig, err := ComputeKernelFigure(context.Background(), smallFigureConfig(2), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if c := fig.Curve[0]; c.Distance != 0 || math.Abs(c.Kernel-0.5) > 1e-15 {
		t.Errorf("curve starts at %+v, want d = 0, k = ½", c)
	}
	for i := 1; i < len(fig.Curve); i++ {
		c := fig.Curve[i]
		// n = 3 closed form of the Gaussian-ρ kernel (see TestKernelGaussian).
		want := 0.5 * math.Sqrt(math.Pi/2) / 0.5 * math.Erf(0.5*c.Distance/math.Sqrt2) / math.Sinh(c.Distance)
		if math.Abs(c.Kernel-want) > 1e-10 {
			t.Errorf("curve at d=%g: %g, want %g", c.Distance, c.Kernel, want)
		}
		if !(c.Heat > 0 && c.Heat < fig.Curve[i-1].Heat) {
			t.Errorf("heat kernel not positive and decreasing at d=%g: %g", c.Distance, c.Heat)
		}
	}
	// The centre of the raster is the origin: k = ½ and φ(O)·φ(O)/D = mean cos² b ≈ ½.
	mid := len(fig.GridX) / 2
	if math.Abs(fig.Disk.At(mid, mid)-0.5) > 1e-12 {
		t.Errorf("k(O, O) = %g", fig.Disk.At(mid, mid))
	}
	if !math.IsNaN(fig.Disk.At(0, 0)) {
		t.Errorf("corner of the raster is outside the disk but has value %g", fig.Disk.At(0, 0))
	}
	if !(fig.DiskMAE > 0 && fig.DiskMAE < 0.05) {
		t.Errorf("disk MAE with D = 400 is %g", fig.DiskMAE)
	}
	// Monte-Carlo error falls like 1/√D: MAE·√D is about constant for D ≥ 100.
	t.Logf("MAE: %+v", fig.Errors)
	ref := fig.Errors[1].MAE * 10
	for _, e := range fig.Errors[1:] {
		if c := e.MAE * math.Sqrt(float64(e.Features)); c < ref/1.5 || c > ref*1.5 {
			t.Errorf("MAE·√D = %g at D = %d, %g at D = 100: not ∝ 1/√D", c, e.Features, ref)
		}
	}
	// Same seed, other worker count: identical.
	fig2, err := ComputeKernelFigure(context.Background(), smallFigureConfig(1), rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b *mat.Dense) bool {
		x, y := a.RawMatrix().Data, b.RawMatrix().Data
		for i := range x {
			if x[i] != y[i] && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
				return false
			}
		}
		return true
	}
	if !same(fig.Estimate, fig2.Estimate) || !same(fig.Disk, fig2.Disk) || fig.Errors[2] != fig2.Errors[2] || fig.Curve[5] != fig2.Curve[5] {
		t.Error("kernel figure depends on the worker count")
	}
}

func TestComputeKernelFigureErrors(t *testing.T) {
	for _, cfg := range []KernelFigureConfig{{Dim: 1}, {Scale: -1}, {Grid: 1}, {FeatureCounts: []int{0}}, {GridNorm: 1}} {
		if _, err := ComputeKernelFigure(context.Background(), cfg, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ComputeKernelFigure(ctx, smallFigureConfig(1), rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("canceled context ignored")
	}
}
