package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stagedoc"
)

func init() {
	app.Register(&cli.Command{
		Name: "stages",
		Complete: func(_, flag, _ string) []string {
			if flag != "" {
				return nil
			}
			return cliRegistry().Names()
		},
		Summary: "list the registered stage types: parameters, inputs, outputs, docs",
		Run:     stagesCmdRun,
	})
}

var stagesCmdUsage = helpText("stages")

func stagesCmdRun(args []string, stdout, _ io.Writer) error {
	fs := cli.FlagSet("stages")
	jsonOut := fs.Bool("json", false, "print JSON")
	names, err := cli.Parse(fs, args, stdout, stagesCmdUsage)
	if err != nil {
		return err
	}
	reg := cliRegistry()
	all := len(names) == 0
	if all {
		names = reg.Names()
	}
	var types []*registry.Type
	for _, n := range names {
		t, ok := reg.Lookup(n)
		if !ok {
			msg := fmt.Sprintf("no stage type %q", n)
			if s := registry.DidYouMean(n, reg.Names()); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return cli.UnknownName("%s\nRegistered types: %s", msg, strings.Join(reg.Names(), ", "))
		}
		types = append(types, t)
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return cli.Failed(enc.Encode(stagedoc.JSON(types)))
	}
	for i, t := range types {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		stagedoc.Describe(stdout, t)
	}
	if all {
		stagedoc.Functions(stdout, reg.Functions())
	}
	return nil
}
