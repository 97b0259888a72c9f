// Package textfmt formats values for people the one way every command and
// report prints them, so the terminal display, the run summary and the
// HTML report agree. It imports nothing of the project: the engine, the
// CLI and the report code may all use it.
package textfmt

import (
	"fmt"
	"time"
)

// Duration prints a duration compactly: 850ms, 1.2s, 3m04s, 1h02m.
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
