package vec

// fmaPeakAVX2 runs n iterations of twelve independent four-lane fused
// multiply-adds (peak_amd64.s; BenchmarkPeakFMA).
//
//go:noescape
func fmaPeakAVX2(n int) float64

// fmaPeakAVX512 is fmaPeakAVX2 with eight-lane fused multiply-adds.
//
//go:noescape
func fmaPeakAVX512(n int) float64

// readPeakAVX2 sums nb blocks of 256 bytes from p (BenchmarkPeakRead).
//
//go:noescape
func readPeakAVX2(p *float64, nb int) float64
