package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"

	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/kernelcheck"
)

func init() {
	app.Register(&cli.Command{
		Name:    "kernel",
		Summary: "print HyLa kernel values k(d) (Theorem 4.1) or write the kernel figures",
		Run:     kernelCmdRun,
	})
}

var kernelCmdUsage = helpText("kernel")

func kernelCmdRun(args []string, stdout, stderr io.Writer) error {
	fs := cli.FlagSet("kernel")
	dim := fs.Int("dim", 2, "dimension n ≥ 2 of the hyperbolic space")
	lambdaS := fs.String("lambda", "", "a single λ (real)")
	scaleS := fs.String("scale", "", "standard deviation s of λ ~ N(0, s²) (default 0.5 when --lambda is not given)")
	dists := fs.String("distances", "0,0.5,1,2,4,8", "comma-separated hyperbolic distances")
	method := fs.String("method", "continuation", "with --lambda: continuation (2F1 continued analytically) or quadrature (over ω)")
	nodes := fs.Int("nodes", 0, "with --scale: Gauss–Hermite nodes (0 = automatic)")
	figure := fs.String("figure", "", "write the kernel figures into this directory instead of printing")
	seed := fs.Uint64("seed", 0, "with --figure: seed of the random features and points")
	features := fs.Int("features", 1000, "with --figure: HyLa features D of the disk estimate")
	heat := fs.Float64("heat-time", 6, "with --figure: time t of the heat kernel")
	pos, err := cli.Parse(fs, args, stdout, kernelCmdUsage+cli.Defaults(fs))
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.UsageHint("unexpected argument %q", pos[0])
	}
	if *lambdaS != "" && *scaleS != "" {
		return cli.Usagef("give --lambda or --scale, not both")
	}
	if *dim < 2 {
		return cli.Usagef("--dim %d: want n ≥ 2", *dim)
	}
	scale := 0.5
	if *scaleS != "" {
		v, err := strconv.ParseFloat(*scaleS, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return cli.Usagef("--scale %q: want a finite number ≥ 0", *scaleS)
		}
		scale = v
	}

	if *figure != "" {
		if *lambdaS != "" {
			return cli.Usagef("--figure uses --scale, not --lambda")
		}
		if scale == 0 {
			return cli.Usagef("--figure needs --scale > 0")
		}
		return kernelCmdFigure(*figure, kernelcheck.FigureConfig{
			Dim: *dim, Scale: scale, HeatTime: *heat, Features: *features, Workers: runtime.GOMAXPROCS(0),
		}, *seed, stdout, stderr)
	}

	ds, err := kernelcheck.ParseDistances(*dists)
	if err != nil {
		return cli.Usagef("--distances: %v", err)
	}
	q := kernelcheck.Query{Dim: *dim, Scale: scale, Nodes: *nodes, Method: *method, Distances: ds}
	if *lambdaS != "" {
		l, err := strconv.ParseFloat(*lambdaS, 64)
		if err != nil || math.IsNaN(l) || math.IsInf(l, 0) {
			return cli.Usagef("--lambda %q: want a finite number", *lambdaS)
		}
		q.Lambda = &l
		if _, err := q.Func(); err != nil {
			return cli.Usagef("--method %v", err)
		}
	}
	return cli.Failed(kernelcheck.WriteCSV(stdout, q))
}

func kernelCmdFigure(dir string, cfg kernelcheck.FigureConfig, seed uint64, stdout, stderr io.Writer) error {
	ctx, stop := cli.Interruptible(false)
	defer stop()
	fig, paths, err := kernelcheck.WriteFigure(ctx, dir, cfg, seed)
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	if err != nil {
		if ctx.Err() != nil {
			return cli.ExitStatus(cli.ExitCanceled)
		}
		return cli.Failed(err)
	}
	fmt.Fprintf(stderr, "disk mean |estimate − kernel| with D = %d: %.4g\n", fig.Config.Features, fig.DiskMAE)
	return nil
}
