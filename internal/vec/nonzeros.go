package vec

// CompressSlack is how many entries past the non-zeros' count
// CompressNonzeros may write: idx and val need len(x) + CompressSlack.
const CompressSlack = 8

// CompressNonzeros writes the positions and values of x's non-zero
// entries (x[l] != 0: ±0 are zeros, a NaN is not), in order, to idx and
// val, and returns their number n. Past n, up to CompressSlack more
// entries of idx and val may be written (the vector kernels store whole
// registers); idx and val must hold len(x) + CompressSlack.
func CompressNonzeros(x []float64, idx []int32, val []float64) int {
	idx, val = idx[:len(x)+CompressSlack], val[:len(x)+CompressSlack]
	n, l0 := 0, 0
	switch {
	case active == AVX512 && len(x) > 0:
		return compressNonzerosAVX512(&x[0], len(x), &idx[0], &val[0])
	case active == AVX2 && len(x) >= 4:
		// The whole groups of four; the last 0–3 entries below.
		l0 = len(x) &^ 3
		n = compressNonzerosAVX2(&x[0], len(x), &idx[0], &val[0])
	}
	// Every entry is written at the next free place, which advances only
	// for a non-zero: no branch on the value, which is unpredictable after
	// ReLU and dropout.
	for l := l0; l < len(x); l++ {
		v := x[l]
		idx[n], val[n] = int32(l), v
		n += b2i(v != 0)
	}
	return n
}
