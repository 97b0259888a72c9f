package datasets

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

// What `hylaflow datasets list` and `hylaflow datasets info` print.

// WriteCatalog writes the catalogue as a table: each dataset's source,
// statistics and whether its files are present (and where), with a note
// on how edges are counted.
func WriteCatalog(w io.Writer) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tNODES\tEDGES\tFEATURES\tCLASSES\tFILES")
	num := func(v int) string {
		if v == 0 {
			return "-"
		}
		return fmt.Sprint(v)
	}
	for _, e := range Catalog() {
		st := e.Expected
		if st.Nodes == 0 {
			st = e.Paper
		}
		status := "built in"
		if len(e.Files) > 0 {
			status = filesStatus(e)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Name, e.Source, num(st.Nodes), num(st.Edges), num(st.Features), num(st.Classes), status)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nEDGES counts distinct undirected pairs without self loops; the paper counts raw links")
	fmt.Fprintln(w, "(cora 5429, citeseer 4732, pubmed 44338, airport 18631 including one self loop).")
	if _, ok := SourceOf("files"); ok {
		fmt.Fprintln(w, "\nYour own graph: source = \"files\" with path = DIR (an edge list with tables, a PyG-style .npz or an")
		fmt.Fprintln(w, "OGB directory); `hylaflow datasets inspect DIR` shows what the loader sees (docs/your-graph.md).")
	}
}

// filesStatus says where e's files are, or what is wrong with them: "present
// in ROOT", with the optional files it lacks or that are damaged; else, in
// the first root that holds any of its files, what is wrong with them in
// plan's words ("planetoid/ind.cora.x (wrong size: 100 bytes, want 101)");
// else how many are missing; with the command that fetches them.
func filesStatus(e Entry) string {
	if r := e.FindRoot(); r != "" {
		status := "present in " + r
		var without, damaged []string
		for _, p := range e.FileProblems(r) {
			if p.Problem == "missing" {
				without = append(without, p.Path)
			} else {
				damaged = append(damaged, p.Path+" ("+p.Problem+")")
			}
		}
		if len(without) > 0 {
			status += fmt.Sprintf(" (without %s)", strings.Join(without, ", "))
		}
		if len(damaged) > 0 {
			status += "; " + strings.Join(damaged, "; ")
		}
		return status
	}
	fetch := fmt.Sprintf("(hylaflow datasets fetch %s)", e.Name)
	if r, probs := damagedRoot(e); r != "" {
		return fmt.Sprintf("in %s: %s %s", r, SummarizeProblems(probs), fetch)
	}
	_, missing := e.Present(DefaultRoot())
	return fmt.Sprintf("missing %d of %d %s", len(missing), len(e.Files), fetch)
}

// damagedRoot returns the first data root that holds some of e's required
// files but not all of them usable, with what is wrong there (missing
// files, a wrong size); "" when every root lacks every file.
func damagedRoot(e Entry) (string, []FileProblem) {
	for _, r := range Roots() {
		probs := RequiredProblems(e.FileProblems(r))
		if len(probs) < len(Required(e.Files)) || slices.ContainsFunc(probs, func(p FileProblem) bool { return p.Problem != "missing" }) {
			return r, probs
		}
	}
	return "", nil
}

// CatalogEntryJSON is one element of `datasets list --json`: the
// schema is stable (fields are only ever added).
type CatalogEntryJSON struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Doc    string `json:"doc"`
	// Stats are what the loaders produce (edges: distinct undirected pairs
	// without self loops); Paper what the paper quotes (raw links).
	Stats Stats `json:"stats"`
	Paper Stats `json:"paper"`
	// BuiltIn: generated, no files to fetch.
	BuiltIn bool `json:"built_in"`
	// Present: every required file is under Root (always true when built in).
	Present bool `json:"present"`
	// Root is the data root holding the files, else the root fetch fills.
	Root  string            `json:"root"`
	Files []CatalogFileJSON `json:"files"`
	// Fetch is the command that gets the missing files ("" when present).
	Fetch string `json:"fetch"`
}

// CatalogFileJSON is one file of a dataset, relative to its root.
type CatalogFileJSON struct {
	Path     string `json:"path"`
	Optional bool   `json:"optional"`
	Present  bool   `json:"present"`
	// Problem says why a file is not present: "missing", "wrong size: 100
	// bytes, want 101", "not a regular file"; "" when it is.
	Problem string `json:"problem"`
	Size    int64  `json:"size"`   // expected bytes, 0 when unknown
	SHA256  string `json:"sha256"` // expected digest, "" when unknown
}

// CatalogJSON describes every catalogue entry, in catalogue order.
func CatalogJSON() []CatalogEntryJSON {
	out := []CatalogEntryJSON{}
	for _, e := range Catalog() {
		j := CatalogEntryJSON{Name: e.Name, Source: e.Source, Doc: e.Doc, Stats: e.Expected, Paper: e.Paper,
			BuiltIn: len(e.Files) == 0, Files: []CatalogFileJSON{}}
		if j.BuiltIn {
			j.Present = true
			out = append(out, j)
			continue
		}
		j.Root = e.FindRoot()
		j.Present = j.Root != ""
		if !j.Present {
			j.Root = DefaultRoot()
			j.Fetch = "hylaflow datasets fetch " + e.Name
		}
		problem := map[string]string{}
		for _, p := range e.FileProblems(j.Root) {
			problem[p.Path] = p.Problem
		}
		for _, f := range e.Files {
			j.Files = append(j.Files, CatalogFileJSON{Path: f.Path, Optional: f.Optional, Present: problem[f.Path] == "",
				Problem: problem[f.Path], Size: f.Size, SHA256: f.SHA256})
		}
		out = append(out, j)
	}
	return out
}

// WriteInfo writes what the loader sees of dataset e, read from root (""
// : the first data root holding its files): its size, the paper's, its
// labels, its split and an estimate of its hyperbolicity. Missing
// required files are an error that says how to fetch them.
func WriteInfo(ctx context.Context, w io.Writer, e Entry, root string) error {
	if root == "" && len(e.Files) > 0 {
		root = e.FindRoot()
		if r, probs := damagedRoot(e); root == "" && r != "" {
			return fmt.Errorf("%s: files not usable in %s: %s; get them with `hylaflow datasets fetch %s`",
				e.Name, r, SummarizeProblems(probs), e.Name)
		}
		if root == "" {
			_, missing := e.Present(DefaultRoot())
			return fmt.Errorf("%s: files missing under %s: %s; get them with `hylaflow datasets fetch %s`",
				e.Name, strings.Join(Roots(), " and "), filePaths(Required(missing)), e.Name)
		}
	}
	fmt.Fprintf(w, "%s (%s): %s\n", e.Name, e.Source, e.Doc)
	if root != "" {
		fmt.Fprintf(w, "root:       %s\n", root)
		if _, missing := e.Present(root); len(missing) > 0 {
			fmt.Fprintf(w, "missing:    %s (optional: the loader uses identity features instead)\n", filePaths(missing))
		}
	}
	src, err := SourceFor(e)
	if err != nil {
		return err
	}
	// The source's defaults, except that a missing Disease feature file
	// gives identity features (reported missing above).
	g, err := src.Load(ctx, Request{Root: root, Name: e.Name, Params: Options{"identity_features": true}})
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
	case rule.Rule == SplitHGCN:
		tr, va, te, err := HGCNSplit(g.Labels, rule.PVal, rule.PTest, 0)
		if err == nil {
			fmt.Fprintf(w, "split:      %d train / %d val / %d test (HGCN rule, p_val %.2f, p_test %.2f)\n", len(tr), len(va), len(te), rule.PVal, rule.PTest)
		}
	}
	h, err := EstimateHyperbolicity(ctx, g.Adj, 128, 100000, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "hyperbolicity: δ ≈ %.1f (max over %d sampled quadruples; mean %.2f), diameter ≥ %d, 2δ/diam %.2f, largest component %d nodes\n",
		h.Delta, h.Samples, h.Mean, h.Diameter, h.Relative, h.Component)
	return nil
}

// filePaths lists the files' paths, comma-separated.
func filePaths(fs []File) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Path
	}
	return strings.Join(names, ", ")
}

// WriteFetch fetches the files of dataset e into dest (Fetch; "" is
// $HYLAFLOW_DATA, else the user cache root) and says so on w, each file's
// progress indented; a generated dataset has nothing to fetch, and one
// whose files cannot be downloaded (NoDownload) needs opts.From.
func WriteFetch(ctx context.Context, w io.Writer, e Entry, dest string, opts FetchOptions) error {
	if len(e.Files) == 0 {
		fmt.Fprintf(w, "%s is generated by hylaflow; nothing to fetch\n", e.Name)
		return nil
	}
	if dest == "" {
		dest = os.Getenv("HYLAFLOW_DATA")
		if dest == "" {
			dest = CacheRoot()
		}
	}
	if e.NoDownload != "" && opts.From == "" {
		return fmt.Errorf("%s: %s", e.Name, e.NoDownload)
	}
	fmt.Fprintf(w, "fetching %s into %s\n", e.Name, dest)
	opts.Logf = func(format string, args ...any) { fmt.Fprintf(w, "  "+format, args...) }
	return Fetch(ctx, slices.Clone(e.Files), dest, opts)
}
