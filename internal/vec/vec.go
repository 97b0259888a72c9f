// Package vec holds hylaflow's vector kernels: the loops of the HyLa and RFF
// feature maps and of the classifier's products, each in three
// implementations that give identical bits — AVX-512 and AVX2+FMA assembly
// (amd64) and portable Go — chosen once at start-up from the CPU's features
// (golang.org/x/sys/cpu), in the spirit of gonum's internal/asm.
//
// The arithmetic of every kernel is defined by eight lanes: a vector of
// eight float64 is a block, every sum runs in eight lane accumulators (lane
// j mod 8) in a fixed order, and every step is one IEEE operation on each
// lane — a product, a sum, a quotient, a square root, or a fused
// multiply-add where the kernel's documentation says so. The AVX-512 code
// does a block in one register; the AVX2 code does the same operations on
// the two halves of a block in two registers; the portable code does them
// lane by lane with math.FMA for the fused steps and explicit float64
// conversions around every other product, so the Go compiler cannot fuse
// them on any architecture. The polynomials (the logarithm, the sine and
// cosine of small angles) are the package's own, never the math package's,
// whose assembly differs between architectures. The results are therefore
// the same on every path and every machine: a cached artifact does not
// depend on the CPU that computed it.
//
// The two assembly files are written by hand rather than generated from one
// definition (say with avo): they share the arithmetic, not the code. The
// AVX-512 kernels keep a block in one of 32 registers and tile eight blocks
// at a time, with masked tails (gtxTileMasked) and a 4×4 dot-product tile
// (dots4x4) the AVX2 side has no registers for; the AVX2 kernels split each
// block over two of 16 registers, tile four, and add kernels of their own
// (rffExact, spmmRow4, which the AVX-512 path calls too). A generator would
// have to describe both tilings and register allocations per kernel, which
// is the assembly again with another syntax. What keeps the paths the same
// is tested instead: every kernel on every path against the portable code,
// bit for bit, with golden digests (golden_test.go), and guard bands around
// every output for every length 0–70 at unaligned offsets (guard_test.go).
//
// The environment variable HYLAFLOW_CPU forces a lower path: "avx512",
// "avx2" or "generic" (empty or "auto": the best the CPU supports). A path
// the CPU lacks falls back to the best one it has, and an unknown value is
// reported on standard error, never ignored silently. Path names the path in
// use, for `hylaflow bench` and `hylaflow version`.
package vec

import (
	"fmt"
	"os"
	"strings"
)

// Arch is a kernel implementation.
type Arch int

const (
	// Generic is the portable Go code.
	Generic Arch = iota
	// AVX2 is the AVX2+FMA assembly (amd64).
	AVX2
	// AVX512 is the AVX-512 (F, DQ) assembly (amd64).
	AVX512
)

// String returns the name HYLAFLOW_CPU uses for a.
func (a Arch) String() string {
	switch a {
	case AVX512:
		return "avx512"
	case AVX2:
		return "avx2"
	case Generic:
		return "generic"
	}
	return fmt.Sprintf("Arch(%d)", int(a))
}

// ParseArch returns the Arch named s ("avx512", "avx2" or "generic", any
// case).
func ParseArch(s string) (Arch, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "avx512":
		return AVX512, nil
	case "avx2":
		return AVX2, nil
	case "generic":
		return Generic, nil
	}
	return 0, fmt.Errorf("unknown kernel path %q (want avx512, avx2 or generic)", s)
}

// EnvVar is the environment variable that forces a kernel path.
const EnvVar = "HYLAFLOW_CPU"

var (
	// best is the best path the CPU supports.
	best = detect()
	// active is the path the kernels take.
	active Arch
	// envErr is what was wrong with HYLAFLOW_CPU, if anything.
	envErr error
)

func init() {
	active, envErr = choose(os.Getenv(EnvVar), best)
	if envErr != nil {
		fmt.Fprintf(os.Stderr, "hylaflow: %v\n", envErr)
	}
}

// choose returns the path for the value env of HYLAFLOW_CPU on a CPU whose
// best path is top, and an error describing a value it could not honour.
func choose(env string, top Arch) (Arch, error) {
	if v := strings.TrimSpace(env); v == "" || strings.EqualFold(v, "auto") {
		return top, nil
	}
	a, err := ParseArch(env)
	if err != nil {
		return top, fmt.Errorf("%s=%s: %w; using %s", EnvVar, env, err, top)
	}
	if a > top {
		return top, fmt.Errorf("%s=%s: this CPU has no %s; using %s", EnvVar, env, a, top)
	}
	return a, nil
}

// Path returns the name of the kernel path in use: "avx512", "avx2" or
// "generic".
func Path() string { return active.String() }

// Active returns the kernel path in use.
func Active() Arch { return active }

// Best returns the best kernel path this CPU supports.
func Best() Arch { return best }

// EnvError returns what was wrong with HYLAFLOW_CPU (nil if nothing was);
// the package has reported it on standard error at start-up.
func EnvError() error { return envErr }

// Available returns the paths this CPU can run, lowest first.
func Available() []Arch {
	var as []Arch
	for a := Generic; a <= best; a++ {
		as = append(as, a)
	}
	return as
}

// Use makes the kernels take path a (for tests and benchmarks; not safe
// while kernels run) and returns a function that restores the previous
// path. It fails if the CPU cannot run a.
func Use(a Arch) (restore func(), err error) {
	if a < Generic || a > best {
		return nil, fmt.Errorf("vec: this CPU cannot run the %s kernels (best: %s)", a, best)
	}
	prev := active
	active = a
	return func() { active = prev }, nil
}
