package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/hylaflow/hylaflow/cacheops"
	"github.com/hylaflow/hylaflow/datasets"
	_ "github.com/hylaflow/hylaflow/datasets/all" // every source, registered
)

func init() {
	registerCommand(&command{
		Name:    "datasets",
		Summary: "list the benchmark datasets, show their statistics, fetch their files",
		Run:     datasetsCmdRun,
	})
}

var datasetsCmdUsage = helpText("datasets")

func datasetsCmdRun(args []string, stdout, _ io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, datasetsCmdUsage)
		if len(args) == 0 {
			return exitStatus(exitUsage)
		}
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	name := "datasets " + args[0]
	fs := cliFlagSet(name)
	switch args[0] {
	case "list":
		asJSON := fs.Bool("json", false, "JSON output")
		pos, err := cliFlags(fs, args[1:], stdout, datasetsCmdUsage)
		switch {
		case err != nil:
			return err
		case len(pos) != 0:
			return inCommand(name, usagef("takes no arguments"))
		case *asJSON:
			return inCommand(name, failed(cacheops.WriteJSON(stdout, datasetsCmdListJSON())))
		}
		datasetsCmdList(stdout)
		return nil
	case "info":
		root := fs.String("root", "", "data root (default: the first root holding the files)")
		pos, err := cliFlags(fs, args[1:], stdout, datasetsCmdUsage)
		switch {
		case err != nil:
			return err
		case len(pos) != 1:
			return inCommand(name, usagef("want one dataset NAME (see `hylaflow datasets list`)"))
		}
		return inCommand(name, datasetsCmdInfo(ctx, pos[0], *root, stdout))
	case "fetch":
		dest := fs.String("dest", "", "target data directory")
		from := fs.String("from", "", "copy from this local data directory instead of downloading")
		unverified := fs.Bool("allow-unverified", false, "fetch files without a known checksum")
		pos, err := cliFlags(fs, args[1:], stdout, datasetsCmdUsage)
		switch {
		case err != nil:
			return err
		case len(pos) != 1:
			return inCommand(name, usagef("want one dataset NAME (see `hylaflow datasets list`)"))
		}
		return inCommand(name, datasetsCmdFetch(ctx, pos[0], *dest, *from, *unverified, stdout))
	}
	return usageText(datasetsCmdUsage, "unknown subcommand %q", args[0])
}

func datasetsCmdList(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tNODES\tEDGES\tFEATURES\tCLASSES\tFILES")
	num := func(v int) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprint(v)
	}
	for _, e := range datasets.Catalog() {
		st := e.Expected
		if st.Nodes == 0 {
			st = e.Paper
		}
		status := "built in"
		if len(e.Files) > 0 {
			if r := e.FindRoot(); r != "" {
				status = "present in " + r
				if _, missing := e.Present(r); len(missing) > 0 {
					status += fmt.Sprintf(" (without %s)", datasetsCmdPaths(missing))
				}
			} else {
				_, missing := e.Present(datasets.DefaultRoot())
				status = fmt.Sprintf("missing %d of %d (hylaflow datasets fetch %s)", len(missing), len(e.Files), e.Name)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Source, num(st.Nodes), num(st.Edges), num(st.Features), num(st.Classes), status)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nEDGES counts distinct undirected pairs without self loops; the paper counts raw links")
	fmt.Fprintln(w, "(cora 5429, citeseer 4732, pubmed 44338, airport 18631 including one self loop).")
}

// datasetsCmdEntryJSON is one element of `datasets list --json`: the
// schema is stable (fields are only ever added).
type datasetsCmdEntryJSON struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Doc    string `json:"doc"`
	// Stats are what the loaders produce (edges: distinct undirected pairs
	// without self loops); Paper what the paper quotes (raw links).
	Stats datasets.Stats `json:"stats"`
	Paper datasets.Stats `json:"paper"`
	// BuiltIn: generated, no files to fetch.
	BuiltIn bool `json:"built_in"`
	// Present: every required file is under Root (always true when built in).
	Present bool `json:"present"`
	// Root is the data root holding the files, else the root fetch fills.
	Root  string                `json:"root"`
	Files []datasetsCmdFileJSON `json:"files"`
	// Fetch is the command that gets the missing files ("" when present).
	Fetch string `json:"fetch"`
}

// datasetsCmdFileJSON is one file of a dataset, relative to its root.
type datasetsCmdFileJSON struct {
	Path     string `json:"path"`
	Optional bool   `json:"optional"`
	Present  bool   `json:"present"`
	Size     int64  `json:"size"`   // expected bytes, 0 when unknown
	SHA256   string `json:"sha256"` // expected digest, "" when unknown
}

// datasetsCmdListJSON describes every catalogue entry, in catalogue order.
func datasetsCmdListJSON() []datasetsCmdEntryJSON {
	out := []datasetsCmdEntryJSON{}
	for _, e := range datasets.Catalog() {
		j := datasetsCmdEntryJSON{Name: e.Name, Source: e.Source, Doc: e.Doc, Stats: e.Expected, Paper: e.Paper,
			BuiltIn: len(e.Files) == 0, Files: []datasetsCmdFileJSON{}}
		if j.BuiltIn {
			j.Present = true
			out = append(out, j)
			continue
		}
		j.Root = e.FindRoot()
		j.Present = j.Root != ""
		if !j.Present {
			j.Root = datasets.DefaultRoot()
			j.Fetch = "hylaflow datasets fetch " + e.Name
		}
		present, _ := e.Present(j.Root)
		for _, f := range e.Files {
			here := false
			for _, p := range present {
				here = here || p.Path == f.Path
			}
			j.Files = append(j.Files, datasetsCmdFileJSON{Path: f.Path, Optional: f.Optional, Present: here, Size: f.Size, SHA256: f.SHA256})
		}
		out = append(out, j)
	}
	return out
}

func datasetsCmdInfo(ctx context.Context, name, root string, w io.Writer) error {
	e, ok := datasets.Lookup(name)
	if !ok {
		return unknownName("unknown dataset %q (known: %s)", name, strings.Join(datasets.Names(), ", "))
	}
	if root == "" && len(e.Files) > 0 {
		root = e.FindRoot()
		if root == "" {
			_, missing := e.Present(datasets.DefaultRoot())
			return fmt.Errorf("%s: files missing under %s: %s; get them with `hylaflow datasets fetch %s`",
				e.Name, strings.Join(datasets.Roots(), " and "), datasetsCmdPaths(datasets.Required(missing)), e.Name)
		}
	}
	fmt.Fprintf(w, "%s (%s): %s\n", e.Name, e.Source, e.Doc)
	if root != "" {
		fmt.Fprintf(w, "root:       %s\n", root)
		if _, missing := e.Present(root); len(missing) > 0 {
			fmt.Fprintf(w, "missing:    %s (optional: the loader uses identity features instead)\n", datasetsCmdPaths(missing))
		}
	}
	src, err := datasets.SourceFor(e)
	if err != nil {
		return err
	}
	// The source's defaults, except that a missing Disease feature file
	// gives identity features (reported missing above).
	g, err := src.Load(ctx, datasets.Request{Root: root, Name: e.Name, Params: datasets.Options{"identity_features": true}})
	if err != nil {
		return err
	}
	rule := src.OfficialSplit(g.Name)
	if g.Docs > 0 { // a text corpus: its documents and vocabulary (the graph's other nodes)
		fmt.Fprintf(w, "documents:  %d\nvocabulary: %d\nclasses:    %d\nsplit:      %d train / %d val / %d test\n",
			g.Docs, g.Nodes()-g.Docs, g.Classes, len(g.Train), len(g.Val), len(g.Test))
		if e.Paper.Nodes != 0 {
			fmt.Fprintf(w, "paper:      %d documents, %d classes\n", e.Paper.Nodes, e.Paper.Classes)
		}
		return nil
	}
	fmt.Fprintf(w, "nodes:      %d\nedges:      %d (distinct undirected, no self loops)\nfeatures:   %d\nclasses:    %d\n",
		g.Nodes(), g.Edges(), g.FeatureDim(), g.Classes)
	if e.Paper.Nodes != 0 {
		fmt.Fprintf(w, "paper:      %d nodes, %d edges, %d features, %d classes\n", e.Paper.Nodes, e.Paper.Edges, e.Paper.Features, e.Paper.Classes)
	}
	counts := make([]int, g.Classes)
	unlabelled := 0
	for _, l := range g.Labels {
		if l < 0 {
			unlabelled++
		} else {
			counts[l]++
		}
	}
	fmt.Fprintf(w, "labels:     %v", counts)
	if unlabelled > 0 {
		fmt.Fprintf(w, " (+%d unlabelled)", unlabelled)
	}
	fmt.Fprintln(w)
	switch {
	case g.Train != nil:
		fmt.Fprintf(w, "split:      %d train / %d val / %d test (given)\n", len(g.Train), len(g.Val), len(g.Test))
	case rule.Rule == datasets.SplitHGCN:
		tr, va, te, err := datasets.HGCNSplit(g.Labels, rule.PVal, rule.PTest, 0)
		if err == nil {
			fmt.Fprintf(w, "split:      %d train / %d val / %d test (HGCN rule, p_val %.2f, p_test %.2f)\n", len(tr), len(va), len(te), rule.PVal, rule.PTest)
		}
	}
	h, err := datasets.EstimateHyperbolicity(ctx, g.Adj, 128, 100000, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "hyperbolicity: δ ≈ %.1f (max over %d sampled quadruples; mean %.2f), diameter ≥ %d, 2δ/diam %.2f, largest component %d nodes\n",
		h.Delta, h.Samples, h.Mean, h.Diameter, h.Relative, h.Component)
	return nil
}

// datasetsCmdPaths lists the files' paths, comma-separated.
func datasetsCmdPaths(fs []datasets.File) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Path
	}
	return strings.Join(names, ", ")
}

func datasetsCmdFetch(ctx context.Context, name, dest, from string, unverified bool, w io.Writer) error {
	e, ok := datasets.Lookup(name)
	if !ok {
		return unknownName("unknown dataset %q (known: %s)", name, strings.Join(datasets.Names(), ", "))
	}
	if len(e.Files) == 0 {
		fmt.Fprintf(w, "%s is generated by hylaflow; nothing to fetch\n", e.Name)
		return nil
	}
	if dest == "" {
		dest = os.Getenv("HYLAFLOW_DATA")
		if dest == "" {
			dest = datasets.CacheRoot()
		}
	}
	files := slices.Clone(e.Files)
	if e.NoDownload != "" && from == "" {
		return fmt.Errorf("%s: %s", e.Name, e.NoDownload)
	}
	fmt.Fprintf(w, "fetching %s into %s\n", e.Name, dest)
	return datasets.Fetch(ctx, files, dest, datasets.FetchOptions{
		From: from, AllowUnverified: unverified,
		Logf: func(format string, args ...any) { fmt.Fprintf(w, "  "+format, args...) },
	})
}
