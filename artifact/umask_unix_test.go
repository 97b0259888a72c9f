//go:build unix

package artifact

import "syscall"

func syscallUmask(m int) int { return syscall.Umask(m) }
