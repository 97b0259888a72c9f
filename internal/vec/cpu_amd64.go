package vec

import "golang.org/x/sys/cpu"

// detect returns the best path of this CPU: AVX-512 needs F and DQ (the
// integer-to-float conversion of the logarithm), AVX2 needs FMA as well.
// x/sys/cpu sets these only when the OS saves the wider registers.
func detect() Arch {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasAVX512DQ && cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return AVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return AVX2
	}
	return Generic
}
