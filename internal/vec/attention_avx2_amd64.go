package vec

// The attention kernels of the AVX2 path (avx2_attention_amd64.s): the
// AVX-512 ones' operations on each half of a block of eight heads. Strides
// and column offsets are in bytes.

//go:noescape
func attnSoftmax8AVX2(idx *int32, deg int, di, src *float64, limit int, slope float64, al *float64, mask *uint8, factor float64, da *float64) int

//go:noescape
func attnAggregate8x8AVX2(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, gcolBytes int) bool

//go:noescape
func attnAggregate8x4AVX2(idx *int32, deg int, w, src *float64, strideBytes, limit int, acc *float64, c, gcolBytes int) bool

//go:noescape
func attnGrad8AVX2(idx *int32, deg int, gT, hT *float64, rowBytes, limit int, al *float64, mask *uint8, factor float64, di, src *float64, slope float64, gm, gdst *float64) bool

//go:noescape
func attnGather8AVX2(edges *int, ne int, ge, da *float64, limit int, gs, w *float64) bool

//go:noescape
func attnInputGrad8AVX2(acc, gs, gd, as, ad, gh *float64)
