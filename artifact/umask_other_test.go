//go:build !unix

package artifact

func syscallUmask(m int) int { return 0 }
