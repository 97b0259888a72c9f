package files

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// Info is what loading found beyond the graph: the layout, the files, the
// edge counts before merging, the names of nodes and classes, and notes
// on what the loader decided (symmetrised, identity features, …).
type Info struct {
	Format string   `json:"format"`
	Files  []string `json:"files"`
	// Edge lines (or edge_index columns) read, self loops among them, the
	// distinct nodes with a self loop (kept once on the diagonal), and the
	// lines merged into an edge already listed in either direction.
	EdgeLines  int  `json:"edge_lines"`
	LoopLines  int  `json:"self_loop_lines"`
	SelfLoops  int  `json:"self_loops"`
	Merged     int  `json:"duplicates_merged"`
	Weighted   bool `json:"weighted"`
	Identity   bool `json:"identity_features"`
	SplitGiven bool `json:"split_given"`
	// NodeNames are the ids of the nodes in index order when the files
	// name them (nil when node i is row i of the files).
	NodeNames  []string `json:"-"`
	ClassNames []string `json:"class_names,omitempty"`
	Notes      []string `json:"notes"`
}

// Load reads the graph at path (a directory or one file) in the given
// format ("auto" detects it), with up to workers goroutines. Errors name
// the file (relative to path), the line or npz member and what was
// expected.
func Load(ctx context.Context, path, format string, workers int) (*datasets.Graph, *Info, error) {
	l, err := detect(path, format)
	if err != nil {
		return nil, nil, err
	}
	info := &Info{Format: l.format}
	for _, f := range l.files() {
		info.Files = append(info.Files, f.Name)
	}
	var r *assembled
	switch l.format {
	case FormatEdgeList:
		r, err = loadEdgeList(ctx, l, info, workers)
	case FormatPyG:
		r, err = loadPyG(l, info)
	case FormatOGB:
		r, err = loadOGB(ctx, l, info, workers)
	}
	if err != nil {
		return nil, nil, err
	}
	g, err := r.graph(ctx, info, workers)
	if err != nil {
		return nil, nil, err
	}
	return g, info, nil
}

// assembled is a layout's content over node indices 0..n-1, before the
// adjacency is built.
type assembled struct {
	n        int
	src, dst []int32
	weights  []float64
	dense    *mat.Dense
	sparseX  *sparse.CSR
	labels   []int
	classes  int
	split    *[3][]int
}

// nodesHeld is the largest node count the content backs with data: the
// rows of the features (dense with at least one column, or sparse) or
// labels, or two nodes per edge. The adjacency costs memory per node, so
// a count beyond it — a node index or a node count naming nodes that no
// data gives, as a damaged or hostile file can, with a billion nodes in a
// few bytes — is refused before anything is allocated for it.
func (r *assembled) nodesHeld() int {
	held := max(2*len(r.src), len(r.labels))
	if r.dense != nil {
		held = max(held, r.dense.RawMatrix().Rows)
	}
	if r.sparseX != nil {
		held = max(held, r.sparseX.Rows)
	}
	return held
}

func (r *assembled) graph(ctx context.Context, info *Info, workers int) (*datasets.Graph, error) {
	if held := r.nodesHeld(); r.n > held {
		return nil, &Error{File: strings.Join(info.Files, ", "), Msg: fmt.Sprintf("%d nodes, but the files hold data for at most %d "+
			"(the rows of the features or labels, or the two ends of each of the %d edges): a node index or node count names "+
			"nodes that nothing else gives; give the features or labels of every node, or number the nodes from 0 without gaps",
			r.n, held, len(r.src))}
	}
	var wp *[]float64
	if r.weights != nil {
		wp = &r.weights
		info.Weighted = true
	}
	adj, st, err := buildAdjacency(ctx, r.n, &r.src, &r.dst, wp, workers)
	if err != nil {
		return nil, err
	}
	info.EdgeLines, info.LoopLines, info.SelfLoops, info.Merged = st.Lines, st.LoopLines, st.SelfLoops, st.Merged
	g := &datasets.Graph{Source: Name, Adj: adj, EdgeCount: st.Undirected, DenseFeatures: r.dense, SparseFeatures: r.sparseX}
	if st.Undirected == 0 {
		g.EdgeCount = 0
	}
	info.Notes = append(info.Notes, "edges are undirected: a line u v joins u and v both ways; a pair listed again (either direction) is merged"+
		map[bool]string{true: ", keeping its largest weight", false: ""}[info.Weighted])
	if st.SelfLoops > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("%d self loops kept once on the diagonal (as the benchmark loaders keep them; normalize adds I on top)", st.SelfLoops))
	}
	if r.dense == nil && r.sparseX == nil {
		g.SparseFeatures = sparse.Identity(r.n)
		info.Identity = true
		info.Notes = append(info.Notes, fmt.Sprintf("no features: identity features (%d×%d, HGCN's use_feats = 0)", r.n, r.n))
	}
	g.Labels = r.labels
	if g.Labels == nil {
		g.Labels = make([]int, r.n)
		for i := range g.Labels {
			g.Labels[i] = -1
		}
		info.Notes = append(info.Notes, "no labels: every node unlabelled (-1); training needs labels")
	}
	g.Classes = r.classes
	if r.split != nil {
		g.Train, g.Val, g.Test = r.split[0], r.split[1], r.split[2]
		info.SplitGiven = true
	} else {
		info.Notes = append(info.Notes, "no split in the files: the split stage draws one (rule = \"stratified\" or \"auto\")")
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return g, nil
}

// nodeSet says which node each id is.
type nodeSet struct {
	n int
	// rows: ids are row numbers 0..n-1 of rowsFile (an .npy or npz file,
	// or OGB's row-indexed tables).
	rows     bool
	rowsFile string
	names    []string // !rows: ids in index order
	index    map[string]int32
	from     string // the file that defines the node set
}

// namedNodes numbers ids: canonical integers in numeric order when all
// are, else in byte order.
func namedNodes(ids []string, from string) *nodeSet {
	allInt := true
	for _, s := range ids {
		_, ok := canonicalInt([]byte(s))
		allInt = allInt && ok
	}
	if allInt {
		slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	} else {
		slices.Sort(ids)
	}
	ns := &nodeSet{n: len(ids), names: ids, index: make(map[string]int32, len(ids)), from: from}
	for i, s := range ids {
		ns.index[s] = int32(i)
	}
	return ns
}

// lookup returns the index of id, or -1.
func (ns *nodeSet) lookup(id string) int {
	if ns.rows {
		v, ok := canonicalInt([]byte(id))
		if !ok || int(v) >= ns.n {
			return -1
		}
		return int(v)
	}
	if k, ok := ns.index[id]; ok {
		return int(k)
	}
	return -1
}

// expected says what a node id must be, for errors.
func (ns *nodeSet) expected() string {
	if ns.rows {
		return fmt.Sprintf("a row number 0..%d of %s", ns.n-1, ns.rowsFile)
	}
	return "a node id of " + ns.from
}

// mapEdges turns the edge file's ids into node indices (in place).
func mapEdges(l *layout, name string, el *edgeList, ns *nodeSet) error {
	unknown := func(id string) error {
		f, _ := sniffEdges(l.path(name), name)
		return errAt(name, lineOf(l.path(name), f, id), "node %q is not %s", clip(id), ns.expected())
	}
	if !el.intIDs {
		idx := make([]int32, len(el.names))
		for k, s := range el.names {
			i := ns.lookup(s)
			if i < 0 {
				return unknown(s)
			}
			idx[k] = int32(i)
		}
		for k := range el.src {
			el.src[k], el.dst[k] = idx[el.src[k]], idx[el.dst[k]]
		}
		return nil
	}
	if ns.rows {
		for k := range el.src {
			if int(el.src[k]) >= ns.n {
				return unknown(strconv.Itoa(int(el.src[k])))
			}
			if int(el.dst[k]) >= ns.n {
				return unknown(strconv.Itoa(int(el.dst[k])))
			}
		}
		return nil
	}
	// Integer ids against named nodes: a table from id to index.
	lut := idTable(el)
	for id := range lut.ids() {
		i := ns.lookup(strconv.Itoa(int(id)))
		if i < 0 {
			return unknown(strconv.Itoa(int(id)))
		}
		lut.set(id, int32(i))
	}
	lut.apply(el)
	return nil
}

// intLUT maps the integer ids of an edge list to indices: a dense array
// when the ids are not much sparser than the edges, else a map.
type intLUT struct {
	dense []int32 // -1: absent
	m     map[int32]int32
}

func idTable(el *edgeList) *intLUT {
	var top int32
	for k := range el.src {
		top = max(top, el.src[k], el.dst[k])
	}
	if int(top) < max(1<<20, 4*len(el.src)) {
		d := make([]int32, int(top)+1)
		for i := range d {
			d[i] = -1
		}
		for k := range el.src {
			d[el.src[k]], d[el.dst[k]] = 0, 0
		}
		return &intLUT{dense: d}
	}
	m := map[int32]int32{}
	for k := range el.src {
		m[el.src[k]], m[el.dst[k]] = 0, 0
	}
	return &intLUT{m: m}
}

// ids yields the distinct ids in increasing order.
func (t *intLUT) ids() func(func(int32) bool) {
	return func(yield func(int32) bool) {
		if t.dense != nil {
			for id, v := range t.dense {
				if v >= 0 && !yield(int32(id)) {
					return
				}
			}
			return
		}
		keys := make([]int32, 0, len(t.m))
		for k := range t.m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k) {
				return
			}
		}
	}
}

func (t *intLUT) set(id, i int32) {
	if t.dense != nil {
		t.dense[id] = i
	} else {
		t.m[id] = i
	}
}

func (t *intLUT) apply(el *edgeList) {
	for k := range el.src {
		if t.dense != nil {
			el.src[k], el.dst[k] = t.dense[el.src[k]], t.dense[el.dst[k]]
		} else {
			el.src[k], el.dst[k] = t.m[el.src[k]], t.m[el.dst[k]]
		}
	}
}

// nodesOfEdges is the node set of an edge list read alone: its distinct
// ids (integers in numeric order, names in byte order), edges mapped.
func nodesOfEdges(el *edgeList, name string) *nodeSet {
	if el.intIDs {
		lut := idTable(el)
		var names []string
		n := int32(0)
		for id := range lut.ids() {
			lut.set(id, n)
			names = append(names, strconv.Itoa(int(id)))
			n++
		}
		lut.apply(el)
		ns := &nodeSet{n: int(n), names: names, from: name}
		return ns
	}
	ns := namedNodes(slices.Clone(el.names), name)
	idx := make([]int32, len(el.names))
	for k, s := range el.names {
		idx[k] = ns.index[s]
	}
	for k := range el.src {
		el.src[k], el.dst[k] = idx[el.src[k]], idx[el.dst[k]]
	}
	return ns
}

// labelSet turns label strings into classes: integers as themselves when
// all are (a class per value up to the largest), else names in byte order.
// "" and "-1" are unlabelled.
func labelSet(vals []string) (labels []int, classes int, names []string, err error) {
	labels = make([]int, len(vals))
	allInt := true
	for _, v := range vals {
		if v == "" || v == "-1" {
			continue
		}
		_, ok := canonicalInt([]byte(v))
		allInt = allInt && ok
	}
	if allInt {
		for i, v := range vals {
			if v == "" || v == "-1" {
				labels[i] = -1
				continue
			}
			c, _ := canonicalInt([]byte(v))
			if c >= 1<<20 {
				return nil, 0, nil, fmt.Errorf("class %d: class numbers must be below %d (use names for sparse class ids)", c, 1<<20)
			}
			labels[i] = int(c)
			classes = max(classes, int(c)+1)
		}
		return labels, classes, nil, nil
	}
	seen := map[string]bool{}
	for _, v := range vals {
		if v != "" && v != "-1" && !seen[v] {
			seen[v] = true
			names = append(names, v)
		}
	}
	slices.Sort(names)
	index := map[string]int{}
	for i, s := range names {
		index[s] = i
	}
	for i, v := range vals {
		if v == "" || v == "-1" {
			labels[i] = -1
		} else {
			labels[i] = index[v]
		}
	}
	return labels, len(names), names, nil
}

// checkFinite reports the first NaN or ±Inf of a dense feature matrix.
func checkFinite(x []float64, cols int, file, member string) error {
	for p, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			e := &Error{File: file, Member: member, Msg: fmt.Sprintf("row %d column %d is %v: features must be finite numbers", p/max(cols, 1), p%max(cols, 1), v)}
			return e
		}
	}
	return nil
}

// checkSplit checks that a split's parts are disjoint, free of
// duplicates and hold labelled nodes only; where names each part's file
// for errors.
func checkSplit(split [3][]int, labels []int, where [3]string, nodeName func(int) string) error {
	seen := make(map[int]int, len(split[0])+len(split[1])+len(split[2]))
	for p, idx := range split {
		for _, i := range idx {
			if q, dup := seen[i]; dup {
				if q == p {
					return &Error{File: where[p], Msg: fmt.Sprintf("node %s listed twice", nodeName(i))}
				}
				return &Error{File: where[p], Msg: fmt.Sprintf("node %s is also in %s: the split's parts must not overlap", nodeName(i), where[q])}
			}
			seen[i] = p
			if labels != nil && labels[i] < 0 {
				return &Error{File: where[p], Msg: fmt.Sprintf("node %s has no label: a split names labelled nodes only", nodeName(i))}
			}
		}
	}
	return nil
}
