package viz

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Palette is the categorical colour cycle of ScatterPlot (Tableau 10);
// classes beyond its length reuse the colours with other glyph shapes.
var Palette = []color.NRGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// UnlabelledColor is the colour of points with a negative label.
var UnlabelledColor = color.NRGBA{0xd9, 0xd9, 0xd9, 0xff}

var scatterShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PlusGlyph{}, draw.CrossGlyph{}, draw.RingGlyph{}}

// ClassStyle returns the glyph of class c (negative: unlabelled).
func ClassStyle(c int, radius vg.Length) draw.GlyphStyle {
	if c < 0 {
		return draw.GlyphStyle{Color: UnlabelledColor, Radius: radius, Shape: draw.CircleGlyph{}}
	}
	return draw.GlyphStyle{Color: Palette[c%len(Palette)], Radius: radius,
		Shape: scatterShapes[(c/len(Palette))%len(scatterShapes)]}
}

// ScatterOptions configures ScatterPlot.
type ScatterOptions struct {
	Title          string
	XLabel, YLabel string
	// ClassNames names class c in the legend (default "class c").
	ClassNames []string
	// Radius of the points [1.6 pt].
	Radius vg.Length
	// NoLegend drops the legend.
	NoLegend bool
	// NoTicks drops the tick marks and numbers (t-SNE coordinates have no units).
	NoTicks bool
}

// legendGlyph is a legend thumbnail drawing one glyph, larger than the points.
type legendGlyph draw.GlyphStyle

func (g legendGlyph) Thumbnail(c *draw.Canvas) {
	c.DrawGlyph(draw.GlyphStyle(g), vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: (c.Min.Y + c.Max.Y) / 2})
}

// ScatterPlot draws the rows of coords (n×2) coloured by labels (−1 =
// unlabelled, drawn grey). Points are drawn in a fixed pseudo-random order so
// that no class hides the others systematically; the legend lists the classes
// present, in increasing order, in space reserved right of the points.
func ScatterPlot(coords *mat.Dense, labels []int, opts ScatterOptions) (*plot.Plot, error) {
	n, c := coords.Dims()
	if c != 2 {
		return nil, fmt.Errorf("viz: scatter plot of %d-column coordinates, want 2", c)
	}
	if len(labels) != n {
		return nil, fmt.Errorf("viz: scatter plot of %d points with %d labels", n, len(labels))
	}
	if err := checkFiniteMatrix(coords); err != nil {
		return nil, fmt.Errorf("viz: scatter plot: %w", err)
	}
	radius := opts.Radius
	if radius == 0 {
		radius = 1.6 * vg.Length(1)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(0x5ca7, 0x7e4))
	rng.Shuffle(n, func(i, j int) { order[i], order[j] = order[j], order[i] })
	// Unlabelled points first, below the labelled ones.
	sort.SliceStable(order, func(a, b int) bool { return labels[order[a]] < 0 && labels[order[b]] >= 0 })
	xys := make(plotter.XYs, n)
	for k, i := range order {
		xys[k] = plotter.XY{X: coords.At(i, 0), Y: coords.At(i, 1)}
	}
	p := plot.New()
	p.Title.Text = opts.Title
	p.X.Label.Text = opts.XLabel
	p.Y.Label.Text = opts.YLabel
	if opts.NoTicks {
		p.X.Tick.Marker = plot.ConstantTicks(nil)
		p.Y.Tick.Marker = plot.ConstantTicks(nil)
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, fmt.Errorf("viz: scatter plot: %w", err)
	}
	sc.GlyphStyleFunc = func(k int) draw.GlyphStyle { return ClassStyle(labels[order[k]], radius) }
	p.Add(sc)

	classes := map[int]bool{}
	for _, l := range labels {
		classes[max(l, -1)] = true
	}
	present := make([]int, 0, len(classes))
	for l := range classes {
		present = append(present, l)
	}
	sort.Ints(present)
	if !opts.NoLegend && n > 0 {
		p.Legend.Top = true
		p.Legend.ThumbnailWidth = 0.15 * vg.Inch
		for _, l := range present {
			name := "unlabelled"
			if l >= 0 {
				name = fmt.Sprintf("class %d", l)
				if l < len(opts.ClassNames) && opts.ClassNames[l] != "" {
					name = opts.ClassNames[l]
				}
			}
			p.Legend.Add(name, legendGlyph(ClassStyle(l, 3.5*vg.Length(1))))
		}
		// Reserve the right fifth of the x range for the legend.
		xmin, xmax, _, _ := sc.DataRange()
		w := xmax - xmin
		if w == 0 || math.IsNaN(w) {
			w = 1
		}
		p.X.Min, p.X.Max = xmin-0.02*w, xmax+0.3*w
	}
	return p, nil
}

// PNGDPI is the resolution of Render's PNG images.
const PNGDPI = 150

// Render encodes p as "png" (at PNGDPI) or "svg" at the given size.
func Render(p *plot.Plot, width, height vg.Length, format string) ([]byte, error) {
	var buf bytes.Buffer
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(PNGDPI))
		p.Draw(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("viz: render png: %w", err)
		}
	case "svg":
		w, err := p.WriterTo(width, height, format)
		if err != nil {
			return nil, fmt.Errorf("viz: render svg: %w", err)
		}
		if _, err := w.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("viz: render svg: %w", err)
		}
	default:
		return nil, fmt.Errorf("viz: image format %q, want png or svg", format)
	}
	return buf.Bytes(), nil
}

// RenderGrid lays plots out in rows of cols panels (cols ≤ 0: one row), each
// panel panelW×panelH, aligned so that their data areas have equal sizes,
// and encodes the whole as "png" (at PNGDPI) or "svg".
func RenderGrid(plots []*plot.Plot, cols int, panelW, panelH vg.Length, format string) ([]byte, error) {
	if len(plots) == 0 {
		return nil, fmt.Errorf("viz: a grid of no plots")
	}
	if cols <= 0 || cols > len(plots) {
		cols = len(plots)
	}
	rows := (len(plots) + cols - 1) / cols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range cols {
			if k := r*cols + c; k < len(plots) {
				grid[r][c] = plots[k]
			}
		}
	}
	w, h := panelW*vg.Length(cols), panelH*vg.Length(rows)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	drawAll := func(dc draw.Canvas) {
		canvases := plot.Align(grid, tiles, dc)
		for r := range grid {
			for c, p := range grid[r] {
				if p != nil {
					p.Draw(canvases[r][c])
				}
			}
		}
	}
	var buf bytes.Buffer
	switch format {
	case "png":
		c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PNGDPI))
		drawAll(draw.New(c))
		if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("viz: render png: %w", err)
		}
	case "svg":
		c := vgsvg.New(w, h)
		drawAll(draw.New(c))
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("viz: render svg: %w", err)
		}
	default:
		return nil, fmt.Errorf("viz: image format %q, want png or svg", format)
	}
	return buf.Bytes(), nil
}
