package runs

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/runner"
)

// commandType is the stage type that runs a program of the pipeline's
// (stages/command.go); its key record holds the program's provenance.
const commandType = "command"

// CommandJSON is what a run records of a command stage (runs show --json):
// its argv and version_argv, and the named parts of its fingerprint (the
// sha256 of each code file, a hash of each declared variable's value,
// the version output).
type CommandJSON struct {
	Argv        []string          `json:"argv"`
	VersionArgv []string          `json:"version_argv,omitempty"`
	Fingerprint map[string]string `json:"fingerprint"`
}

// commandOf returns the provenance of the command stage with key, nil
// when the key is not a command stage's or its record is gone.
func commandOf(c *cache.Cache, key string) *CommandJSON {
	if key == "" {
		return nil
	}
	rec, ok, err := c.Record(key)
	if err != nil || !ok || rec.StageType != commandType {
		return nil
	}
	cj := &CommandJSON{Fingerprint: map[string]string{}}
	json.Unmarshal([]byte(rec.Params["argv"]), &cj.Argv)
	json.Unmarshal([]byte(rec.Params["version_argv"]), &cj.VersionArgv)
	if parts, ok := registry.SplitFingerprint(rec.Fingerprint); ok {
		cj.Fingerprint = parts
	}
	return cj
}

// writeCommands prints the command stages of a run: argv, then each part
// of the fingerprint (code files, variables, version).
func writeCommands(w io.Writer, c *cache.Cache, stages []cache.StageRecord) {
	first := true
	for _, s := range stages {
		cj := commandOf(c, s.Key)
		if cj == nil {
			continue
		}
		if first {
			fmt.Fprintln(w, "\ncommands (programs the pipeline runs; code by sha256, variables by a hash of their value):")
			first = false
		}
		fmt.Fprintf(w, "  %s  %s\n", s.Address, runner.QuoteArgv(cj.Argv))
		names := make([]string, 0, len(cj.Fingerprint))
		for n := range cj.Fingerprint {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			v := cj.Fingerprint[n]
			if strings.HasPrefix(n, "code ") || strings.HasPrefix(n, "env ") && v != "unset" {
				v = cacheops.ShortKey(v)
			}
			fmt.Fprintf(w, "    %s  %s\n", n, v)
		}
	}
}
