// Package kernelcheck evaluates the HyLa kernel k(d) of Theorem 4.1 for
// given distances and writes the kernel figures into a directory: what
// `hylaflow kernel` prints, outside any pipeline, so that a kernel value
// can be checked against the paper without running one.
package kernelcheck

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/hyla"
	"github.com/hylaflow/hylaflow/stages"
)

// MaxDistance is the largest hyperbolic distance the kernel is evaluated at.
const MaxDistance = hyla.MaxKernelDistance

// Methods are the ways to evaluate the kernel of a single λ.
var Methods = []string{"continuation", "quadrature"}

// Query is one table of kernel values: for a single λ (Lambda set, by
// Method) or for λ ~ N(0, Scale²) (Gauss–Hermite with Nodes nodes, 0 =
// automatic), in dimension Dim, at each of Distances.
type Query struct {
	Dim       int
	Lambda    *float64
	Method    string // with Lambda: "continuation" (default) or "quadrature"
	Scale     float64
	Nodes     int
	Distances []float64
}

// ParseDistances reads a comma-separated list of distances in [0,
// MaxDistance]; an error names the item (from 1) that is not one.
func ParseDistances(list string) ([]float64, error) {
	var ds []float64
	for i, f := range strings.Split(list, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v >= 0 && v <= MaxDistance) {
			return nil, fmt.Errorf("item %d %q: want a number in [0, %d]", i+1, f, MaxDistance)
		}
		ds = append(ds, v)
	}
	return ds, nil
}

// Func returns the function d ↦ k(d) of q, or an error for an unknown Method.
func (q Query) Func() (func(d float64) (float64, error), error) {
	if q.Lambda == nil {
		return func(d float64) (float64, error) { return hyla.KernelGaussian(q.Dim, q.Scale, d, q.Nodes) }, nil
	}
	l := *q.Lambda
	switch q.Method {
	case "continuation", "":
		return func(d float64) (float64, error) { return hyla.KernelLambda(q.Dim, l, d) }, nil
	case "quadrature":
		return func(d float64) (float64, error) { return hyla.KernelLambdaQuad(q.Dim, l, d) }, nil
	}
	return nil, fmt.Errorf("%q: want %s", q.Method, strings.Join(Methods, " or "))
}

// WriteCSV writes the table of q: a header "distance,k", then one line per
// distance with both values in the shortest form that reads back exactly.
func WriteCSV(w io.Writer, q Query) error {
	k, err := q.Func()
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, "distance,k"); err != nil {
		return err
	}
	for _, d := range q.Distances {
		v, err := k(d)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s,%s\n", strconv.FormatFloat(d, 'g', -1, 64), strconv.FormatFloat(v, 'g', -1, 64)); err != nil {
			return err
		}
	}
	return nil
}

// FigureConfig configures the kernel figures (see hyla.KernelFigureConfig).
type FigureConfig = hyla.KernelFigureConfig

// Figure is the computed kernel figure (see hyla.KernelFigure).
type Figure = hyla.KernelFigure

// WriteFigure computes the kernel figures of cfg with the random features
// and points drawn from seed, the same files the kernel_figure stage
// makes, and writes them into dir (created if needed). It returns the
// figure (its DiskMAE is the disk's mean |estimate − kernel|) and the
// paths written, sorted; after a failed write, those written before it.
func WriteFigure(ctx context.Context, dir string, cfg FigureConfig, seed uint64) (fig *Figure, paths []string, err error) {
	fig, err = hyla.ComputeKernelFigure(ctx, cfg, rand.New(rand.NewPCG(seed, 0)))
	if err != nil {
		return nil, nil, err
	}
	files, err := stages.KernelFigureFiles(fig)
	if err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return fig, paths, err
		}
		paths = append(paths, p)
	}
	return fig, paths, nil
}
