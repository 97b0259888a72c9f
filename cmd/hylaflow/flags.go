package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/internal/cli"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages"
)

// The helpers of the commands that work with pipelines and the cache, so
// that the cache's location, the stage types and diagnostics are the same
// everywhere. Flags are parsed with internal/cli (cli.FlagSet, cli.Parse).

// cliRegistry returns the stage types the commands load pipelines
// against; tests replace it with a registry holding test-only types.
var cliRegistry = func() *registry.Registry { return stages.Default() }

// cliCache finds the cache directory (cache.Locate): --cache, else
// $HYLAFLOW_CACHE, else the nearest .hylaflow in start or a parent up to
// the repository root, else a new one at that root (or in start). start
// is the pipeline file's directory for commands given one, else ".".
func cliCache(flagValue, start string) (cache.Location, error) {
	return cache.Locate(flagValue, os.Getenv("HYLAFLOW_CACHE"), start)
}

// cliCacheDir is cliCache's directory for commands without a pipeline
// file: the walk starts in the working directory.
func cliCacheDir(flagValue string) (string, error) {
	loc, err := cliCache(flagValue, ".")
	return loc.Dir, err
}

// cliOpenCache opens the cache cliCache finds from start: to read, or with
// write to store stages' outputs ("open the cache: " before its errors).
// Its errors are failures (exit 1).
func cliOpenCache(flagValue, start string, write bool) (*cache.Cache, error) {
	loc, err := cliCache(flagValue, start)
	if err != nil {
		return nil, cli.Failed(err)
	}
	// The index also remembers the data files' digests (by their stamp),
	// so a fingerprint reads a file again only when it changed.
	if !write {
		c, err := cache.OpenReadOnly(loc.Dir)
		if err != nil {
			return nil, cli.Failed(err)
		}
		c.UseForFileDigests()
		return c, nil
	}
	c, err := cache.Open(loc.Dir)
	if err != nil {
		return nil, cli.Failed(fmt.Errorf("open the cache: %w", err))
	}
	c.UseForFileDigests()
	return c, nil
}

// cliWriteDiags writes pipeline diagnostics, coloured (unless NO_COLOR is
// set) and wrapped when w is a terminal.
func cliWriteDiags(w io.Writer, diags hcl.Diagnostics) {
	width, color := uint(0), false
	if cols, ok := cli.Terminal(w); ok {
		width, color = uint(cols), os.Getenv("NO_COLOR") == ""
	}
	if err := pipeline.WriteDiagnostics(w, diags, width, color); err != nil {
		fmt.Fprintln(w, diags.Error())
	}
}

// cliLoad loads one pipeline file for plan or run: cli.ErrInvalid (after
// printing the diagnostics) when it is invalid. A valid pipeline's
// preflight warnings (data files missing on this machine) are printed too.
func cliLoad(file string, opts pipeline.LoadOptions, stderr io.Writer) (*pipeline.Pipeline, error) {
	// The default data root is found from the pipeline's directory, as
	// the cache is, whatever the working directory.
	datasets.SetStart(filepath.Dir(file))
	p, diags := pipeline.Load(cliRegistry(), file, opts)
	if p != nil && !diags.HasErrors() {
		diags = append(diags, pipeline.Preflight(p)...)
	}
	if len(diags) > 0 {
		cliWriteDiags(stderr, diags)
	}
	if p == nil || diags.HasErrors() {
		return nil, cli.ErrInvalid
	}
	return p, nil
}
