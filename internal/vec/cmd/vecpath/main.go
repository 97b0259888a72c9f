// Command vecpath prints the kernel path internal/vec takes on this machine
// (avx512, avx2 or generic; HYLAFLOW_CPU forces a lower one), for CI logs.
package main

import (
	"fmt"

	"github.com/hylaflow/hylaflow/internal/vec"
)

func main() { fmt.Println(vec.Path()) }
