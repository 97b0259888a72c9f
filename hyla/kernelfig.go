package hyla

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// KernelFigureConfig describes the data of the paper's Figure 1 and the
// estimation-error experiment of its appendix E. Zero fields take the
// defaults in brackets. λ ~ N(0, Scale²) in the paper's convention.
type KernelFigureConfig struct {
	Dim         int     `json:"dim"`          // dimension of the kernel-vs-distance curves [3, as Figure 1 left]
	Scale       float64 `json:"scale"`        // s [0.5]
	MaxDistance float64 `json:"max_distance"` // the curves cover [0, MaxDistance] [8]
	Points      int     `json:"points"`       // points of the curves [161]
	HeatTime    float64 `json:"heat_time"`    // heat-kernel time t [6]; the heat curve needs Dim 2 or 3

	Grid     int     `json:"grid"`      // the 2-D disk raster is Grid×Grid over [−1, 1]² [81]
	GridNorm float64 `json:"grid_norm"` // raster points with ‖x‖ > GridNorm are left out (NaN) [0.99]
	Features int     `json:"features"`  // D of the Monte-Carlo estimate on the disk [1000]

	SamplePoints  int     `json:"sample_points"`  // points of the error experiment [1000]
	SampleRadius  float64 `json:"sample_radius"`  // they are uniform in the hyperbolic disk of this radius [4]
	FeatureCounts []int   `json:"feature_counts"` // D values of the error experiment [50, 100, …, 1000]
	Repeats       int     `json:"repeats"`        // independent draws averaged per D [1]

	Workers int `json:"-"` // goroutines for the kernel evaluations [1]; results do not depend on it
	// Progress, if set, is told after each part (the curves, the disk, each D).
	Progress func(done, total int, msg string) `json:"-"`
}

func (c *KernelFigureConfig) defaults() {
	setI := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	setF := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	setI(&c.Dim, 3)
	setF(&c.Scale, 0.5)
	setF(&c.MaxDistance, 8)
	setI(&c.Points, 161)
	setF(&c.HeatTime, 6)
	setI(&c.Grid, 81)
	setF(&c.GridNorm, 0.99)
	setI(&c.Features, 1000)
	setI(&c.SamplePoints, 1000)
	setF(&c.SampleRadius, 4)
	if len(c.FeatureCounts) == 0 {
		for d := 50; d <= 1000; d += 50 {
			c.FeatureCounts = append(c.FeatureCounts, d)
		}
	}
	setI(&c.Repeats, 1)
	setI(&c.Workers, 1)
}

func (c *KernelFigureConfig) check() error {
	switch {
	case c.Dim < 2:
		return fmt.Errorf("dim %d, want ≥ 2", c.Dim)
	case !(c.Scale > 0) || math.IsInf(c.Scale, 0):
		return fmt.Errorf("scale %g, want > 0", c.Scale)
	case !(c.MaxDistance > 0 && c.MaxDistance <= MaxKernelDistance):
		return fmt.Errorf("max distance %g, want in (0, %d]", c.MaxDistance, MaxKernelDistance)
	case c.Points < 2 || c.Points > 100000:
		return fmt.Errorf("points %d, want 2…100000", c.Points)
	case !(c.HeatTime > 0) || math.IsInf(c.HeatTime, 0):
		return fmt.Errorf("heat time %g, want > 0", c.HeatTime)
	case c.Grid < 2 || c.Grid > 2000:
		return fmt.Errorf("grid %d, want 2…2000", c.Grid)
	case !(c.GridNorm > 0 && c.GridNorm <= MaxNorm):
		return fmt.Errorf("grid norm %g, want in (0, %g]", c.GridNorm, MaxNorm)
	case c.Features < 1 || c.Features > 1000000:
		return fmt.Errorf("features %d, want 1…1000000", c.Features)
	case c.SamplePoints < 1 || c.SamplePoints > 1000000:
		return fmt.Errorf("sample points %d, want 1…1000000", c.SamplePoints)
	case !(c.SampleRadius > 0 && c.SampleRadius <= 30):
		return fmt.Errorf("sample radius %g, want in (0, 30]", c.SampleRadius)
	case c.Repeats < 1 || c.Repeats > 1000:
		return fmt.Errorf("repeats %d, want 1…1000", c.Repeats)
	}
	for _, d := range c.FeatureCounts {
		if d < 1 || d > 1000000 {
			return fmt.Errorf("feature count %d, want 1…1000000", d)
		}
	}
	return nil
}

// KernelCurvePoint is one row of the kernel-vs-distance table.
type KernelCurvePoint struct {
	Distance float64 `json:"distance"`
	Kernel   float64 `json:"kernel"` // Gaussian-ρ k(d), with k(0) = ½
	Heat     float64 `json:"heat"`   // heat kernel p_t(d), NaN when Dim ∉ {2, 3}
}

// KernelErrorPoint is one row of the estimation-error experiment.
type KernelErrorPoint struct {
	Features int     `json:"features"`
	MAE      float64 `json:"mae"` // mean |⟨φ(x),φ(O)⟩/D − k(x, O)| over the sample points
}

// KernelFigure holds the data of the kernel figures.
type KernelFigure struct {
	Config KernelFigureConfig
	Curve  []KernelCurvePoint
	// GridX holds the raster coordinates (both axes); Disk and Estimate are
	// Grid×Grid (row = y index, column = x index), NaN outside GridNorm.
	GridX    []float64
	Disk     *mat.Dense // k(x, O) in the 2-D disk
	Estimate *mat.Dense // ⟨φ(x), φ(O)⟩/D with Features HyLa features
	DiskMAE  float64    // mean |Estimate − Disk| over the raster points
	Errors   []KernelErrorPoint
}

// ComputeKernelFigure computes the kernel figure data. All randomness comes
// from rng, drawn in a fixed order, so the result is a function of the
// configuration and the generator's seed.
func ComputeKernelFigure(ctx context.Context, cfg KernelFigureConfig, rng *rand.Rand) (*KernelFigure, error) {
	cfg.defaults()
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("hyla: kernel figure: %w", err)
	}
	fig := &KernelFigure{Config: cfg}
	total := 2 + len(cfg.FeatureCounts)
	report := func(done int, msg string) {
		if cfg.Progress != nil {
			cfg.Progress(done, total, msg)
		}
	}

	// Kernel and heat kernel against distance.
	fig.Curve = make([]KernelCurvePoint, cfg.Points)
	err := parallelFor(ctx, cfg.Points, cfg.Workers, func(i int) error {
		d := cfg.MaxDistance * float64(i) / float64(cfg.Points-1)
		k, err := KernelGaussian(cfg.Dim, cfg.Scale, d, 0)
		if err != nil {
			return err
		}
		heat := math.NaN()
		if cfg.Dim == 2 || cfg.Dim == 3 {
			if heat, err = HeatKernel(cfg.Dim, cfg.HeatTime, d); err != nil {
				return err
			}
		}
		fig.Curve[i] = KernelCurvePoint{Distance: d, Kernel: k, Heat: heat}
		return nil
	})
	if err != nil {
		return nil, err
	}

	report(1, "kernel and heat kernel curves")

	// The 2-D disk: exact kernel and its estimate from Features HyLa features.
	g := cfg.Grid
	fig.GridX = make([]float64, g)
	for i := range fig.GridX {
		fig.GridX[i] = -1 + 2*float64(i)/float64(g-1)
	}
	fig.Disk = mat.NewDense(g, g, nil)
	fig.Estimate = mat.NewDense(g, g, nil)
	var inside [][2]int
	for iy, y := range fig.GridX {
		for ix, x := range fig.GridX {
			if math.Hypot(x, y) <= cfg.GridNorm {
				inside = append(inside, [2]int{iy, ix})
			} else {
				fig.Disk.Set(iy, ix, math.NaN())
				fig.Estimate.Set(iy, ix, math.NaN())
			}
		}
	}
	pts := mat.NewDense(len(inside), 2, nil)
	for p, c := range inside {
		pts.Set(p, 0, fig.GridX[c[1]])
		pts.Set(p, 1, fig.GridX[c[0]])
	}
	exact, err := kernelAtOrigin(ctx, pts, cfg.Scale, cfg.Workers)
	if err != nil {
		return nil, err
	}
	s := SampleHyLa(rng, cfg.Features, 2, cfg.Scale)
	est := estimateAtOrigin(s, pts, cfg.Workers)
	var sum float64
	for p, c := range inside {
		fig.Disk.Set(c[0], c[1], exact[p])
		fig.Estimate.Set(c[0], c[1], est[p])
		sum += math.Abs(est[p] - exact[p])
	}
	fig.DiskMAE = sum / float64(len(inside))
	report(2, fmt.Sprintf("disk, MAE %.3g with D = %d", fig.DiskMAE, cfg.Features))

	// Appendix E: mean absolute error against the number of features.
	sp := mat.NewDense(cfg.SamplePoints, 2, nil)
	for i := 0; i < cfg.SamplePoints; i++ {
		sp.SetRow(i, SampleHyperbolicDisk(rng, cfg.SampleRadius))
	}
	spExact, err := kernelAtOrigin(ctx, sp, cfg.Scale, cfg.Workers)
	if err != nil {
		return nil, err
	}
	for _, D := range cfg.FeatureCounts {
		var mae float64
		for r := 0; r < cfg.Repeats; r++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			e := estimateAtOrigin(SampleHyLa(rng, D, 2, cfg.Scale), sp, cfg.Workers)
			for i := range e {
				mae += math.Abs(e[i] - spExact[i])
			}
		}
		fig.Errors = append(fig.Errors, KernelErrorPoint{Features: D, MAE: mae / float64(cfg.SamplePoints*cfg.Repeats)})
		report(2+len(fig.Errors), fmt.Sprintf("D = %d", D))
	}
	return fig, nil
}

// kernelAtOrigin returns the Gaussian-ρ kernel k(x, O) of the 2-D disk for
// every row x of pts.
func kernelAtOrigin(ctx context.Context, pts *mat.Dense, scale float64, workers int) ([]float64, error) {
	m, _ := pts.Dims()
	out := make([]float64, m)
	err := parallelFor(ctx, m, workers, func(i int) error {
		k, err := KernelGaussian(2, scale, NormToDist(math.Hypot(pts.At(i, 0), pts.At(i, 1))), 0)
		out[i] = k
		return err
	})
	return out, err
}

// estimateAtOrigin returns ⟨φ(x), φ(O)⟩/D for the rows x of pts, with the
// HyLa features of s in the paper's convention (φ_j(O) = cos b_j).
func estimateAtOrigin(s *Samples, pts *mat.Dense, workers int) []float64 {
	m, _ := pts.Dims()
	D := s.Features()
	fm, _ := NewHyLa(s, ConventionPaper)
	fm.SetWorkers(workers)
	phi := mat.NewDense(m, D, nil)
	fm.Forward(pts, phi)
	o := make([]float64, D)
	for j := range o {
		o[j] = math.Cos(s.B[j])
	}
	out := make([]float64, m)
	for i := range out {
		var dot float64
		for j, v := range phi.RawRowView(i) {
			dot += v * o[j]
		}
		out[i] = dot / float64(D)
	}
	return out
}

// parallelFor runs fn(0…n−1) on workers goroutines (index i on worker
// i mod workers, so every index is computed exactly once, independently of
// the others). A worker stops at its first error; parallelFor returns the
// error of the lowest-numbered worker that failed, else ctx's error.
func parallelFor(ctx context.Context, n, workers int, fn func(i int) error) error {
	errs := make([]error, max(1, min(workers, n)))
	cerr := parallel.Blocks(ctx, n, 1, workers, func(w, i, _ int) {
		if errs[w] == nil {
			errs[w] = fn(i)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return cerr
}
