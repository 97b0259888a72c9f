package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/datasets"
	_ "github.com/hylaflow/hylaflow/datasets/all" // every source, registered
	"github.com/hylaflow/hylaflow/datasets/files"
	"github.com/hylaflow/hylaflow/internal/cli"
)

func init() {
	app.Register(&cli.Command{
		Name:        "datasets",
		Subcommands: []string{"list", "info", "inspect", "fetch"},
		Complete: func(sub, flag, _ string) []string {
			if flag == "" && (sub == "info" || sub == "fetch") {
				return datasets.Names()
			}
			return nil
		},
		Summary: "list the benchmark datasets, show their statistics, fetch their files, inspect your own graph",
		Run:     datasetsCmdRun,
	})
}

var datasetsCmdUsage = helpText("datasets")

func datasetsCmdRun(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, datasetsCmdUsage)
		if len(args) == 0 {
			return cli.ExitStatus(cli.ExitUsage)
		}
		return nil
	}
	ctx, stop := cli.Interruptible(false)
	defer stop()
	name := "datasets " + args[0]
	fs := cli.FlagSet(name)
	switch args[0] {
	case "list":
		asJSON := fs.Bool("json", false, "JSON output")
		pos, err := cli.Parse(fs, args[1:], stdout, datasetsCmdUsage)
		switch {
		case err != nil:
			return err
		case len(pos) != 0:
			return cli.InCommand(name, cli.Usagef("takes no arguments"))
		case *asJSON:
			return cli.InCommand(name, cli.Failed(cacheops.WriteJSON(stdout, datasets.CatalogJSON())))
		}
		datasets.WriteCatalog(stdout)
		return nil
	case "inspect":
		asJSON := fs.Bool("json", false, "JSON output")
		format := fs.String("format", files.FormatAuto, "layout at PATH: "+strings.Join(files.Formats, ", "))
		pos, err := cli.Parse(fs, args[1:], stdout, datasetsCmdUsage)
		switch {
		case err != nil:
			return err
		case len(pos) != 1:
			return cli.InCommand(name, cli.Usagef("want one PATH: the directory or file holding your graph"))
		}
		in, err := files.Inspect(ctx, pos[0], *format, runtime.GOMAXPROCS(0))
		var bad *files.Error
		switch {
		case errors.As(err, &bad): // invalid input, located: exit status 3 like an invalid pipeline
			fmt.Fprintf(stderr, "hylaflow %s: %s: %v\n", name, pos[0], err)
			return cli.ErrInvalid
		case err != nil:
			return cli.InCommand(name, cli.Failed(err))
		}
		if *asJSON {
			return cli.InCommand(name, cli.Failed(cacheops.WriteJSON(stdout, in)))
		}
		in.WriteText(stdout)
		return nil
	case "info", "fetch":
		var root, dest, from *string
		var unverified *bool
		if args[0] == "info" {
			root = fs.String("root", "", "data root (default: the first root holding the files)")
		} else {
			dest = fs.String("dest", "", "target data directory")
			from = fs.String("from", "", "copy from this local data directory instead of downloading")
			unverified = fs.Bool("allow-unverified", false, "fetch files without a known checksum")
		}
		pos, err := cli.Parse(fs, args[1:], stdout, datasetsCmdUsage)
		switch {
		case err != nil:
			return err
		case len(pos) != 1:
			return cli.InCommand(name, cli.Usagef("want one dataset NAME (see `hylaflow datasets list`)"))
		}
		e, ok := datasets.Lookup(pos[0])
		switch {
		case !ok:
			return cli.InCommand(name, cli.UnknownName("unknown dataset %q (known: %s)", pos[0], strings.Join(datasets.Names(), ", ")))
		case args[0] == "info":
			return cli.InCommand(name, datasets.WriteInfo(ctx, stdout, e, *root))
		}
		return cli.InCommand(name, datasets.WriteFetch(ctx, stdout, e, *dest, datasets.FetchOptions{From: *from, AllowUnverified: *unverified}))
	}
	return cli.UsageText(datasetsCmdUsage, "unknown subcommand %q", args[0])
}
