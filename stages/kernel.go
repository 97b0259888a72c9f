package stages

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/viz"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Members of the kernel stage's KindFigure artifact:
//
//	curve.csv        distance,kernel,kernel_normalized,heat,heat_normalized
//	disk.csv         x,y,kernel,estimate (raster points inside the disk)
//	error.csv        features,mae
//	summary.json     the configuration, the disk MAE and the error table
//	disk_kernel, disk_estimate   dense Grid×Grid rasters (NaN outside the disk)
//	kernel_distance.png/.svg, disk_kernel.png/.svg, disk_estimate.png/.svg, error.png/.svg
const kernelOutFigure = "figure"

func registerKernel(r *registry.Registry) error { return r.Register(kernelStageType()) }

func kernelDefaultCounts() []int {
	var c []int
	for d := 50; d <= 1000; d += 50 {
		c = append(c, d)
	}
	return c
}

func kernelStageType() *registry.Type {
	return &registry.Type{
		Name:    "kernel",
		Version: "3", // 2: a margin around the plots (titles touched the edge), the curve legend beside the axes; 3: common random numbers: draws from the seed and the stage type, not the cache key
		Doc: "The HyLa kernel figures of the paper (Figure 1, appendix E), λ ~ N(0, scale²) in the paper's " +
			"convention: the Gaussian-ρ kernel k(d) of Theorem 4.1 against hyperbolic distance next to the " +
			"heat kernel (dimension `dim`), k(x, O) over the 2-D Poincaré disk and its Monte-Carlo estimate " +
			"⟨φ(x), φ(O)⟩/D with `features` HyLa features, and the mean absolute estimation error against D " +
			"over `sample_points` points uniform in a hyperbolic disk. Writes CSV, JSON, .npy rasters and " +
			"PNG/SVG plots into one figure artifact.",
		Params: []registry.Param{
			{Name: "dim", Type: registry.Int, Range: registry.AtLeast(2), Default: 3, Doc: "dimension n of the kernel-vs-distance curves (heat kernel for n = 2, 3)"},
			{Name: "scale", Type: registry.Float, Range: registry.Above(0), Default: 0.5, Doc: "standard deviation s of λ (paper convention)"},
			{Name: "max_distance", Type: registry.Float, Range: registry.Above(0), Default: 8.0, Doc: "the curves cover distances [0, max_distance]"},
			{Name: "points", Type: registry.Int, Range: registry.AtLeast(2), Default: 161, Doc: "number of distances on the curves"},
			{Name: "heat_time", Type: registry.Float, Range: registry.Above(0), Default: 6.0, Doc: "time t of the heat kernel"},
			{Name: "grid", Type: registry.Int, Range: registry.AtLeast(2), Default: 81, Doc: "the disk raster has grid×grid points over [-1, 1]²"},
			{Name: "features", Type: registry.Int, Range: registry.AtLeast(1), Default: 1000, Doc: "HyLa features D of the disk estimate"},
			{Name: "sample_points", Type: registry.Int, Range: registry.AtLeast(1), Default: 1000, Doc: "points of the error experiment"},
			{Name: "sample_radius", Type: registry.Float, Range: registry.Above(0), Default: 4.0, Doc: "hyperbolic radius of the disk the error points are drawn from"},
			{Name: "feature_counts", Type: registry.Ints, Range: registry.AtLeast(1), Default: kernelDefaultCounts(), Doc: "the D values of the error experiment"},
			{Name: "repeats", Type: registry.Int, Range: registry.AtLeast(1), Default: 1, Doc: "independent feature draws averaged per D"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the feature and point draws"},
		},
		Outputs: []registry.Output{{Name: kernelOutFigure, Kind: schema.KindFigure,
			Doc: "curve.csv, disk.csv, error.csv, summary.json, disk rasters (.npy) and PNG/SVG plots"}},
		Run: kernelRun,
	}
}

func kernelRun(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	p := job.Params
	cfg := hyla.KernelFigureConfig{
		Dim:           p.Int("dim"),
		Scale:         p.Float("scale"),
		MaxDistance:   p.Float("max_distance"),
		Points:        p.Int("points"),
		HeatTime:      p.Float("heat_time"),
		Grid:          p.Int("grid"),
		Features:      p.Int("features"),
		SamplePoints:  p.Int("sample_points"),
		SampleRadius:  p.Float("sample_radius"),
		FeatureCounts: p.Ints("feature_counts"),
		Repeats:       p.Int("repeats"),
		Workers:       max(job.Workers, 1),
		Progress:      job.Progress.Report,
	}
	// Zero means "default" to the library; here every value is explicit.
	if cfg.Dim <= 0 || cfg.Scale <= 0 || cfg.MaxDistance <= 0 || cfg.Points <= 0 || cfg.HeatTime <= 0 ||
		cfg.Grid <= 0 || cfg.Features <= 0 || cfg.SamplePoints <= 0 || cfg.SampleRadius <= 0 ||
		cfg.Repeats <= 0 || len(cfg.FeatureCounts) == 0 {
		return nil, fmt.Errorf("kernel: dim, scale, max_distance, points, heat_time, grid, features, " +
			"sample_points, sample_radius and repeats must be positive and feature_counts non-empty")
	}
	fig, err := hyla.ComputeKernelFigure(ctx, cfg, job.RNG)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	job.Logf("disk MAE with D=%d: %.4g", cfg.Features, fig.DiskMAE)
	a, err := KernelFigureArtifact(fig)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	return map[string]artifact.Artifact{kernelOutFigure: a}, nil
}

// KernelFigureArtifact renders the kernel figure data as a KindFigure
// artifact: CSV tables, a JSON summary, the disk rasters and PNG/SVG plots
// (the member names are listed at kernelOutFigure in this file).
func KernelFigureArtifact(fig *hyla.KernelFigure) (*bundle.Bundle, error) {
	files, err := KernelFigureFiles(fig)
	if err != nil {
		return nil, err
	}
	a := bundle.New(schema.KindFigure)
	for name, b := range files {
		if name == "summary.json" {
			continue
		}
		a.SetFile(name, b)
	}
	if err := a.SetJSON("summary", kernelSummaryOf(fig)); err != nil {
		return nil, err
	}
	a.SetDense("disk_kernel", fig.Disk)
	a.SetDense("disk_estimate", fig.Estimate)
	return a, nil
}

// kernelSummary is summary.json.
type kernelSummary struct {
	Config  hyla.KernelFigureConfig `json:"config"`
	DiskMAE float64                 `json:"disk_mae"`
	Errors  []hyla.KernelErrorPoint `json:"errors"`
	Kernel0 float64                 `json:"kernel_at_0"`
}

func kernelSummaryOf(fig *hyla.KernelFigure) kernelSummary {
	cfg := fig.Config
	cfg.Workers, cfg.Progress = 0, nil // not part of the result
	return kernelSummary{Config: cfg, DiskMAE: fig.DiskMAE, Errors: fig.Errors, Kernel0: fig.Curve[0].Kernel}
}

// KernelFigureFiles returns the figure's files by name: the CSV tables,
// summary.json and the PNG and SVG plots. The bytes depend only on fig.
func KernelFigureFiles(fig *hyla.KernelFigure) (map[string][]byte, error) {
	files := map[string][]byte{}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 17, 64) }

	var b bytes.Buffer
	b.WriteString("distance,kernel,kernel_normalized,heat,heat_normalized\n")
	k0, h0 := fig.Curve[0].Kernel, fig.Curve[0].Heat
	for _, c := range fig.Curve {
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", f(c.Distance), f(c.Kernel), f(c.Kernel/k0), f(c.Heat), f(c.Heat/h0))
	}
	files["curve.csv"] = bytes.Clone(b.Bytes())

	b.Reset()
	b.WriteString("x,y,kernel,estimate\n")
	for iy, y := range fig.GridX {
		for ix, x := range fig.GridX {
			if k := fig.Disk.At(iy, ix); !math.IsNaN(k) {
				fmt.Fprintf(&b, "%s,%s,%s,%s\n", f(x), f(y), f(k), f(fig.Estimate.At(iy, ix)))
			}
		}
	}
	files["disk.csv"] = bytes.Clone(b.Bytes())

	b.Reset()
	b.WriteString("features,mae\n")
	for _, e := range fig.Errors {
		fmt.Fprintf(&b, "%d,%s\n", e.Features, f(e.MAE))
	}
	files["error.csv"] = bytes.Clone(b.Bytes())

	sum, err := json.MarshalIndent(kernelSummaryOf(fig), "", "  ")
	if err != nil {
		return nil, err
	}
	files["summary.json"] = append(sum, '\n')

	plots := map[string]func() (*plot.Plot, plot.Legend, error){
		"kernel_distance": func() (*plot.Plot, plot.Legend, error) { return kernelCurvePlot(fig) },
		"disk_kernel": func() (*plot.Plot, plot.Legend, error) {
			return kernelDiskPlot(fig, fig.Disk, "k(x, O) in the Poincaré disk")
		},
		"disk_estimate": func() (*plot.Plot, plot.Legend, error) {
			return kernelDiskPlot(fig, fig.Estimate, fmt.Sprintf("Estimate <φ(x), φ(O)>/D, D = %d", fig.Config.Features))
		},
		"error": func() (*plot.Plot, plot.Legend, error) { return kernelErrorPlot(fig) },
	}
	for name, mk := range plots {
		for _, format := range []string{"png", "svg"} {
			p, legend, err := mk() // drawing changes a plot's axes: a fresh one per format
			if err != nil {
				return nil, fmt.Errorf("plot %s: %w", name, err)
			}
			width, height := 5*vg.Inch, 4*vg.Inch
			if strings.HasPrefix(name, "disk") {
				width, height = 4.4*vg.Inch, 4.4*vg.Inch // the unit disk stays round
			}
			// A margin around the figure (the titles touched the top edge),
			// the legend in a column of its own beside the axes.
			b, err := viz.RenderLegendRight(p, legend, width, height, format)
			if err != nil {
				return nil, fmt.Errorf("plot %s.%s: %w", name, format, err)
			}
			files[name+"."+format] = b
		}
	}
	return files, nil
}

func kernelCurvePlot(fig *hyla.KernelFigure) (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	legend := plot.NewLegend()
	p.Title.Text = fmt.Sprintf("HyLa kernel, n = %d, λ ~ N(0, %g²)", fig.Config.Dim, fig.Config.Scale)
	p.X.Label.Text = "hyperbolic distance d"
	p.Y.Label.Text = "value / value at d = 0"
	k0, h0 := fig.Curve[0].Kernel, fig.Curve[0].Heat
	kern := make(plotter.XYs, len(fig.Curve))
	var heat plotter.XYs
	for i, c := range fig.Curve {
		kern[i] = plotter.XY{X: c.Distance, Y: c.Kernel / k0}
		if !math.IsNaN(c.Heat) {
			heat = append(heat, plotter.XY{X: c.Distance, Y: c.Heat / h0})
		}
	}
	l, err := plotter.NewLine(kern)
	if err != nil {
		return nil, legend, err
	}
	l.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	l.Width = vg.Points(1.5)
	p.Add(l, plotter.NewGrid())
	legend.Add("k(d)/k(0)", l)
	if len(heat) > 0 {
		h, err := plotter.NewLine(heat)
		if err != nil {
			return nil, legend, err
		}
		h.Color = color.RGBA{R: 214, G: 39, B: 40, A: 255}
		h.Width = vg.Points(1.5)
		h.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(h)
		legend.Add(fmt.Sprintf("heat kernel, t = %g", fig.Config.HeatTime), h)
	}
	return p, legend, nil
}

// kernelGrid adapts a raster to plotter.GridXYZ (column = x, row = y).
type kernelGrid struct {
	x []float64
	z *mat.Dense
}

func (g kernelGrid) Dims() (c, r int)   { return len(g.x), len(g.x) }
func (g kernelGrid) Z(c, r int) float64 { return g.z.At(r, c) }
func (g kernelGrid) X(c int) float64    { return g.x[c] }
func (g kernelGrid) Y(r int) float64    { return g.x[r] }

func kernelDiskPlot(fig *hyla.KernelFigure, z *mat.Dense, title string) (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "x₁"
	p.Y.Label.Text = "x₂"
	// One colour scale for the kernel and its estimate: [min, max] of both.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, m := range []*mat.Dense{fig.Disk, fig.Estimate} {
		for _, v := range m.RawMatrix().Data {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if !(lo < hi) {
		hi = lo + 1
	}
	pal := moreland.SmoothBlueRed()
	pal.SetMin(lo)
	pal.SetMax(hi)
	hm := plotter.NewHeatMap(kernelGrid{x: fig.GridX, z: z}, pal.Palette(255))
	hm.Min, hm.Max = lo, hi
	hm.NaN = color.White
	hm.Rasterized = true
	p.Add(hm)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -1.05, 1.05, -1.05, 1.05
	return p, plot.NewLegend(), nil
}

func kernelErrorPlot(fig *hyla.KernelFigure) (*plot.Plot, plot.Legend, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Estimation error, %d points, radius %g", fig.Config.SamplePoints, fig.Config.SampleRadius)
	p.X.Label.Text = "number of HyLa features D"
	p.Y.Label.Text = "mean |<φ(x),φ(O)>/D − k(x,O)|"
	pts := make(plotter.XYs, len(fig.Errors))
	for i, e := range fig.Errors {
		pts[i] = plotter.XY{X: float64(e.Features), Y: e.MAE}
	}
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, plot.Legend{}, err
	}
	l.Color = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	s.Color = l.Color
	p.Add(l, s, plotter.NewGrid())
	return p, plot.NewLegend(), nil
}
