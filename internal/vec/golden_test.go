package vec

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/kernels.sha256")

// goldenDigest runs every kernel on fixed inputs (made without the math
// package's transcendental functions, whose assembly differs between
// architectures) and returns the sha256 of all their outputs' bits.
func goldenDigest() string {
	r := rand.New(rand.NewPCG(2026, 11))
	h := sha256.New()
	put := func(xs ...float64) {
		var b [8]byte
		for _, x := range xs {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
	}
	for _, n := range []int{8, 24, 40, 72, 200} {
		d0 := 1 + n%17
		stride := n + 3
		z, om := randSlice(r, d0, 0.9), randSlice(r, d0*stride, 1)
		q := make([]float64, n)
		Dist(z, om, stride, q)
		put(q...)
		Args(z, om, stride, q)
		put(q...)
		Args2(z, om, stride, q)
		put(q...)
		lam := make([]float64, n)
		for j := range q {
			q[j] = math.Ldexp(1+r.Float64(), r.IntN(40)-20)
			lam[j] = (2*r.Float64() - 1) / 60
		}
		sb, cb := randSlice(r, n, 1), randSlice(r, n, 1)
		phi, e1, e2 := make([]float64, n), make([]float64, n), make([]float64, n)
		put(float64(MathA(q, lam, phi, e1, e2, 0.75)))
		MathB(lam, sb, cb, phi, e1, e2, d0)
		put(phi...)
		put(e1...)
		put(e2...)
		var s [16]float64
		c := make([]float64, n)
		GradPass(om, stride, z[:min(d0, 3)], e1, e2, c, &s)
		put(c...)
		put(s[:]...)
		y := randSlice(r, 8*stride, 1)
		var o8 [8]float64
		var o32 [32]float64
		var o64 [64]float64
		var o128 [128]float64
		Dot1(phi, y, &o8)
		put(o8[:]...)
		Dot4(phi, y, stride, &o32)
		put(o32[:]...)
		Gz8(c, y, stride, &o64)
		put(o64[:]...)
		xs := [4][]float64{phi, e1, e2, c}
		Dots4x4(&xs, y, stride, &o128)
		put(o128[:]...)
		part := randSlice(r, 3*stride, 1)
		Axpy(part, stride, z[:min(d0, 3)], phi)
		put(part...)
		rows, cols := 1+n%9, n+5
		gp, x, out := randSlice(r, 4*rows, 1), randSlice(r, rows*cols, 1), randSlice(r, 4*cols, 1)
		GtxTiles(gp, x, cols, rows, out, cols, cols/32, 4)
		GtxTile(gp, x[cols/32*32:], cols, rows, out[cols/32*32:], cols, cols%32, 3)
		put(out...)
		o, e := make([]float64, 8), make([]float64, 8)
		arg := randSlice(r, 8, 0.5)
		if SinCosAdd(arg, sb, cb, 0.3, o, e) {
			put(o...)
			put(e...)
		}
		big := randSlice(r, d0*stride, 7)
		ph := randSlice(r, 8, 3)
		if RFFExact(z, big, stride, ph, 0.3, o, e) {
			put(o...)
			put(e...)
		}
		idx := make([]int32, n%11)
		for k := range idx {
			idx[k] = int32(r.IntN(rows))
		}
		d := randSlice(r, cols, 1)
		SpMMRow(idx, randSlice(r, len(idx), 2), x, cols, d, n%2 == 0)
		put(d...)
		for k := 0; k < 50; k++ {
			sn, cs := Sincos((2*r.Float64() - 1) * math.Ldexp(1, r.IntN(40)-10))
			put(sn, cs, vlog(math.Ldexp(1+r.Float64(), r.IntN(200)-100)))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestKernelsGolden pins the digest of every kernel's outputs on fixed
// inputs: each path of this CPU must give it, and so must other
// architectures (CI runs this package under qemu-aarch64, where only the
// portable path exists).
func TestKernelsGolden(t *testing.T) {
	checkGolden(t, "kernels", "kernels.sha256", goldenDigest)
}

// checkGolden compares digest's result on every path with the one in
// testdata/file (rewritten from the portable path with -update).
func checkGolden(t *testing.T, what, file string, digest func() string) {
	t.Helper()
	file = filepath.Join("testdata", file)
	got := onEveryPath(t, digest)
	if *updateGolden {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got[Generic]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(string(raw))
	for a, d := range got {
		if d != want {
			t.Errorf("%s %s: digest %s, want %s (%s)", a, what, d, want, file)
		}
	}
}
