//go:build goexperiment.simd && amd64

package sparse

import "simd/archsimd"

// spmmVecOK reports whether the AVX-512 product kernel runs on this CPU.
var spmmVecOK = archsimd.X86.AVX512()

// spmmRangeAVX512 is spmmRange with the accumulators in AVX-512 registers:
// for each row and each run of up to 32 columns it sums
// m.Data[p]·src[j, c:c+32] over the row's entries into four registers and
// stores them once. Every entry is the same sequence of roundings as the
// portable path (a product, then an addition; no fused multiply-add), so the
// results are bit-identical to it.
func spmmRangeAVX512(m *CSR, src []float64, ss int, dst []float64, ds, w, lo, hi int) {
	zero := archsimd.BroadcastFloat64x8(0)
	for i := lo; i < hi; i++ {
		p0, p1 := m.Indptr[i], m.Indptr[i+1]
		idx := m.Indices[p0:p1]
		val := m.Data[p0:p1:p1]
		drow := dst[i*ds : i*ds+w]
		c := 0
		for ; c+32 <= w; c += 32 {
			a0, a1, a2, a3 := zero, zero, zero, zero
			for q, j := range idx {
				v := archsimd.BroadcastFloat64x8(val[q])
				s := src[int(j)*ss+c : int(j)*ss+c+32]
				a0 = a0.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[0:8])))
				a1 = a1.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[8:16])))
				a2 = a2.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[16:24])))
				a3 = a3.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[24:32])))
			}
			a0.StoreSlice(drow[c : c+8])
			a1.StoreSlice(drow[c+8 : c+16])
			a2.StoreSlice(drow[c+16 : c+24])
			a3.StoreSlice(drow[c+24 : c+32])
		}
		if c+16 <= w {
			a0, a1 := zero, zero
			for q, j := range idx {
				v := archsimd.BroadcastFloat64x8(val[q])
				s := src[int(j)*ss+c : int(j)*ss+c+16]
				a0 = a0.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[0:8])))
				a1 = a1.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[8:16])))
			}
			a0.StoreSlice(drow[c : c+8])
			a1.StoreSlice(drow[c+8 : c+16])
			c += 16
		}
		if c+8 <= w {
			a0 := zero
			for q, j := range idx {
				a0 = a0.Add(archsimd.BroadcastFloat64x8(val[q]).Mul(archsimd.LoadFloat64x8Slice(src[int(j)*ss+c : int(j)*ss+c+8])))
			}
			a0.StoreSlice(drow[c : c+8])
			c += 8
		}
		for ; c < w; c++ {
			acc := 0.0
			for q, j := range idx {
				acc += float64(val[q] * src[int(j)*ss+c])
			}
			drow[c] = acc
		}
	}
}

// spmmSegAVX512 is spmmSeg with the AVX-512 kernel: the entries of rows
// [lo, hi) from cur[i] up to the first column ≥ s1 are added to the row's
// partial sums in dst (or to zero when first), in stored order, each product
// rounded before it is added, exactly as in spmmRangeAVX512.
func spmmSegAVX512(m *CSR, src []float64, ss int, dst []float64, ds, w, lo, hi int, s1 int32, first bool, cur []int) {
	zero := archsimd.BroadcastFloat64x8(0)
	for i := lo; i < hi; i++ {
		p0, end := cur[i], m.Indptr[i+1]
		p1 := p0
		for p1 < end && m.Indices[p1] < s1 {
			p1++
		}
		cur[i] = p1
		if p1 == p0 && !first {
			continue
		}
		idx := m.Indices[p0:p1]
		val := m.Data[p0:p1:p1]
		drow := dst[i*ds : i*ds+w]
		c := 0
		for ; c+32 <= w; c += 32 {
			a0, a1, a2, a3 := zero, zero, zero, zero
			if !first {
				a0 = archsimd.LoadFloat64x8Slice(drow[c : c+8])
				a1 = archsimd.LoadFloat64x8Slice(drow[c+8 : c+16])
				a2 = archsimd.LoadFloat64x8Slice(drow[c+16 : c+24])
				a3 = archsimd.LoadFloat64x8Slice(drow[c+24 : c+32])
			}
			for q, j := range idx {
				v := archsimd.BroadcastFloat64x8(val[q])
				s := src[int(j)*ss+c : int(j)*ss+c+32]
				a0 = a0.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[0:8])))
				a1 = a1.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[8:16])))
				a2 = a2.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[16:24])))
				a3 = a3.Add(v.Mul(archsimd.LoadFloat64x8Slice(s[24:32])))
			}
			a0.StoreSlice(drow[c : c+8])
			a1.StoreSlice(drow[c+8 : c+16])
			a2.StoreSlice(drow[c+16 : c+24])
			a3.StoreSlice(drow[c+24 : c+32])
		}
		for ; c+8 <= w; c += 8 {
			a0 := zero
			if !first {
				a0 = archsimd.LoadFloat64x8Slice(drow[c : c+8])
			}
			for q, j := range idx {
				a0 = a0.Add(archsimd.BroadcastFloat64x8(val[q]).Mul(archsimd.LoadFloat64x8Slice(src[int(j)*ss+c : int(j)*ss+c+8])))
			}
			a0.StoreSlice(drow[c : c+8])
		}
		for ; c < w; c++ {
			acc := 0.0
			if !first {
				acc = drow[c]
			}
			for q, j := range idx {
				acc += float64(val[q] * src[int(j)*ss+c])
			}
			drow[c] = acc
		}
	}
}
