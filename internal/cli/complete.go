package cli

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Complete returns the completions of the last word of args, the words
// after the program's name (the last one possibly empty): command names
// (the listed ones, with help, --help and --version); a command's
// subcommands; its flags, read from the flag set it parses with (App.Flags)
// and spelled as the word began (--name after two dashes, -name after
// one, as the usage texts do after a bare dash); and what its Complete
// offers for positional arguments and flag values. Nothing lets the shell
// complete file names.
func (a *App) Complete(args []string) []string {
	if len(args) == 0 {
		args = []string{""}
	}
	cur := args[len(args)-1]
	if len(args) == 1 {
		return filterPrefix(append(a.Names(), "help", "--help", "--version"), cur)
	}
	name := args[0]
	words := args[1 : len(args)-1] // complete words between the command and cur
	if name == "help" {
		if len(words) == 0 {
			return filterPrefix(a.Names(), cur)
		}
		return nil
	}
	c, ok := a.commands[name]
	if !ok {
		return nil
	}
	sub := ""
	if len(words) > 0 && slices.Contains(c.Subcommands, words[0]) {
		sub = words[0]
	}
	prev := ""
	if len(words) > 0 {
		prev = words[len(words)-1]
	}
	switch {
	case strings.HasPrefix(cur, "-"):
		return filterPrefix(a.flagWords(c, sub, cur), cur)
	case strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") && prev != "--":
		if f := a.Flags(c, sub); f != nil {
			if fl := f.Lookup(strings.TrimLeft(prev, "-")); fl != nil && !isBool(fl) {
				if c.Complete == nil {
					return nil // a value: the shell completes file names
				}
				return filterPrefix(c.Complete(sub, fl.Name, cur), cur)
			}
		}
	}
	if len(c.Subcommands) > 0 && sub == "" {
		return filterPrefix(c.Subcommands, cur)
	}
	if c.Complete == nil {
		return nil
	}
	return filterPrefix(c.Complete(sub, "", cur), cur)
}

// flagWords lists the flags of command c (subcommand sub) and help,
// spelled for a word that starts as cur does.
func (a *App) flagWords(c *Command, sub, cur string) []string {
	names := []string{"help"}
	if fs := a.Flags(c, sub); fs != nil {
		names = append(names, flagNames(fs)...)
	}
	var out []string
	for _, n := range names {
		switch {
		case strings.HasPrefix(cur, "--"):
			out = append(out, "--"+n)
		case cur == "-":
			out = append(out, FlagName(n))
		default:
			out = append(out, "-"+n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// isBool reports whether fl takes no value (-v, --json).
func isBool(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// filterPrefix returns the candidates that start with prefix.
func filterPrefix(cands []string, prefix string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// Files lists the directories (with a trailing slash) and the files
// ending in ext that start with prefix, for a command's Complete. Hidden
// ones are offered only when the prefix's last element starts with a dot.
func Files(prefix, ext string) []string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	matches, err := filepath.Glob(r.Replace(prefix) + "*")
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
