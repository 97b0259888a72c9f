//go:build !unix

package artifact_test

func umask(m int) int { return 0 }
