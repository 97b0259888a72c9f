package datasets

import (
	"context"
	"math"
	"runtime"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// StandardizeColumns returns (X − μ)/σ per column, with μ and σ (population
// standard deviation, as scikit-learn's StandardScaler) computed over the
// given rows (all rows if rows is nil). Columns with σ = 0 are only centred.
// The work runs on up to GOMAXPROCS goroutines, column ranges for the
// statistics (each column summed over the rows in order) and row ranges for
// the output, so the result does not depend on their number.
func StandardizeColumns(x *mat.Dense, rows []int) *mat.Dense {
	r, c := x.Dims()
	if rows == nil {
		rows = make([]int, r)
		for i := range rows {
			rows[i] = i
		}
	}
	mean := make([]float64, c)
	vr := make([]float64, c)
	m := float64(len(rows))
	xr := x.RawMatrix()
	workers := runtime.GOMAXPROCS(0)
	if float64(len(rows))*float64(c) < 1<<20 {
		workers = 1
	}
	// Column ranges of at least 8 columns (a cache line) per goroutine.
	parts := max(1, min(workers, c/8))
	standardizeRun(parts, func(w int) {
		c0, c1 := c*w/parts, c*(w+1)/parts
		mu, v := mean[c0:c1], vr[c0:c1]
		for _, i := range rows {
			for j, x := range xr.Data[i*xr.Stride+c0 : i*xr.Stride+c1] {
				mu[j] += x
			}
		}
		for j := range mu {
			mu[j] /= m
		}
		for _, i := range rows {
			for j, x := range xr.Data[i*xr.Stride+c0 : i*xr.Stride+c1] {
				d := x - mu[j]
				v[j] += d * d
			}
		}
	})
	scale := make([]float64, c)
	for j := range scale {
		sd := math.Sqrt(vr[j] / m)
		if sd == 0 || len(rows) == 0 {
			scale[j] = 1
		} else {
			scale[j] = 1 / sd
		}
		if len(rows) == 0 {
			mean[j] = 0
		}
	}
	out := sparse.NewDense(r, c)
	parts = max(1, min(workers, r/64))
	standardizeRun(parts, func(w int) {
		for i := r * w / parts; i < r*(w+1)/parts; i++ {
			dst := out.RawRowView(i)
			for j, v := range x.RawRowView(i) {
				dst[j] = (v - mean[j]) * scale[j]
			}
		}
	})
	return out
}

// standardizeRun calls f(0..parts-1), each on its own goroutine.
func standardizeRun(parts int, f func(w int)) {
	parallel.Blocks(context.Background(), parts, 1, parts, func(w, _, _ int) { f(w) })
}

// RowNormalizeDense divides every row by its sum (rows summing to 0 are kept).
func RowNormalizeDense(x *mat.Dense) *mat.Dense {
	out := mat.DenseCopyOf(x)
	r, _ := out.Dims()
	for i := 0; i < r; i++ {
		row := out.RawRowView(i)
		s := 0.0
		for _, v := range row {
			s += v
		}
		if s != 0 {
			for j := range row {
				row[j] /= s
			}
		}
	}
	return out
}
