package files

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
)

// Inspection is what the loader sees of a user's graph: `hylaflow
// datasets inspect PATH` prints it (as JSON with --json: fields are only
// ever added).
type Inspection struct {
	Path   string   `json:"path"`
	Name   string   `json:"name"`
	Format string   `json:"format"`
	Files  []string `json:"files"`
	Nodes  int      `json:"nodes"`
	// Edges are distinct undirected pairs without self loops.
	Edges      int  `json:"edges"`
	EdgeLines  int  `json:"edge_lines"`
	SelfLoops  int  `json:"self_loops"`
	Merged     int  `json:"duplicates_merged"`
	Weighted   bool `json:"weighted"`
	Isolated   int  `json:"isolated_nodes"`
	Components int  `json:"components"`
	Largest    int  `json:"largest_component"`
	Features   struct {
		Kind    string  `json:"kind"` // dense, sparse or identity
		Dim     int     `json:"dim"`
		Density float64 `json:"density"` // non-zero fraction
	} `json:"features"`
	Classes    []ClassCount `json:"classes"`
	Unlabelled int          `json:"unlabelled"`
	Split      struct {
		Rule  string `json:"rule"` // given, or stratified (drawn with seed 0 and the default proportions)
		Train int    `json:"train"`
		Val   int    `json:"val"`
		Test  int    `json:"test"`
	} `json:"split"`
	Degree struct {
		Min    int     `json:"min"`
		Median float64 `json:"median"`
		Mean   float64 `json:"mean"`
		Max    int     `json:"max"`
	} `json:"degree"`
	Hyperbolicity datasets.Hyperbolicity `json:"hyperbolicity"`
	Suggests      string                 `json:"suggests"`
	Notes         []string               `json:"notes"`
}

// ClassCount is one class and its labelled nodes.
type ClassCount struct {
	Name  string `json:"name"`
	Nodes int    `json:"nodes"`
}

// Inspect loads the graph at path and describes it.
func Inspect(ctx context.Context, path, format string, workers int) (*Inspection, error) {
	g, info, err := Load(ctx, path, format, workers)
	if err != nil {
		return nil, err
	}
	in := &Inspection{Path: path, Name: DisplayName(path), Format: info.Format, Files: info.Files, Nodes: g.Nodes(), Edges: g.Edges(),
		EdgeLines: info.EdgeLines, SelfLoops: info.SelfLoops, Merged: info.Merged, Weighted: info.Weighted, Notes: info.Notes}
	a := g.Adj
	n := g.Nodes()
	deg := make([]int, n)
	for i := range n {
		for _, j := range a.Indices[a.Indptr[i]:a.Indptr[i+1]] {
			if int(j) != i {
				deg[i]++
			}
		}
		if deg[i] == 0 {
			in.Isolated++
		}
	}
	sorted := slices.Clone(deg)
	slices.Sort(sorted)
	if n > 0 {
		in.Degree.Min, in.Degree.Max = sorted[0], sorted[n-1]
		in.Degree.Median = float64(sorted[(n-1)/2]+sorted[n/2]) / 2
		in.Degree.Mean = 2 * float64(in.Edges) / float64(n)
	}
	in.Components, in.Largest = components(g)
	switch {
	case info.Identity:
		in.Features.Kind, in.Features.Dim, in.Features.Density = "identity", n, 1/float64(max(n, 1))
	case g.SparseFeatures != nil:
		x := g.SparseFeatures
		nz := 0
		for _, v := range x.Data {
			if v != 0 {
				nz++
			}
		}
		in.Features.Kind, in.Features.Dim = "sparse", x.Cols
		in.Features.Density = float64(nz) / max(1, float64(x.Rows)*float64(x.Cols))
	case g.DenseFeatures != nil:
		r, c := g.DenseFeatures.Dims()
		nz := 0
		for i := range r {
			for _, v := range g.DenseFeatures.RawRowView(i) {
				if v != 0 {
					nz++
				}
			}
		}
		in.Features.Kind, in.Features.Dim = "dense", c
		in.Features.Density = float64(nz) / max(1, float64(r)*float64(c))
	}
	counts := make([]int, g.Classes)
	for _, l := range g.Labels {
		if l < 0 {
			in.Unlabelled++
		} else {
			counts[l]++
		}
	}
	for c, k := range counts {
		name := fmt.Sprint(c)
		if info.ClassNames != nil {
			name = info.ClassNames[c]
		}
		in.Classes = append(in.Classes, ClassCount{name, k})
	}
	if g.Train != nil {
		in.Split.Rule, in.Split.Train, in.Split.Val, in.Split.Test = "given", len(g.Train), len(g.Val), len(g.Test)
	} else {
		tr, va, te, err := datasets.StratifiedSplit(g.Labels, DefaultPVal, DefaultPTest, 0)
		if err != nil {
			return nil, err
		}
		in.Split.Rule, in.Split.Train, in.Split.Val, in.Split.Test = "stratified", len(tr), len(va), len(te)
	}
	h, err := datasets.EstimateHyperbolicity(ctx, a, 128, 100000, 0)
	if err != nil {
		return nil, err
	}
	in.Hyperbolicity = h
	in.Suggests = suggestion(h)
	return in, nil
}

// suggestion reads the relative hyperbolicity 2δ/diam against the paper's
// benchmarks as this estimator measures them (Disease 0, Airport 0.25,
// Pubmed and Cora 0.33).
func suggestion(h datasets.Hyperbolicity) string {
	switch {
	case h.Diameter == 0:
		return "no path of length 2 or more in the largest component: hyperbolicity says nothing here"
	case h.Relative <= 0.1:
		return "tree-like (2δ/diam near 0, like Disease): the kind of graph where the paper finds HyLa's advantage over Euclidean features largest"
	case h.Relative <= 0.28:
		return "fairly tree-like (like Airport, 2δ/diam 0.25): the paper finds HyLa ahead of the Euclidean baselines on such graphs"
	}
	return "about as tree-like as the citation graphs (Cora, Pubmed: 2δ/diam 0.33), where the paper finds HyLa close to SGC: let validation accuracy decide (pipelines/graph.hcl)"
}

// components counts the connected components and the largest one's size.
func components(g *datasets.Graph) (count, largest int) {
	a := g.Adj
	n := a.Rows
	seen := make([]bool, n)
	queue := make([]int32, 0, 1024)
	for s := range n {
		if seen[s] {
			continue
		}
		count++
		seen[s] = true
		queue = append(queue[:0], int32(s))
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, v := range a.Indices[a.Indptr[u]:a.Indptr[u+1]] {
				if !seen[v] {
					seen[v] = true
					queue = append(queue, v)
				}
			}
		}
		largest = max(largest, len(queue))
	}
	return count, largest
}

// WriteText prints the inspection for a person.
func (in *Inspection) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s (%s): %s\n", in.Name, in.Format, strings.Join(in.Files, ", "))
	fmt.Fprintf(w, "nodes:       %d (%d isolated)\n", in.Nodes, in.Isolated)
	fmt.Fprintf(w, "edges:       %d undirected, from %d edge lines (%d merged: a pair listed again, in either direction)\n",
		in.Edges, in.EdgeLines, in.Merged)
	if in.SelfLoops > 0 {
		fmt.Fprintf(w, "self loops:  %d nodes (kept once on the diagonal)\n", in.SelfLoops)
	}
	if in.Weighted {
		fmt.Fprintln(w, "weights:     yes (a merged pair keeps its largest weight)")
	}
	fmt.Fprintf(w, "components:  %d (largest %d nodes)\n", in.Components, in.Largest)
	fmt.Fprintf(w, "degree:      min %d, median %g, mean %.2f, max %d\n", in.Degree.Min, in.Degree.Median, in.Degree.Mean, in.Degree.Max)
	fmt.Fprintf(w, "features:    %d, %s (%.2f%% non-zero)\n", in.Features.Dim, in.Features.Kind, 100*in.Features.Density)
	var cls []string
	for _, c := range in.Classes {
		cls = append(cls, fmt.Sprintf("%s %d", c.Name, c.Nodes))
	}
	fmt.Fprintf(w, "classes:     %d: %s", len(in.Classes), strings.Join(cls, ", "))
	if in.Unlabelled > 0 {
		fmt.Fprintf(w, " (+%d unlabelled)", in.Unlabelled)
	}
	fmt.Fprintln(w)
	if in.Split.Rule == "given" {
		fmt.Fprintf(w, "split:       %d train / %d val / %d test (given in the files)\n", in.Split.Train, in.Split.Val, in.Split.Test)
	} else {
		fmt.Fprintf(w, "split:       none in the files; the split stage draws a stratified one (seed 0, val %.2f, test %.2f: %d / %d / %d)\n",
			DefaultPVal, DefaultPTest, in.Split.Train, in.Split.Val, in.Split.Test)
	}
	h := in.Hyperbolicity
	fmt.Fprintf(w, "hyperbolicity: δ ≈ %.1f (max over %d sampled quadruples; mean %.2f), diameter ≥ %d, 2δ/diam %.2f\n",
		h.Delta, h.Samples, h.Mean, h.Diameter, h.Relative)
	fmt.Fprintf(w, "suggests:    %s\n", in.Suggests)
	for _, note := range in.Notes {
		fmt.Fprintf(w, "note:        %s\n", note)
	}
}
