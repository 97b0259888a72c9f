package vec

// GonumDots sets c[j] = Σ_q a[q]·bt[q·stride + j] for j < len(c), with
// the bits of gonum's f64.DotUnitary on amd64 for the vectors a and
// (bt[q·stride + j])_q, and then 0 + that, as gonum's Dgemm with β = 0 and
// α = 1 stores it: the dot product in four partial sums (the terms q ≡ 0,
// 1, 2, 3 mod 4 of the whole groups of four, each from +0 in order; the
// last len(a) mod 4 terms go to the first sum), added as (s0 + s2) +
// (s1 + s3), every product rounded before it is added. So c is a row of
// gonum's A·Bᵀ for a row a of A and bt = Bᵀ, when the inner dimension is
// at most 64 (gonum's block, past which its parallel path splits the
// sums): autodiff's MatMul computes its input's gradient G·Wᵀ this way.
// On the AVX-512 path eight columns j are the lanes of one register, on
// the AVX2 path of two.
func GonumDots(a, bt []float64, stride int, c []float64) {
	k, n := len(a), len(c)
	if n == 0 {
		return
	}
	if k > 0 {
		_ = bt[(k-1)*stride+n-1] // every row of bt holds n values
	}
	if k > 0 {
		switch active {
		case AVX512:
			gonumDotsAVX512(&a[0], k, &bt[0], stride*8, &c[0], n)
			return
		case AVX2:
			gonumDotsAVX2(&a[0], k, &bt[0], stride*8, &c[0], n)
			return
		}
	}
	gonumDotsGeneric(a, bt, stride, c)
}

// gonumDotsGeneric is GonumDots column by column.
func gonumDotsGeneric(a, bt []float64, stride int, c []float64) {
	k := len(a)
	k4 := k / 4 * 4
	for j := range c {
		var s0, s1, s2, s3 float64
		for q := 0; q < k4; q += 4 {
			s0 += float64(a[q] * bt[q*stride+j])
			s1 += float64(a[q+1] * bt[(q+1)*stride+j])
			s2 += float64(a[q+2] * bt[(q+2)*stride+j])
			s3 += float64(a[q+3] * bt[(q+3)*stride+j])
		}
		for q := k4; q < k; q++ {
			s0 += float64(a[q] * bt[q*stride+j])
		}
		c[j] = 0 + ((s0 + s2) + (s1 + s3))
	}
}
