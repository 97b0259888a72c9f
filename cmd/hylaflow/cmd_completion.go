package main

import (
	"embed"
	"fmt"
	"io"
	"slices"

	"github.com/hylaflow/hylaflow/internal/cli"
)

func init() {
	app.Register(&cli.Command{
		Name:     "completion",
		Summary:  "print a shell completion script (bash, zsh or fish)",
		Complete: func(_, _, _ string) []string { return completionShells },
		Run:      completionCmdRun,
	})
	app.Register(&cli.Command{
		Name:   "__complete",
		Hidden: true,
		Run:    completionCmdComplete,
	})
}

var completionCmdUsage = helpText("completion")

// completionShells are the shells with a script in completion/.
var completionShells = []string{"bash", "zsh", "fish"}

// completionCmdScripts are the shells' completion scripts, by shell name.
//
//go:embed completion/hylaflow.*
var completionCmdScripts embed.FS

func completionCmdRun(args []string, stdout, _ io.Writer) error {
	fs := cli.FlagSet("completion")
	pos, err := cli.Parse(fs, args, stdout, completionCmdUsage)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return cli.UsageHint("name one shell: bash, zsh or fish")
	}
	if !slices.Contains(completionShells, pos[0]) {
		return cli.Usagef("unknown shell %q (want bash, zsh or fish)", pos[0])
	}
	script, err := completionCmdScripts.ReadFile("completion/hylaflow." + pos[0])
	if err != nil {
		return cli.Failed(err)
	}
	_, err = stdout.Write(script)
	return err
}

// completionCmdComplete prints the candidates for the last of args (the
// word being completed, possibly empty), one per line; args are the words
// after "hylaflow" (cli.App.Complete). Nothing printed lets the shell
// complete file names.
func completionCmdComplete(args []string, stdout, _ io.Writer) error {
	for _, c := range app.Complete(args) {
		fmt.Fprintln(stdout, c)
	}
	return nil
}

// completePipelines completes the positional arguments of the commands
// that take pipeline files: directories and *.hcl files.
func completePipelines(_, flag, prefix string) []string {
	if flag != "" {
		return nil
	}
	return cli.Files(prefix, ".hcl")
}
