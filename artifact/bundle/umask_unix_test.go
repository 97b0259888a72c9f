//go:build unix

package bundle

import "syscall"

func syscallUmask(m int) int { return syscall.Umask(m) }
