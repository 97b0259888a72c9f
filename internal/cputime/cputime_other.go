//go:build !unix

package cputime

import "time"

// Process returns 0: CPU time is read on Unix systems only.
func Process() time.Duration { return 0 }
