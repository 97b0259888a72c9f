package main

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/hylaflow/hylaflow/bench"
	"github.com/hylaflow/hylaflow/datasets"
)

func init() {
	registerCommand(&command{
		Name:    "completion",
		Summary: "print a shell completion script (bash, zsh or fish)",
		Run:     completionCmdRun,
	})
	registerCommand(&command{
		Name:   "__complete",
		Hidden: true,
		Run:    completionCmdComplete,
	})
}

var completionCmdUsage = helpText("completion")

// completionCmdScripts are the shells' completion scripts, by shell name.
//
//go:embed completion/hylaflow.*
var completionCmdScripts embed.FS

func completionCmdRun(args []string, stdout, _ io.Writer) error {
	fs := cliFlagSet("completion")
	pos, err := cliFlags(fs, args, stdout, completionCmdUsage)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageHint("name one shell: bash, zsh or fish")
	}
	if !completionContains(completionSubcommands["completion"], pos[0]) {
		return usagef("unknown shell %q (want bash, zsh or fish)", pos[0])
	}
	script, err := completionCmdScripts.ReadFile("completion/hylaflow." + pos[0])
	if err != nil {
		return failed(err)
	}
	_, err = stdout.Write(script)
	return err
}

// completionCmdComplete prints the candidates for the last of args (the
// word being completed, possibly empty), one per line; args are the words
// after "hylaflow". Nothing printed lets the shell complete file names.
func completionCmdComplete(args []string, stdout, _ io.Writer) error {
	for _, c := range completionCandidates(args) {
		fmt.Fprintln(stdout, c)
	}
	return nil
}

// completionSubcommands are the subcommands of the commands that have them.
var completionSubcommands = map[string][]string{
	"cache":      {"ls", "stats", "verify", "gc", "clear", "export"},
	"datasets":   {"list", "info", "fetch"},
	"runs":       {"list", "show"},
	"completion": {"bash", "zsh", "fish"},
}

// completionPipelineCommands take pipeline files as positional arguments.
var completionPipelineCommands = map[string]bool{"run": true, "plan": true, "validate": true, "graph": true, "fmt": true}

// completionCandidates returns the completions of the last word of args.
func completionCandidates(args []string) []string {
	if len(args) == 0 {
		args = []string{""}
	}
	cur := args[len(args)-1]
	if len(args) == 1 {
		return completionFilter(append(commandNames(), "help", "--help", "--version"), cur)
	}
	cmd := args[0]
	if _, ok := commands[cmd]; !ok && cmd != "help" {
		return nil
	}
	words := args[1 : len(args)-1] // complete words between the command and cur
	sub := ""
	if subs, ok := completionSubcommands[cmd]; ok && len(words) > 0 && completionContains(subs, words[0]) {
		sub = words[0]
	}
	prev := ""
	if len(words) > 0 {
		prev = words[len(words)-1]
	}
	switch {
	case cmd == "help":
		if len(words) == 0 {
			return completionFilter(commandNames(), cur)
		}
		return nil
	case strings.HasPrefix(cur, "--"):
		// Go's flags take one dash or two: offer every flag with two.
		var long []string
		for _, f := range completionFlags(cmd, sub) {
			if l := "--" + strings.TrimLeft(f, "-"); !completionContains(long, l) {
				long = append(long, l)
			}
		}
		return completionFilter(long, cur)
	case strings.HasPrefix(cur, "-"):
		return completionFilter(completionFlags(cmd, sub), cur)
	case prev == "--dataset" || prev == "-dataset":
		return completionFilter(bench.Datasets, cur)
	case strings.HasPrefix(prev, "-") && !strings.Contains(prev, "="):
		if completionFlagTakesValue(cmd, sub, prev) {
			return nil // a value: the shell completes file names
		}
	}
	if subs, ok := completionSubcommands[cmd]; ok && sub == "" {
		return completionFilter(subs, cur)
	}
	switch {
	case cmd == "stages":
		return completionFilter(cliRegistry().Names(), cur)
	case cmd == "datasets" && (sub == "info" || sub == "fetch"):
		return completionFilter(datasets.Names(), cur)
	case completionPipelineCommands[cmd]:
		return completionFiles(cur, ".hcl")
	}
	return nil
}

// completionFlagRE finds the flags in a usage text: "  -j N", "  --cache DIR",
// "[--json]", "  -seeds int" (flag.PrintDefaults).
var completionFlagRE = regexp.MustCompile(`(?:^|[\s\[|(])(--?[a-z][a-z0-9-]*)\b`)

// completionUsage returns the help text of cmd (and its subcommand).
func completionUsage(cmd, sub string) string {
	c, ok := commands[cmd]
	if !ok {
		return ""
	}
	args := []string{"--help"}
	if sub != "" {
		args = []string{sub, "--help"}
	}
	var out bytes.Buffer
	c.Run(args, &out, io.Discard)
	return out.String()
}

// completionFlags lists the flags of cmd (and sub) from its --help, spelled
// as the help spells them.
func completionFlags(cmd, sub string) []string {
	seen := map[string]bool{"--help": true}
	for _, m := range completionFlagRE.FindAllStringSubmatch(completionUsage(cmd, sub), -1) {
		seen[m[1]] = true
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// completionFlagTakesValue reports whether flag of cmd is followed by a
// value in its help ("--cache DIR", "-j N", "-seeds int").
func completionFlagTakesValue(cmd, sub, flag string) bool {
	re := regexp.MustCompile(`(?m)(?:^|[\s\[])` + regexp.QuoteMeta(flag) + `[ =]([A-Z][A-Z_.]*|int|string|float|uint|value|duration)\b`)
	return re.MatchString(completionUsage(cmd, sub))
}

// completionFilter returns the candidates that start with prefix.
func completionFilter(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func completionContains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// completionFiles lists the directories (with a trailing slash) and the
// files ending in ext that start with prefix.
func completionFiles(prefix, ext string) []string {
	matches, err := filepath.Glob(completionGlobEscape(prefix) + "*")
	if err != nil {
		return nil
	}
	var out []string
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), ".") && !strings.HasPrefix(filepath.Base(prefix), ".") {
			continue
		}
		if st, err := os.Stat(m); err == nil && st.IsDir() {
			out = append(out, m+"/")
		} else if strings.HasSuffix(m, ext) {
			out = append(out, m)
		}
	}
	return out
}

// completionGlobEscape escapes the glob metacharacters of a typed prefix.
func completionGlobEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(s)
}
