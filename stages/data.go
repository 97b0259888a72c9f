package stages

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/datasets"
	_ "github.com/hylaflow/hylaflow/datasets/all" // every source, registered
	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/hylaflow/hylaflow/stages/schema"
	"github.com/hylaflow/hylaflow/train"
	"gonum.org/v1/gonum/mat"
)

// Output and input names of the data stages.
const (
	dataOutGraph    = "graph"
	dataOutSplit    = "split"
	dataOutFeatures = "features"
)

// Extra members of the data artifacts (beyond artifact/schema.go):
//
//	graph after normalize:   adj_raw  the adjacency before normalisation (sparse),
//	                         kept so inductive precompute can renormalise the
//	                         training subgraph
//	precompute, node level:  SK       sparse S^K (X̄ = S^K·φ(Z) = S^{K-1}·S·φ(Z)),
//	                         omitted when it would exceed dataMaxSKEntries entries
//	precompute (JSON)        {"k": K, "level": ..., "inductive": ...}
const (
	dataMemberAdjRaw     = "adj_raw"
	dataMemberSK         = "SK"
	dataMemberPrecompute = "precompute"
)

// dataMaxSKEntries bounds the size of the stored S^K (about 600 MB).
const dataMaxSKEntries = 50_000_000

// dataPrecomputeInfo is the "precompute" member of KindFeatures artifacts.
type dataPrecomputeInfo struct {
	K         int    `json:"k"`
	Level     string `json:"level"`
	Inductive bool   `json:"inductive"`
}

func registerData(r *registry.Registry) error {
	dataset, err := dataDatasetType()
	if err != nil {
		return err
	}
	for _, t := range []*registry.Type{dataset, dataNormalizeType(), dataSplitType(), dataPrecomputeType()} {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- dataset

// dataDatasetType is the dataset stage: source, name and root, then the
// parameters the registered sources declare (datasets.SourceParams), so a
// new source's parameter needs no change here.
func dataDatasetType() (*registry.Type, error) {
	specs, err := datasets.SourceParams()
	if err != nil {
		return nil, fmt.Errorf("stage type dataset: %w", err)
	}
	t := &registry.Type{
		Name:    "dataset",
		Version: "2", // 2: Planetoid and Airport keep their self loops on the diagonal, as networkx does in the official code
		Doc: "Loads a benchmark graph from its original files (planetoid: cora|citeseer|pubmed; " +
			"hgcn: disease_nc|disease_lp|airport; reddit: FastGCN's npz files; textgcn: R8|R52|ohsumed|mr) " +
			"or generates one (synthetic: disease|sbm). Files are looked up under root (default: " +
			"$HYLAFLOW_DATA, else shared/datasets beside the pipeline's repository, else ../shared/datasets from the working directory, " +
			"else the user cache that `hylaflow datasets fetch` fills; the first that holds the dataset's files). " +
			"The output graph has the raw symmetric adjacency without self loops, the features, the labels " +
			"(-1 = unlabelled) and the dataset's own split when it defines one (Planetoid, Reddit, TextGCN, SBM).",
		Params: []registry.Param{
			{Name: "source", Type: registry.String, Required: true, Enum: datasets.Sources(),
				Doc: "which loader reads the files"},
			{Name: "name", Type: registry.String, Default: "", Doc: "dataset name, checked against the source's datasets in `hylaflow datasets list` when the pipeline loads: e.g. cora, airport, R8, disease (synthetic), sbm (synthetic); required but for source files, where it is the name reports show (default: path's base name)"},
			{Name: "root", Type: registry.Path, Default: "", Doc: "data root holding planetoid/, hgcn/, reddit/, textgcn/; empty = default root"},
		},
		Outputs:     []registry.Output{{Name: dataOutGraph, Kind: schema.KindGraph, Doc: "the graph (artifact/schema.go KindGraph layout)"}},
		Run:         dataRunDataset,
		Fingerprint: dataFingerprint,
		Origin:      dataOrigin,
		Check:       dataCheck,
		Preflight:   dataPreflight,
	}
	for _, sp := range specs {
		t.Params = append(t.Params, dataParam(sp))
	}
	return t, nil
}

// dataParam is the registry parameter of a source's declared one.
func dataParam(sp datasets.ParamSpec) registry.Param {
	p := registry.Param{Name: sp.Name, Default: sp.Default, Enum: sp.Enum, Doc: sp.Doc, KeyOmitDefault: sp.OmitDefaultFromKey,
		Type: map[datasets.ParamKind]registry.ParamType{datasets.ParamString: registry.String, datasets.ParamPath: registry.Path,
			datasets.ParamInt: registry.Int, datasets.ParamFloat: registry.Float, datasets.ParamBool: registry.Bool}[sp.Kind]}
	if sp.Min != nil || sp.Below != nil {
		p.Range = &registry.Range{}
		if sp.Min != nil {
			p.Range = registry.AtLeast(*sp.Min)
		}
		if sp.Below != nil {
			p.Range = p.Range.Below(*sp.Below)
		}
	}
	return p
}

// dataSource returns the registered source the source parameter names.
func dataSource(p registry.Values) (datasets.Source, error) {
	name := p.String("source")
	src, ok := datasets.SourceOf(name)
	if !ok {
		return nil, fmt.Errorf("dataset: %w %q (registered: %s)", datasets.ErrUnknownSource, name, strings.Join(datasets.Sources(), ", "))
	}
	return src, nil
}

// dataRoot resolves the root parameter: the catalogue entry's first root
// (datasets.RootCandidates) holding its files, else the default root.
// name is in the catalogue's spelling. For a source that reads a user's
// path (datasets.PathSource) it is the path parameter.
func dataRoot(p registry.Values, source, name string) string {
	if s, ok := datasets.SourceOf(source); ok {
		if _, user := s.(datasets.PathSource); user {
			return p.String("path")
		}
	}
	if r := p.String("root"); r != "" {
		return r
	}
	if e, ok := datasets.LookupIn(source, name); ok {
		if r := e.FindRoot(); r != "" {
			return r
		}
	}
	return datasets.DefaultRoot()
}

// dataRequest is the load request of a dataset instance, resolved once
// for the fingerprint and the load alike: the name in the catalogue's
// spelling before any path is built, the root, and the files the source
// declares for it (the only files the load opens and the fingerprint
// hashes).
func dataRequest(p registry.Values, workers int) (datasets.Source, datasets.Request, error) {
	src, err := dataSource(p)
	if err != nil {
		return nil, datasets.Request{}, err
	}
	name := datasets.Canonical(src.Name(), p.String("name"))
	req, err := datasets.Resolve(src, datasets.Request{Root: dataRoot(p, src.Name(), name), Name: name, Params: p, Workers: workers})
	if err != nil {
		return nil, datasets.Request{}, fmt.Errorf("dataset %s/%s: %w", src.Name(), name, err)
	}
	return src, req, nil
}

// dataFingerprint is datasets.Fingerprint of the instance's declared
// files under its root: their paths and contents (plus a generator's
// version). A catalogued dataset whose required files are missing or not
// of the catalogue's size is an error that names every root tried: the
// plan stops before a key is made from data that is not there.
func dataFingerprint(p registry.Values) (string, error) {
	src, req, err := dataRequest(p, 1)
	if err != nil {
		return "", err
	}
	if ps, ok := src.(datasets.PathSource); ok {
		parts, err := datasets.FingerprintParts(ps, req)
		if err != nil {
			return "", err
		}
		return registry.JoinFingerprint(parts)
	}
	if e, ok := datasets.LookupIn(src.Name(), req.Name); ok && len(e.Files) > 0 {
		if probs := datasets.RequiredProblems(e.FileProblems(req.Root)); len(probs) > 0 {
			return "", fmt.Errorf("dataset %s (%s): %s", e.Name, src.Name(), dataRootsReport(p, e))
		}
	}
	return datasets.Fingerprint(src, req)
}

// dataOrigin is the data root an instance reads its files from ("" for a
// generated dataset), for the run's provenance.
func dataOrigin(p registry.Values) string {
	src, req, err := dataRequest(p, 1)
	if err != nil {
		return ""
	}
	if _, user := src.(datasets.PathSource); !user && len(req.Files) == 0 {
		return ""
	}
	return req.Root
}

// dataRootsReport says, for each root a catalogued dataset was looked for
// in (the root parameter, else every default candidate), what is wrong
// with its files there.
func dataRootsReport(p registry.Values, e datasets.Entry) string {
	if r := p.String("root"); r != "" {
		return fmt.Sprintf("under root %s: %s", r, datasets.SummarizeProblems(datasets.RequiredProblems(e.FileProblems(r))))
	}
	var parts []string
	for _, r := range datasets.RootCandidates() {
		what := datasets.SummarizeProblems(datasets.RequiredProblems(e.FileProblems(r.Dir)))
		if what == "" {
			what = "complete"
		}
		parts = append(parts, fmt.Sprintf("%s (%s): %s", r.Dir, r.How, what))
	}
	return "no data root holds its files; roots tried: " + strings.Join(parts, "; ")
}

func dataRunDataset(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	src, req, err := dataRequest(job.Params, job.Workers)
	if err != nil {
		return nil, err
	}
	g, err := src.Load(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("dataset %s/%s: %w", src.Name(), req.Name, err)
	}
	a, err := dataGraphArtifact(g)
	if err != nil {
		return nil, err
	}
	var info schema.GraphInfo // the edge count, counted once
	if err := a.JSON(schema.MemberInfo, &info); err != nil {
		return nil, err
	}
	job.Logf("%s: %d nodes, %d edges, %d features, %d classes", g.Name, g.Nodes(), info.Edges, g.FeatureDim(), g.Classes)
	return map[string]artifact.Artifact{dataOutGraph: a}, nil
}

// dataGraphArtifact encodes g in the KindGraph layout.
func dataGraphArtifact(g *datasets.Graph) (*bundle.Bundle, error) {
	a := bundle.New(schema.KindGraph)
	a.SetSparse(schema.MemberAdj, g.Adj)
	switch {
	case g.SparseFeatures != nil:
		a.SetSparse(schema.MemberFeatures, g.SparseFeatures)
	case g.DenseFeatures != nil:
		a.SetDense(schema.MemberFeatures, g.DenseFeatures)
	}
	a.SetInts(schema.MemberLabels, g.Labels)
	if g.Train != nil || g.Val != nil || g.Test != nil {
		a.SetInts(schema.MemberTrain, dataNonNil(g.Train))
		a.SetInts(schema.MemberVal, dataNonNil(g.Val))
		a.SetInts(schema.MemberTest, dataNonNil(g.Test))
	}
	err := a.SetJSON(schema.MemberInfo, schema.GraphInfo{
		Name: g.Name, Source: g.Source, Nodes: g.Nodes(), Edges: g.Edges(), Classes: g.Classes,
		Binary: g.Binary, Normalization: "none", Inductive: g.Inductive, Docs: g.Docs,
	})
	return a, err
}

func dataNonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// dataCopy returns a shallow copy of a (members are shared; artifacts are immutable).
func dataCopy(a *bundle.Bundle, kind artifact.Kind) *bundle.Bundle {
	out := bundle.New(kind)
	for _, n := range a.Names() {
		v, _ := a.Member(n)
		switch m := v.(type) {
		case *mat.Dense:
			out.SetDense(n, m)
		case []float64:
			out.SetFloats(n, m)
		case []int:
			out.SetInts(n, m)
		case *sparse.CSR:
			out.SetSparse(n, m)
		case []byte:
			out.SetFile(n, m)
		default:
			_ = out.SetJSON(n, m) // json.RawMessage marshals to itself
		}
	}
	return out
}

func dataInfo(a *bundle.Bundle) (schema.GraphInfo, error) {
	var info schema.GraphInfo
	err := a.JSON(schema.MemberInfo, &info)
	return info, err
}

func dataOneInput(job *registry.Job, slot string) (*bundle.Bundle, error) {
	in, err := inputBundles(job, slot)
	if err != nil {
		return nil, err
	}
	if len(in) != 1 || in[0] == nil {
		return nil, fmt.Errorf("input %q: got %d artifacts, want 1", slot, len(in))
	}
	return in[0], nil
}

// ---------------------------------------------------------------- normalize

func dataNormalizeType() *registry.Type {
	return &registry.Type{
		Name:    "normalize",
		Version: "1",
		Doc: "Normalises a graph: adjacency sym_self_loops gives S = D^-1/2 (A+I) D^-1/2 (D the degrees of A+I), " +
			"none keeps A; features row divides each row by its sum, standardize centres and scales each column " +
			"with the training nodes' mean and standard deviation (all nodes if there is no split; FastGCN's Reddit rule).",
		Params: []registry.Param{
			{Name: "adjacency", Type: registry.String, Default: "sym_self_loops", Enum: []string{"sym_self_loops", "none"}, Doc: "adjacency normalisation"},
			{Name: "features", Type: registry.String, Default: "none", Enum: []string{"none", "row", "standardize"}, Doc: "feature normalisation"},
		},
		Inputs:      []registry.Input{{Name: "graph", Kind: schema.KindGraph, Doc: "graph from a dataset stage"}},
		Outputs:     []registry.Output{{Name: dataOutGraph, Kind: schema.KindGraph, Doc: "the normalised graph (adj = S, adj_raw = A)"}},
		Run:         dataRunNormalize,
		EstimateMem: memNormalize,
	}
}

func dataRunNormalize(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	in, err := dataOneInput(job, "graph")
	if err != nil {
		return nil, err
	}
	dataCollectBeforeLarge(in)
	info, err := dataInfo(in)
	if err != nil {
		return nil, err
	}
	if info.Normalization != "none" {
		return nil, fmt.Errorf("normalize: graph is already normalised (%s)", info.Normalization)
	}
	adj, err := in.Sparse(schema.MemberAdj)
	if err != nil {
		return nil, err
	}
	out := dataCopy(in, schema.KindGraph)
	if mode := job.Params.String("adjacency"); mode == "sym_self_loops" {
		s, err := sparse.SymNormalize(adj)
		if err != nil {
			return nil, fmt.Errorf("normalize: %w", err)
		}
		out.SetSparse(schema.MemberAdj, s)
		out.SetSparse(dataMemberAdjRaw, adj)
		info.Normalization = mode
	}
	if in.Has(schema.MemberFeatures) {
		switch job.Params.String("features") {
		case "row":
			if x, err := in.Sparse(schema.MemberFeatures); err == nil {
				out.SetSparse(schema.MemberFeatures, sparse.RowNormalize(x))
			} else if x, err := in.Dense(schema.MemberFeatures); err == nil {
				out.SetDense(schema.MemberFeatures, datasets.RowNormalizeDense(x))
			}
		case "standardize":
			x, err := dataDenseFeatures(in)
			if err != nil {
				return nil, err
			}
			var rows []int
			if in.Has(schema.MemberTrain) {
				rows, _ = in.Ints(schema.MemberTrain)
				if len(rows) == 0 {
					rows = nil
				}
			}
			out.SetDense(schema.MemberFeatures, datasets.StandardizeColumns(x, rows))
		}
	}
	if err := out.SetJSON(schema.MemberInfo, info); err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{dataOutGraph: out}, ctx.Err()
}

// dataLargeBytes is the size of dense features from which normalize and
// precompute collect garbage before they allocate their outputs.
const dataLargeBytes = 256 << 20

// dataCollectBeforeLarge runs the garbage collector when the graph's dense
// features are large (Reddit scale: 1.1 GB), before the stage allocates
// outputs of that size. Whatever earlier stages dropped (the generator's
// temporaries, the unnormalised features once nothing holds them) is then
// reused instead of faulting in fresh pages, which costs 2–6 CPU s per GiB
// on virtual machines; the collection itself takes milliseconds, the heap
// being a few large pointer-free arrays.
func dataCollectBeforeLarge(a *bundle.Bundle) {
	if v, ok := a.Member(schema.MemberFeatures); ok {
		if x, ok := v.(*mat.Dense); ok {
			if r, c := x.Dims(); r*c*8 >= dataLargeBytes {
				runtime.GC()
			}
		}
	}
}

// dataDenseFeatures returns the features as a dense matrix.
func dataDenseFeatures(a *bundle.Bundle) (*mat.Dense, error) {
	v, ok := a.Member(schema.MemberFeatures)
	if !ok {
		return nil, errors.New("graph has no features (a node-level graph? use level = \"nodes\")")
	}
	switch x := v.(type) {
	case *mat.Dense:
		return x, nil
	case *sparse.CSR:
		if x.Rows == 0 || x.Cols == 0 {
			return &mat.Dense{}, nil
		}
		if float64(x.Rows)*float64(x.Cols) > 1<<31 {
			return nil, fmt.Errorf("features %dx%d too large to make dense", x.Rows, x.Cols)
		}
		return x.ToDense(), nil
	}
	return nil, fmt.Errorf("features member is %T", v)
}

// dataSparseFeatures returns the graph's features when they are stored
// sparse and small enough to be made dense (the size PowerSparse returns).
func dataSparseFeatures(a *bundle.Bundle) (*sparse.CSR, bool) {
	v, ok := a.Member(schema.MemberFeatures)
	if !ok {
		return nil, false
	}
	x, ok := v.(*sparse.CSR)
	if !ok || x.Rows == 0 || x.Cols == 0 || float64(x.Rows)*float64(x.Cols) > 1<<31 {
		return nil, false
	}
	return x, true
}

// ---------------------------------------------------------------- split

func dataSplitType() *registry.Type {
	return &registry.Type{
		Name:    "split",
		Version: "1",
		Doc: "Chooses train/validation/test nodes. rule planetoid or given keeps the dataset's own split; " +
			"hgcn applies HGCN's rule (shuffle label != 0 and label == 0 nodes separately with the seed, " +
			"m = min of the two counts, val = round(p_val·m) and test = round(p_test·m) of each group, train = the rest); " +
			"random shuffles all labelled nodes; stratified shuffles each class's labelled nodes separately and takes " +
			"round(p_val·n_c) of each for validation and round(p_test·n_c) for test (a user's graph without a split); " +
			"auto is given when the dataset brings a split, else stratified. p_val/p_test < 0 take the official values " +
			"(disease 0.10/0.60, airport 0.15/0.15, files 0.20/0.20). The test nodes never serve as validation nodes.",
		Params: []registry.Param{
			{Name: "rule", Type: registry.String, Default: "given", Enum: []string{"planetoid", "given", "hgcn", "random", "stratified", "auto"}, Doc: "split rule"},
			{Name: "seed", Type: registry.Int, Range: registry.AtLeast(0), Default: 0, Doc: "seed of the shuffles (hgcn, random, stratified)"},
			{Name: "p_val", Type: registry.Float, Range: registry.Range{}.Below(1), Default: -1.0, Doc: "validation proportion (negative: the dataset's official value)"},
			{Name: "p_test", Type: registry.Float, Range: registry.Range{}.Below(1), Default: -1.0, Doc: "test proportion (negative: the dataset's official value)"},
		},
		Inputs:  []registry.Input{{Name: "graph", Kind: schema.KindGraph, Doc: "graph whose labels are split"}},
		Outputs: []registry.Output{{Name: dataOutSplit, Kind: schema.KindSplit, Doc: "train, val, test node indices"}},
		Run:     dataRunSplit,
	}
}

func dataRunSplit(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	in, err := dataOneInput(job, "graph")
	if err != nil {
		return nil, err
	}
	info, err := dataInfo(in)
	if err != nil {
		return nil, err
	}
	labels, err := in.Ints(schema.MemberLabels)
	if err != nil {
		return nil, err
	}
	p := job.Params
	rule := p.String("rule")
	seed := p.Int("seed")
	var train, val, test []int
	if rule == "auto" {
		rule = "stratified"
		if in.Has(schema.MemberTrain) {
			rule = "given"
		}
	}
	switch rule {
	case "planetoid", "given":
		if !in.Has(schema.MemberTrain) {
			return nil, fmt.Errorf("split: dataset %s defines no split; use rule = \"stratified\", \"hgcn\" or \"random\"", info.Name)
		}
		train, _ = in.Ints(schema.MemberTrain)
		val, _ = in.Ints(schema.MemberVal)
		test, _ = in.Ints(schema.MemberTest)
	case "hgcn", "random", "stratified":
		pv, pt := p.Float("p_val"), p.Float("p_test")
		if pv < 0 || pt < 0 {
			def, ok := dataOfficialSplit(info)
			if !ok {
				return nil, fmt.Errorf("split: no official proportions for %s; set p_val and p_test", info.Name)
			}
			if pv < 0 {
				pv = def[0]
			}
			if pt < 0 {
				pt = def[1]
			}
		}
		switch rule {
		case "hgcn":
			train, val, test, err = datasets.HGCNSplit(labels, pv, pt, uint64(seed))
		case "stratified":
			train, val, test, err = datasets.StratifiedSplit(labels, pv, pt, uint64(seed))
		default:
			train, val, test, err = datasets.RandomSplit(labels, pv, pt, uint64(seed))
		}
		if err != nil {
			return nil, fmt.Errorf("split: %w", err)
		}
	}
	out := bundle.New(schema.KindSplit)
	out.SetInts(schema.MemberTrain, dataNonNil(train))
	out.SetInts(schema.MemberVal, dataNonNil(val))
	out.SetInts(schema.MemberTest, dataNonNil(test))
	if err := out.SetJSON(schema.MemberInfo, schema.SplitInfo{Rule: rule, Seed: seed}); err != nil {
		return nil, err
	}
	job.Logf("split %s seed %d: %d train, %d val, %d test", rule, seed, len(train), len(val), len(test))
	return map[string]artifact.Artifact{dataOutSplit: out}, ctx.Err()
}

// dataOfficialSplit returns the official validation and test proportions
// of the graph info describes, from its source's OfficialSplit.
func dataOfficialSplit(info schema.GraphInfo) ([2]float64, bool) {
	src, ok := datasets.SourceOf(info.Source)
	if !ok {
		return [2]float64{}, false
	}
	pv, pt, ok := src.OfficialSplit(info.Name).Proportions()
	return [2]float64{pv, pt}, ok
}

// ---------------------------------------------------------------- precompute

func dataPrecomputeType() *registry.Type {
	return &registry.Type{
		Name:    "precompute",
		Version: "3", // 3: a graph without features keeps X = rows of S^K as sparse factors (X_A, X_B, min-max columns)
		Doc: "Applies the normalised adjacency S K times. level features: X = S^K X (dense); with inductive " +
			"also X_train = S_train^K X[train], S_train the normalised training subgraph (needs a split). " +
			"level nodes: S and SK = S^K as sparse matrices for node-level HyLa (X̄ = S^{K-1}·S·φ(Z)). " +
			"A graph without features (TextGCN's corpus graph) has identity features at level features: X = the kept rows of S^K, " +
			"stored as sparse factors (X_A = rows of S^{K-1}, X_B = S) with the kept columns and their min-max ranges, never dense; " +
			"train multiplies through them. " +
			"Labels and the split (from the split input if connected, else the graph's) are copied. " +
			"The product runs in parallel by row blocks and is bit-identical for any thread count.",
		Params: []registry.Param{
			{Name: "k", Type: registry.Int, Range: registry.Between(0, 64), Default: 2, Doc: "number of propagation steps K ≥ 0"},
			{Name: "level", Type: registry.String, Default: "features", Enum: []string{"features", "nodes"}, Doc: "feature-level or node-level HyLa"},
			{Name: "inductive", Type: registry.Bool, Default: false, Doc: "also propagate on the training subgraph only (X_train)"},
			{Name: "rows", Type: registry.String, Default: "all", Enum: []string{"all", "labelled"},
				Doc: "level features: keep the rows of every node, or only of the labelled nodes (labels ≥ 0; TextGCN's documents), renumbering labels and split"},
			{Name: "scale", Type: registry.String, Default: "none", Enum: []string{"none", "minmax"},
				Doc: "level features: minmax maps each column of S^K X to [0, 1] with the training rows' minimum and maximum and drops the columns constant on them (TextSGC's preprocessing)"},
		},
		Inputs: []registry.Input{
			{Name: "graph", Kind: schema.KindGraph, Doc: "graph from a normalize stage"},
			{Name: "split", Kind: schema.KindSplit, Optional: true, Doc: "split to attach (and to use for the inductive subgraph)"},
		},
		Outputs:     []registry.Output{{Name: dataOutFeatures, Kind: schema.KindFeatures, Doc: "X (and X_train) or S, SK; labels; split; info"}},
		EstimateMem: memPrecompute,
		Run:         dataRunPrecompute,
	}
}

func dataRunPrecompute(ctx context.Context, job *registry.Job) (map[string]artifact.Artifact, error) {
	in, err := dataOneInput(job, "graph")
	if err != nil {
		return nil, err
	}
	dataCollectBeforeLarge(in)
	info, err := dataInfo(in)
	if err != nil {
		return nil, err
	}
	if info.Normalization != "sym_self_loops" {
		return nil, fmt.Errorf("precompute: graph %s is not normalised (%q); add a normalize stage with adjacency = \"sym_self_loops\"", info.Name, info.Normalization)
	}
	s, err := in.Sparse(schema.MemberAdj)
	if err != nil {
		return nil, err
	}
	p := job.Params
	k := p.Int("k")
	if k < 0 || k > 64 {
		return nil, fmt.Errorf("precompute: k = %d, want 0..64", k)
	}
	out := bundle.New(schema.KindFeatures)
	labels, err := in.Ints(schema.MemberLabels)
	if err != nil {
		return nil, err
	}
	out.SetInts(schema.MemberLabels, labels)
	splitSrc := in
	sp, err := inputBundles(job, "split")
	if err != nil {
		return nil, err
	}
	if len(sp) == 1 && sp[0] != nil {
		splitSrc = sp[0]
	}
	var trainIdx []int
	if splitSrc.Has(schema.MemberTrain) {
		for _, m := range []string{schema.MemberTrain, schema.MemberVal, schema.MemberTest} {
			v, err := splitSrc.Ints(m)
			if err != nil {
				return nil, err
			}
			for _, i := range v {
				if i < 0 || i >= s.Rows {
					return nil, fmt.Errorf("precompute: %s index %d outside the %d nodes", m, i, s.Rows)
				}
			}
			out.SetInts(m, v)
		}
		trainIdx, _ = splitSrc.Ints(schema.MemberTrain)
	}
	workers := max(job.Workers, 1)
	switch p.String("level") {
	case "nodes":
		out.SetSparse(schema.MemberS, s)
		// SK is materialised only while it stays affordable: on dense
		// corpus graphs S^K can fill most of the n² entries.
		sk := sparse.Identity(s.Rows)
		for i := 0; i < k && sk != nil; i++ {
			job.Progress.Report(i, k, "S^K")
			if lb := dataProductNNZLowerBound(sk, s); lb > dataMaxSKEntries {
				job.Logf("precompute: S^%d has at least %d entries (limit %d); SK not stored, use k from the precompute member", i+1, lb, dataMaxSKEntries)
				sk = nil
				break
			}
			nnz, err := sparse.MulNNZ(ctx, sk, s, workers)
			if err != nil {
				return nil, err
			}
			if nnz > dataMaxSKEntries {
				job.Logf("precompute: S^%d would have %d entries (limit %d); SK not stored, use k from the precompute member", i+1, nnz, dataMaxSKEntries)
				sk = nil
				break
			}
			if sk, err = sparse.Mul(ctx, sk, s, workers); err != nil {
				return nil, err
			}
		}
		if sk != nil {
			out.SetSparse(dataMemberSK, sk)
		}
	default:
		rowsMode, scale := p.String("rows"), p.String("scale")
		if p.Bool("inductive") && (rowsMode != "all" || scale != "none") {
			return nil, errors.New("precompute: inductive works with rows = \"all\" and scale = \"none\" only")
		}
		var keep []int // rows kept (nil: all)
		if rowsMode == "labelled" {
			for i, y := range labels {
				if y >= 0 {
					keep = append(keep, i)
				}
			}
		}
		var x, xk *mat.Dense
		var xRows *sparse.CSR // X given by its non-zeros (K = 0, sparse features)
		var fact *train.FactoredX
		xs, sparseX := dataSparseFeatures(in)
		sparseX = sparseX && !p.Bool("inductive")
		if sparseX && k == 0 && scale == "none" {
			// X itself, mostly zeros (Table 2's TF-IDF rows): stored as
			// the dense matrix (the same bytes) but handed on as its
			// non-zeros, never formed (bundle.SetDenseRows).
			xRows = dataDenseRows(xs, keep)
		} else if sparseX && k > 0 {
			// S^K X straight from the sparse X (Planetoid's bag-of-words):
			// the same bits as densifying X first, without the dense copy.
			if xk, err = sparse.PowerSparse(ctx, s, xs, k, workers); err != nil {
				return nil, fmt.Errorf("precompute: %w", err)
			}
			if keep != nil {
				xk = dataSelectRows(xk, keep)
			}
		} else if in.Has(schema.MemberFeatures) || p.Bool("inductive") {
			if x, err = dataDenseFeatures(in); err != nil {
				return nil, fmt.Errorf("precompute: %w", err)
			}
			xk = x // K = 0: X itself (artifacts are immutable, sharing is safe)
			if k > 0 {
				if xk, err = sparse.PowerDense(ctx, s, x, k, workers); err != nil {
					return nil, fmt.Errorf("precompute: %w", err)
				}
			}
			if keep != nil {
				xk = dataSelectRows(xk, keep)
			}
		} else {
			// Identity features: X = rows of S^K, kept as the sparse factors
			// A (the rows of S^{K−1}) and B = S (train.FactoredX); the
			// train stage multiplies through them and never forms X.
			a, b, err := dataIdentityFactors(ctx, s, k, keep, workers)
			if err != nil {
				return nil, fmt.Errorf("precompute: graph %s without features: %w", info.Name, err)
			}
			fact = &train.FactoredX{A: a, B: b}
		}
		if keep != nil {
			if err := dataRenumber(out, keep, s.Rows); err != nil {
				return nil, fmt.Errorf("precompute: rows = \"labelled\": %w", err)
			}
			trainIdx, _ = out.Ints(schema.MemberTrain)
		}
		if fact != nil {
			if err := dataSetFactored(ctx, job, out, fact, scale, trainIdx, workers); err != nil {
				return nil, err
			}
		} else if scale == "minmax" {
			if len(trainIdx) == 0 {
				return nil, errors.New("precompute: scale = \"minmax\" needs a split with training nodes")
			}
			kept := dataMinMaxColumns(xk, trainIdx)
			_, c := xk.Dims()
			job.Logf("precompute: minmax scaling keeps %d of %d columns (the others are constant on the training rows)", kept, c)
			if kept == 0 {
				return nil, errors.New("precompute: scale = \"minmax\": every column is constant on the training rows")
			}
			r, _ := xk.Dims()
			xk = mat.NewDense(r, kept, xk.RawMatrix().Data[:r*kept])
		}
		if xk != nil {
			out.SetDense(schema.MemberX, xk)
		}
		if xRows != nil {
			out.SetDenseRows(schema.MemberX, xRows)
		}
		if p.Bool("inductive") {
			if trainIdx == nil {
				return nil, errors.New("precompute: inductive needs a split (connect a split stage or use a dataset that defines one)")
			}
			raw := s
			if in.Has(dataMemberAdjRaw) {
				raw, _ = in.Sparse(dataMemberAdjRaw)
			} else {
				return nil, errors.New("precompute: inductive needs the raw adjacency (adj_raw) kept by the normalize stage")
			}
			sub, err := raw.Submatrix(trainIdx, trainIdx)
			if err != nil {
				return nil, fmt.Errorf("precompute: training subgraph: %w", err)
			}
			strain, err := sparse.SymNormalize(sub)
			if err != nil {
				return nil, err
			}
			if _, d := x.Dims(); len(trainIdx) > 0 && d > 0 {
				// S_train^K·X[train], the training rows gathered block by
				// block (no copy of X[train]).
				xt, err := sparse.PowerDenseGather(ctx, strain, x, trainIdx, k, workers)
				if err != nil {
					return nil, err
				}
				out.SetDense(schema.MemberXTrain, xt)
			}
		}
	}
	if err := out.SetJSON(schema.MemberInfo, info); err != nil {
		return nil, err
	}
	if err := out.SetJSON(dataMemberPrecompute, dataPrecomputeInfo{K: k, Level: p.String("level"), Inductive: p.Bool("inductive")}); err != nil {
		return nil, err
	}
	return map[string]artifact.Artifact{dataOutFeatures: out}, ctx.Err()
}

// dataProductNNZLowerBound returns a lower bound of the number of entries
// of a·b in O(nnz(a)) when neither has negative entries (no cancellation):
// row i of a·b holds at least every column of row j of b for each j in
// row i of a, so at least the longest such row. It returns 0 when an entry
// is negative. Corpus graphs use it to skip counting an S^K that is far too
// large to store.
func dataProductNNZLowerBound(a, b *sparse.CSR) int {
	for _, v := range a.Data {
		if v < 0 {
			return 0
		}
	}
	for _, v := range b.Data {
		if v < 0 {
			return 0
		}
	}
	total := 0
	for i := 0; i < a.Rows; i++ {
		longest := 0
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			j := a.Indices[p]
			longest = max(longest, b.Indptr[j+1]-b.Indptr[j])
		}
		total += longest
	}
	return total
}

// dataDenseRows returns the rows keep (nil: all) of the matrix x.ToDense
// would form, as their entries whose bits are not +0 (bundle.SetDenseRows):
// each row's stored entries summed from +0 in stored order, as ToDense
// sums them, so the dense matrix they give is ToDense's bit for bit.
func dataDenseRows(x *sparse.CSR, keep []int) *sparse.CSR {
	n := x.Rows
	if keep != nil {
		n = len(keep)
	}
	out := &sparse.CSR{Rows: n, Cols: x.Cols, Indptr: make([]int, n+1)}
	acc := make([]float64, x.Cols)
	var cols []int32
	for r := 0; r < n; r++ {
		i := r
		if keep != nil {
			i = keep[r]
		}
		lo, hi := x.Indptr[i], x.Indptr[i+1]
		cols = append(cols[:0], x.Indices[lo:hi]...)
		for p := lo; p < hi; p++ {
			acc[x.Indices[p]] += x.Data[p]
		}
		slices.Sort(cols)
		cols = slices.Compact(cols)
		for _, j := range cols {
			if v := acc[j]; math.Float64bits(v) != 0 {
				out.Indices = append(out.Indices, j)
				out.Data = append(out.Data, v)
			}
			acc[j] = 0
		}
		out.Indptr[r+1] = len(out.Data)
	}
	return out
}

// dataSelectRows returns the rows keep of x as a new matrix.
func dataSelectRows(x *mat.Dense, keep []int) *mat.Dense {
	_, c := x.Dims()
	out := mat.NewDense(max(len(keep), 1), max(c, 1), nil)
	for a, i := range keep {
		copy(out.RawRowView(a), x.RawRowView(i))
	}
	return out
}

// dataIdentityFactors returns the factors of the rows keep (nil: all) of
// S^K, the features of a graph without features: A = the rows of S^{K−1}
// (formed sparse, S[keep,:]·S^{K−2}; the identity's rows for K = 0) and
// B = S for K ≥ 2 (nil for K ≤ 1, where A is the rows of S^K itself).
// The rows of a corpus graph's S² are nearly full (R8: 92.6 % of 15362
// columns), so A·B is never formed: train.FactoredX multiplies through it.
func dataIdentityFactors(ctx context.Context, s *sparse.CSR, k int, keep []int, workers int) (a, b *sparse.CSR, err error) {
	n := s.Rows
	if keep == nil {
		keep = make([]int, n)
		for i := range keep {
			keep[i] = i
		}
	}
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	if k == 0 {
		a, err = sparse.Identity(n).Submatrix(keep, all)
		return a, nil, err
	}
	if a, err = s.Submatrix(keep, all); err != nil {
		return nil, nil, err
	}
	if k == 1 {
		return a, nil, nil
	}
	for step := 2; step < k; step++ {
		if a, err = sparse.Mul(ctx, a, s, workers); err != nil {
			return nil, nil, err
		}
	}
	return a, s, nil
}

// dataSetFactored stores the factored X (train.FactoredX) in out: with
// scale = "minmax" the columns of A·B that vary on the training rows and
// their minimum and maximum there (computed row by row, A·B never
// formed), else every column with range [0, 1] (X = A·B).
func dataSetFactored(ctx context.Context, job *registry.Job, out *bundle.Bundle, f *train.FactoredX, scale string, trainRows []int, workers int) error {
	n := f.A.Cols
	if scale == "minmax" {
		if len(trainRows) == 0 {
			return errors.New("precompute: scale = \"minmax\" needs a split with training nodes")
		}
		mm, err := train.MinMaxColumns(ctx, f.A, f.B, trainRows, workers)
		if err != nil {
			return fmt.Errorf("precompute: %w", err)
		}
		job.Logf("precompute: minmax scaling keeps %d of %d columns (the others are constant on the training rows)", len(mm.Cols), n)
		if len(mm.Cols) == 0 {
			return errors.New("precompute: scale = \"minmax\": every column is constant on the training rows")
		}
		f = mm
	} else {
		f.Cols, f.Lo, f.Hi = make([]int, n), make([]float64, n), make([]float64, n)
		for j := range f.Cols {
			f.Cols[j], f.Hi[j] = j, 1
		}
	}
	out.SetSparse(schema.MemberXA, f.A)
	if f.B != nil {
		out.SetSparse(schema.MemberXB, f.B)
	}
	out.SetInts(schema.MemberXCols, f.Cols)
	out.SetFloats(schema.MemberXLo, f.Lo)
	out.SetFloats(schema.MemberXHi, f.Hi)
	return nil
}

// dataRowBlock is the number of rows a worker of dataParallelRows takes at a time.
const dataRowBlock = 64

// dataParallelRows calls f(lo, hi) for consecutive blocks of [0, n) on up
// to workers goroutines (each row belongs to exactly one call) and stops
// early when ctx is canceled.
func dataParallelRows(ctx context.Context, n, workers int, f func(lo, hi int)) error {
	return parallel.Balanced(ctx, n, dataRowBlock, workers, f)
}

// dataRenumber keeps the labels of the rows keep and maps the split's node
// indices to positions in keep; a split node outside keep is an error.
func dataRenumber(out *bundle.Bundle, keep []int, n int) error {
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for a, i := range keep {
		pos[i] = a
	}
	labels, err := out.Ints(schema.MemberLabels)
	if err != nil {
		return err
	}
	kl := make([]int, len(keep))
	for a, i := range keep {
		kl[a] = labels[i]
	}
	out.SetInts(schema.MemberLabels, kl)
	for _, m := range []string{schema.MemberTrain, schema.MemberVal, schema.MemberTest} {
		if !out.Has(m) {
			continue
		}
		v, err := out.Ints(m)
		if err != nil {
			return err
		}
		nv := make([]int, len(v))
		for b, i := range v {
			if pos[i] < 0 {
				return fmt.Errorf("%s node %d has no label (label %d) and is not kept", m, i, labels[i])
			}
			nv[b] = pos[i]
		}
		out.SetInts(m, nv)
	}
	return nil
}

// dataMinMaxColumns scales x in place as TextSGC's preprocessing does:
// every column with a positive range on the training rows becomes
// (x − min)/(max − min) with that row set's minimum and maximum; columns
// constant on the training rows are dropped. The kept columns are packed
// row-major at the start of x's storage (stride = the returned count).
func dataMinMaxColumns(x *mat.Dense, train []int) int {
	r, c := x.Dims()
	lo := make([]float64, c)
	hi := make([]float64, c)
	copy(lo, x.RawRowView(train[0]))
	copy(hi, x.RawRowView(train[0]))
	for _, i := range train[1:] {
		for j, v := range x.RawRowView(i) {
			lo[j] = min(lo[j], v)
			hi[j] = max(hi[j], v)
		}
	}
	var cols []int
	for j := 0; j < c; j++ {
		if hi[j] > lo[j] {
			cols = append(cols, j)
		}
	}
	raw := x.RawMatrix()
	kept := len(cols)
	for i := 0; i < r; i++ { // writes never overtake reads: kept ≤ c, cols[b] ≥ b
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		dst := raw.Data[i*kept : i*kept+kept]
		for b, j := range cols {
			dst[b] = (row[j] - lo[j]) / (hi[j] - lo[j])
		}
	}
	return kept
}

// featuresFactored returns the factored X of a features artifact
// (members X_A, X_B, X_cols, X_lo, X_hi), or nil when it has none.
func featuresFactored(a *bundle.Bundle) (*train.FactoredX, error) {
	if !a.Has(schema.MemberXA) {
		return nil, nil
	}
	f := &train.FactoredX{}
	var err error
	if f.A, err = a.Sparse(schema.MemberXA); err != nil {
		return nil, err
	}
	if a.Has(schema.MemberXB) {
		if f.B, err = a.Sparse(schema.MemberXB); err != nil {
			return nil, err
		}
	}
	if f.Cols, err = a.Ints(schema.MemberXCols); err != nil {
		return nil, err
	}
	if f.Lo, err = a.Floats(schema.MemberXLo); err != nil {
		return nil, err
	}
	if f.Hi, err = a.Floats(schema.MemberXHi); err != nil {
		return nil, err
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// featuresHasX reports whether a features artifact holds a feature-level
// X, dense or factored.
func featuresHasX(a *bundle.Bundle) bool {
	return a.Has(schema.MemberX) || a.Has(schema.MemberXA)
}

// featuresX returns the feature-level X of a features artifact as a dense
// matrix: the stored X, or the factored X formed row by row (for the
// stages that need X's entries, not its products: the visual ones).
func featuresX(ctx context.Context, a *bundle.Bundle, workers int) (*mat.Dense, error) {
	f, err := featuresFactored(a)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return a.Dense(schema.MemberX)
	}
	return f.Dense(ctx, workers)
}

// featuresCols returns the number of columns of the feature-level X.
func featuresCols(a *bundle.Bundle) (int, error) {
	f, err := featuresFactored(a)
	if err != nil {
		return 0, err
	}
	if f != nil {
		return len(f.Cols), nil
	}
	_, c, err := a.DenseDims(schema.MemberX)
	return c, err
}
