package table

import (
	"math"
	"strconv"
)

// SpreadName names the spread every "±" of hylaflow shows; titles, table
// notes, reports and runs diff say it (see the package doc).
const SpreadName = "sample std"

// MeanStdNote is how a table's caption describes its cells.
const MeanStdNote = "mean ± " + SpreadName

// Spread is a mean over N values with the sample standard deviation of
// those values. Std is nil when there is no spread to show: fewer than two
// values, or a published value given without one. N is 0 when the count is
// unknown (the paper's cells).
type Spread struct {
	Mean float64
	Std  *float64
	N    int
}

// Summarize returns the mean and the sample std (n−1) of values; Std is
// nil for fewer than two values. It sums in the values' order, so the same
// values give the same bits.
func Summarize(values []float64) Spread {
	s := Spread{N: len(values)}
	if len(values) == 0 {
		return s
	}
	var sum float64
	for _, x := range values {
		sum += x
	}
	s.Mean = sum / float64(len(values))
	if len(values) < 2 {
		return s
	}
	var q float64
	for _, x := range values {
		q += (x - s.Mean) * (x - s.Mean)
	}
	sd := math.Sqrt(q / float64(len(values)-1))
	s.Std = &sd
	return s
}

// StdOr0 returns the std, 0 when there is none.
func (s Spread) StdOr0() float64 {
	if s.Std == nil {
		return 0
	}
	return *s.Std
}

// Text formats the spread with prec decimals, as every table cell shows
// it: "72.1 ± 0.4"; a single value "72.1 (n = 1)" (one run has no spread,
// and "± 0.0" would claim one of zero); a value without a std (the paper's
// Reddit cells) "94.9".
func (s Spread) Text(prec int) string {
	m := Num(s.Mean, prec)
	switch {
	case s.N == 1:
		return m + " (n = 1)"
	case s.Std == nil:
		return m
	}
	return m + " ± " + Num(*s.Std, prec)
}

// TextN is Text with the number of values: "72.06 ± 0.35 (n = 3)", as runs
// diff and report --compare show both sides of a cell. With N unknown (0)
// it is Text.
func (s Spread) TextN(prec int) string {
	if s.N <= 1 {
		return s.Text(prec)
	}
	return s.Text(prec) + " (n = " + strconv.Itoa(s.N) + ")"
}

// Num formats v with prec decimals ("72.1"); negative zero prints as "0.0".
func Num(v float64, prec int) string {
	if v == 0 {
		v = 0 // -0 → +0
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// Signed formats v with prec decimals and its sign ("+0.4", "-2.1").
func Signed(v float64, prec int) string {
	s := Num(v, prec)
	if s[0] != '-' {
		s = "+" + s
	}
	return s
}
