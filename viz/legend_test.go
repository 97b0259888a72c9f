package viz

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestRenderLegendRight draws a red point in the top right corner of the
// data, where a legend inside the axes would sit, with a blue legend
// entry: the legend's pixels must lie right of every red one, and the
// title's first row must keep the margin from the top edge.
func TestRenderLegendRight(t *testing.T) {
	red := color.NRGBA{R: 255, A: 255}
	blue := color.NRGBA{B: 255, A: 255}
	mk := func() (*plot.Plot, plot.Legend) {
		p := plot.New()
		p.Title.Text = "Title Qy"
		p.BackgroundColor = color.White
		s, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
		if err != nil {
			t.Fatal(err)
		}
		s.GlyphStyle = draw.GlyphStyle{Color: red, Shape: draw.CircleGlyph{}, Radius: vg.Points(4)}
		p.Add(s)
		l := plot.NewLegend()
		g, err := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}})
		if err != nil {
			t.Fatal(err)
		}
		g.GlyphStyle = draw.GlyphStyle{Color: blue, Shape: draw.BoxGlyph{}, Radius: vg.Points(4)}
		l.Add("a rather long model name", g)
		return p, l
	}
	p, l := mk()
	b, err := RenderLegendRight(p, l, 4*vg.Inch, 3*vg.Inch, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	box := func(want func(r, g, b uint32) bool) image.Rectangle {
		var out image.Rectangle
		first := true
		bb := img.Bounds()
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if !want(r>>8, g>>8, b>>8) {
					continue
				}
				pt := image.Rect(x, y, x+1, y+1)
				if first {
					out, first = pt, false
				} else {
					out = out.Union(pt)
				}
			}
		}
		return out
	}
	reds := box(func(r, g, b uint32) bool { return r > 200 && g < 80 && b < 80 })
	blues := box(func(r, g, b uint32) bool { return b > 200 && r < 80 && g < 80 })
	dark := box(func(r, g, b uint32) bool { return r < 100 && g < 100 && b < 100 })
	if reds.Empty() || blues.Empty() {
		t.Fatalf("no red data (%v) or blue legend (%v) pixels", reds, blues)
	}
	if blues.Min.X <= reds.Max.X {
		t.Errorf("legend glyph at x ≥ %d overlaps the data, which reach x = %d", blues.Min.X, reds.Max.X)
	}
	if margin := int(LegendMargin.Dots(PNGDPI)); dark.Min.Y < margin {
		t.Errorf("the title's first row is %d, within the %d-pixel margin from the top", dark.Min.Y, margin)
	}
	if dark.Max.X >= img.Bounds().Max.X-1 {
		t.Errorf("text reaches the right edge (x = %d of %d): the legend is clipped", dark.Max.X, img.Bounds().Max.X)
	}

	p, l = mk()
	svg, err := RenderLegendRight(p, l, 4*vg.Inch, 3*vg.Inch, "svg")
	if err != nil || !bytes.Contains(svg, []byte("a rather long model name")) {
		t.Errorf("svg: %v, legend text present: %v", err, bytes.Contains(svg, []byte("a rather long model name")))
	}
	p, l = mk()
	if _, err := RenderLegendRight(p, l, 4*vg.Inch, 3*vg.Inch, "gif"); err == nil || !strings.Contains(err.Error(), `"gif"`) {
		t.Errorf("gif: %v, want an error naming the format", err)
	}
}
