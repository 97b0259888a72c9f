package kernelcheck

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseDistances(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []float64
		err  string
	}{
		{"0, 0.5,8", []float64{0, 0.5, 8}, ""},
		{"600", []float64{600}, ""},
		{"1,x", nil, `item 2 "x": want a number in [0, 600]`},
		{"-1", nil, `item 1 "-1": want a number in [0, 600]`},
		{"601", nil, `item 1 "601": want a number in [0, 600]`},
		{"NaN", nil, `item 1 "NaN": want a number in [0, 600]`},
		{"", nil, `item 1 "": want a number in [0, 600]`},
	} {
		got, err := ParseDistances(tc.in)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("%q: %v, %v", tc.in, got, err)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: item %d = %g, want %g", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

// In n = 3 the kernel has closed forms: k_λ(d) = sin(λd)/(2 λ sinh d) for
// a single λ, and for λ ~ N(0, s²) its Gaussian average.
func TestWriteCSV(t *testing.T) {
	two := 2.0
	for _, tc := range []struct {
		name string
		q    Query
		want map[float64]float64
		err  string
	}{
		{"continuation", Query{Dim: 3, Lambda: &two, Distances: []float64{0, 1, 3}}, map[float64]float64{
			0: 0.5, 1: 0.5 * math.Sin(2) / (2 * math.Sinh(1)), 3: 0.5 * math.Sin(6) / (2 * math.Sinh(3)),
		}, ""},
		{"quadrature", Query{Dim: 3, Lambda: &two, Method: "quadrature", Distances: []float64{1}}, map[float64]float64{
			1: 0.5 * math.Sin(2) / (2 * math.Sinh(1)),
		}, ""},
		{"gaussian", Query{Dim: 3, Scale: 1, Distances: []float64{2}}, map[float64]float64{
			2: 0.5 * math.Sqrt(math.Pi/2) * math.Erf(2/math.Sqrt2) / math.Sinh(2),
		}, ""},
		{"unknown method", Query{Dim: 3, Lambda: &two, Method: "series", Distances: []float64{1}}, nil,
			`"series": want continuation or quadrature`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := WriteCSV(&b, tc.q)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err || b.Len() != 0 {
					t.Fatalf("error %v, output %q; want only the error %q", err, b.String(), tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(b.String()), "\n")
			if lines[0] != "distance,k" || len(lines)-1 != len(tc.want) {
				t.Fatalf("output %q", b.String())
			}
			for _, l := range lines[1:] {
				f := strings.Split(l, ",")
				d, err1 := strconv.ParseFloat(f[0], 64)
				k, err2 := strconv.ParseFloat(f[1], 64)
				if err1 != nil || err2 != nil {
					t.Fatalf("line %q", l)
				}
				if math.Abs(k-tc.want[d]) > 1e-10 {
					t.Errorf("k(%g) = %.15g, want %.15g", d, k, tc.want[d])
				}
			}
		})
	}
}

// The figure's files are written in name order, and the same seed gives
// the same bytes.
func TestWriteFigure(t *testing.T) {
	cfg := FigureConfig{Dim: 2, Scale: 0.5, Points: 21, Grid: 11, Features: 50, SamplePoints: 50, FeatureCounts: []int{10, 50}, Workers: 2}
	var runs [2][]string
	for i := range runs {
		dir := filepath.Join(t.TempDir(), "fig")
		fig, paths, err := WriteFigure(context.Background(), dir, cfg, 7)
		if err != nil {
			t.Fatal(err)
		}
		if !(fig.DiskMAE > 0 && fig.DiskMAE < 1) {
			t.Errorf("disk MAE %g with D = 50", fig.DiskMAE)
		}
		for j, p := range paths {
			if j > 0 && paths[j-1] >= p {
				t.Errorf("paths not sorted: %v", paths)
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) == 0 {
				t.Fatalf("%s: %v (%d bytes)", p, err, len(b))
			}
			runs[i] = append(runs[i], filepath.Base(p)+"\x00"+string(b))
		}
	}
	var names []string
	for _, r := range runs[0] {
		names = append(names, r[:strings.IndexByte(r, 0)])
	}
	for _, want := range []string{"curve.csv", "disk.csv", "error.csv", "summary.json", "kernel_distance.png", "disk_kernel.svg", "error.png"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s among %v", want, names)
		}
	}
	for j := range runs[0] {
		if runs[0][j] != runs[1][j] {
			t.Errorf("file %d differs between two runs with seed 7", j)
		}
	}
	if _, _, err := WriteFigure(context.Background(), t.TempDir(), FigureConfig{Dim: 1, Scale: 0.5, Features: 10}, 1); err == nil {
		t.Error("dimension 1: no error")
	}
}
