package main

import (
	"embed"
	"fmt"
)

// The usage texts live in help/NAME.txt: one per command (help/run.txt),
// and one per subcommand that has its own (help/cache-ls.txt). A command
// prints its text for --help and with a usage error; bench and kernel
// append their generated flag list.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText returns the usage text help/NAME.txt. A missing text is a
// build mistake, caught by TestEveryCommandHasHelp: it panics at start-up.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic(fmt.Sprintf("hylaflow: no help text for %s: %v", name, err))
	}
	return string(b)
}
