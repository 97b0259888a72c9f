//go:build amd64 && !amd64.v3

package vec

// The math package compiled for amd64 below v3 has no fused multiply-adds,
// so Sincos must equal math.Sincos bit for bit here.
const mathUnfused = true
