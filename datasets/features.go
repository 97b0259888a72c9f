package datasets

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// StandardizeColumns returns (X − μ)/σ per column, with μ and σ (population
// standard deviation, as scikit-learn's StandardScaler) computed over the
// given rows (all rows if rows is nil). Columns with σ = 0 are only centred.
func StandardizeColumns(x *mat.Dense, rows []int) *mat.Dense {
	r, c := x.Dims()
	if rows == nil {
		rows = make([]int, r)
		for i := range rows {
			rows[i] = i
		}
	}
	mean := make([]float64, c)
	for _, i := range rows {
		for j, v := range x.RawRowView(i) {
			mean[j] += v
		}
	}
	m := float64(len(rows))
	for j := range mean {
		mean[j] /= m
	}
	vr := make([]float64, c)
	for _, i := range rows {
		for j, v := range x.RawRowView(i) {
			d := v - mean[j]
			vr[j] += d * d
		}
	}
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
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		dst := out.RawRowView(i)
		for j, v := range x.RawRowView(i) {
			dst[j] = (v - mean[j]) * scale[j]
		}
	}
	return out
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
