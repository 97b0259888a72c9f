package viz

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// LegendMargin is the blank border RenderLegendRight keeps around the
// figure, so that neither the title nor the legend touches the edge.
const LegendMargin = 6 * vg.Millimeter / 4

// RenderLegendRight encodes p as "png" (at PNGDPI) or "svg" at the given
// size with legend in a column of its own to the right of p's axes, top
// aligned with the data area, so that it never covers the data, and with a
// margin above p's title, which is wrapped to fit the plot's width
// (FitTitle). p's own legend should be empty (entries added to
// legend instead: plot.NewLegend()).
func RenderLegendRight(p *plot.Plot, legend plot.Legend, width, height vg.Length, format string) ([]byte, error) {
	var cw vg.CanvasWriterTo
	switch format {
	case "png":
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(PNGDPI))}
	case "svg":
		var err error
		if cw, err = draw.NewFormattedCanvas(width, height, format); err != nil {
			return nil, fmt.Errorf("viz: render svg: %w", err)
		}
	default:
		return nil, fmt.Errorf("viz: image format %q, want png or svg", format)
	}
	dc := draw.New(cw)
	if p.BackgroundColor != nil {
		dc.SetColor(p.BackgroundColor)
		dc.Fill(dc.Rectangle.Path())
	}
	legend.Left, legend.Top = true, true
	r := legend.Rectangle(dc)
	lw := r.Max.X - r.Min.X
	gap := LegendMargin
	if lw == 0 {
		gap = 0
	}
	inner := draw.Crop(dc, LegendMargin, -LegendMargin, LegendMargin, -LegendMargin)
	area := draw.Crop(inner, 0, -(lw + gap), 0, 0)
	// The title is centred over the plot's area: a longer one is wrapped
	// to its width (FitTitle), else it is cut at both ends.
	defer func(title string) { p.Title.Text = title }(p.Title.Text)
	p.Title.Text = FitTitle(p.Title.TextStyle, p.Title.Text, area.Max.X-area.Min.X)
	p.Draw(area)
	if lw > 0 {
		top := vg.Length(0)
		if p.Title.Text != "" {
			top = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		legend.Draw(draw.Crop(inner, inner.Max.X-inner.Min.X-lw, 0, 0, -top))
	}
	var buf bytes.Buffer
	if _, err := cw.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("viz: render %s: %w", format, err)
	}
	return buf.Bytes(), nil
}
