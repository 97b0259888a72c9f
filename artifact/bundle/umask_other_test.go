//go:build !unix

package bundle

func syscallUmask(m int) int { return 0 }
