//go:build unix

package artifact_test

import "syscall"

func umask(m int) int { return syscall.Umask(m) }
