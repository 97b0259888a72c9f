package viz

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func TestScatterPlotImages(t *testing.T) {
	x, labels := gaussianClusters(2, 3, 30, 2, 8)
	labels[0] = -1
	p, err := ScatterPlot(x, labels, ScatterOptions{Title: "Three clusters", XLabel: "t-SNE 1", YLabel: "t-SNE 2",
		ClassNames: []string{"alpha", "beta"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Render(p, 4*vg.Inch, 3*vg.Inch, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 4*PNGDPI || h != 3*PNGDPI {
		t.Errorf("image %d×%d, want %d×%d", w, h, 4*PNGDPI, 3*PNGDPI)
	}
	// Every class colour (and only those) appears in the picture.
	seen := map[color.NRGBA]int{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			seen[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)]++
		}
	}
	for c := range 3 {
		if seen[Palette[c]] < 10 {
			t.Errorf("class %d colour %v: %d pixels", c, Palette[c], seen[Palette[c]])
		}
	}
	if seen[UnlabelledColor] == 0 {
		t.Error("no unlabelled point drawn")
	}
	if seen[Palette[3]] != 0 {
		t.Errorf("colour of absent class 3 drawn %d times", seen[Palette[3]])
	}
	svg, err := Render(p, 4*vg.Inch, 3*vg.Inch, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Three clusters", "alpha", "beta", "class 2", "unlabelled", "t-SNE 1"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if !bytes.Contains(svg, []byte(">0<")) && !bytes.Contains(svg, []byte(">5<")) && !bytes.Contains(svg, []byte(">10<")) {
		t.Error("SVG has no tick numbers")
	}
	noTicks, err := ScatterPlot(x, labels, ScatterOptions{Title: "Three clusters", NoTicks: true})
	if err != nil {
		t.Fatal(err)
	}
	if svg2, _ := Render(noTicks, 4*vg.Inch, 3*vg.Inch, "svg"); bytes.Contains(svg2, []byte(">0<")) || bytes.Contains(svg2, []byte(">5<")) || bytes.Contains(svg2, []byte(">10<")) {
		t.Error("NoTicks SVG has tick numbers")
	}
	again, _ := Render(p, 4*vg.Inch, 3*vg.Inch, "png")
	if !bytes.Equal(b, again) {
		t.Error("PNG rendering is not deterministic")
	}
}

func TestScatterPlotErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x      *mat.Dense
		labels []int
		want   string
	}{
		{"three columns", mat.NewDense(2, 3, nil), []int{0, 1}, "3-column"},
		{"label count", mat.NewDense(2, 2, nil), []int{0}, "2 points with 1 labels"},
		{"NaN", mat.NewDense(1, 2, []float64{0, nanF()}), []int{0}, "NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ScatterPlot(tc.x, tc.labels, ScatterOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	p, _ := ScatterPlot(mat.NewDense(1, 2, nil), []int{0}, ScatterOptions{})
	if _, err := Render(p, vg.Inch, vg.Inch, "gif"); err == nil {
		t.Error("gif accepted")
	}
}

func TestRenderGrid(t *testing.T) {
	var plots []*plot.Plot
	for k, title := range []string{"first panel", "second panel", "third panel"} {
		x, labels := gaussianClusters(uint64(k), k+2, 20, 2, 8)
		p, err := ScatterPlot(x, labels, ScatterOptions{Title: title, NoTicks: k == 0})
		if err != nil {
			t.Fatal(err)
		}
		plots = append(plots, p)
	}
	for _, tc := range []struct {
		cols       int
		wIn, hIn   int
		wantColors int
	}{{0, 9, 2, 4}, {2, 6, 4, 4}, {5, 9, 2, 4}} {
		b, err := RenderGrid(plots, tc.cols, 3*vg.Inch, 2*vg.Inch, "png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != tc.wIn*PNGDPI || h != tc.hIn*PNGDPI {
			t.Errorf("cols %d: image %d×%d, want %d×%d", tc.cols, w, h, tc.wIn*PNGDPI, tc.hIn*PNGDPI)
		}
		seen := map[color.NRGBA]bool{}
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				seen[color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)] = true
			}
		}
		for c := range tc.wantColors { // the third panel has classes 0..3
			if !seen[Palette[c]] {
				t.Errorf("cols %d: class %d colour missing", tc.cols, c)
			}
		}
	}
	svg, err := RenderGrid(plots, 0, 3*vg.Inch, 2*vg.Inch, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first panel", "second panel", "third panel"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if _, err := RenderGrid(nil, 0, vg.Inch, vg.Inch, "png"); err == nil {
		t.Error("empty grid accepted")
	}
	if _, err := RenderGrid(plots, 0, vg.Inch, vg.Inch, "gif"); err == nil {
		t.Error("gif accepted")
	}
}
