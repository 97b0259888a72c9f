package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/hylaflow/hylaflow/bench"
	"github.com/hylaflow/hylaflow/internal/cli"
	// selects OpenBLAS for blas64 in builds with -tags openblas
)

func init() {
	app.Register(&cli.Command{
		Name: "bench",
		Complete: func(_, flag, _ string) []string {
			if flag == "dataset" {
				return bench.Datasets
			}
			return nil
		},
		Summary: "time load → normalize → precompute → sample → train → evaluate in process, with peak memory",
		Run:     benchCmdRun,
	})
}

var benchCmdUsage = helpText("bench")

func benchCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("bench")
	dataset := fs.String("dataset", "cora", "dataset row (see above)")
	seeds := fs.Int("seeds", 10, "number of seeds (0..N-1)")
	model := fs.String("model", "hyla", "hyla, rff or sgc")
	table1 := fs.Bool("table1", false, "time every Table 1 cell (5 datasets × hyla, rff, sgc)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	workers := fs.Int("j", runtime.GOMAXPROCS(0), "cores to use")
	split := fs.String("split", "code", "HGCN split of airport and disease_nc: code (the official code's lists, as table1.hcl) or disjoint")
	epochs := fs.Int("epochs", 0, "override the epochs of the hyper-parameters (0 = keep)")
	root := fs.String("data", "", "data root (default: $HYLAFLOW_DATA, else ../shared/datasets, else the user cache)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile (pprof) to this file")
	verbose := fs.Bool("v", false, "print the stages' log lines on stderr")
	pos, err := cli.Parse(fs, args, stdout, benchCmdUsage+cli.Defaults(fs))
	switch {
	case err != nil:
		return err
	case len(pos) > 0:
		return cli.UsageHint("unexpected argument %q", pos[0])
	case *seeds < 1 || *workers < 1 || *epochs < 0:
		return cli.Usagef("--seeds and -j must be ≥ 1, --epochs ≥ 0")
	}
	cells, renamed, err := bench.Select(*dataset, *model, *table1, *split, *epochs)
	if err != nil {
		return cli.Usagef("%v", err)
	}
	if renamed != "" {
		fmt.Fprintf(stderr, "hylaflow bench: note: dataset %q is now called %q (as in hylaflow datasets list)\n", *dataset, renamed)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return cli.Failed(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return cli.Failed(err)
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := cli.Interruptible(false)
	defer stop()
	opts := bench.Options{Registry: cliRegistry(), Root: *root, Workers: *workers, Seeds: *seeds, Split: *split}
	if *verbose {
		opts.Log = stderr
	}
	results, wall, err := bench.Run(ctx, cells, opts)
	if err != nil {
		return cli.Outcome(ctx, err)
	}
	if *asJSON {
		return cli.Failed(bench.WriteJSON(stdout, results, wall, *workers))
	}
	bench.Print(stdout, results, wall)
	return nil
}
