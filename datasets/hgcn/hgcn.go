// Package hgcn loads the datasets of HGCN (Chami et al. 2019) as HyLa uses
// them: Disease (disease_nc, disease_lp: edges CSV, labels .npy, features
// .npz) and Airport (airport.p, a pickled networkx Graph).
package hgcn

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/datasets/pyobj"
	"github.com/hylaflow/hylaflow/sparse"
	"github.com/nlpodyssey/gopickle/types"
	"gonum.org/v1/gonum/mat"
)

// Names lists the loadable datasets.
var Names = []string{"disease_nc", "disease_lp", "airport"}

// Split proportions of the official HyLa/HGCN configurations.
var (
	DiseaseSplit = [2]float64{0.10, 0.60} // p_val, p_test
	AirportSplit = [2]float64{0.15, 0.15}
)

// AirportBins are the bin edges HGCN applies to column 4 of Airport's features.
var AirportBins = []float64{7.0 / 7, 8.0 / 7, 9.0 / 7}

// Files returns the files dataset name needs under root (the hgcn/ folder).
func Files(root, name string) []string {
	if name == "airport" {
		return []string{filepath.Join(root, "airport", "airport.p")}
	}
	dir := filepath.Join(root, name)
	return []string{
		filepath.Join(dir, name+".edges.csv"),
		filepath.Join(dir, name+".labels.npy"),
		filepath.Join(dir, name+".feats.npz"),
	}
}

// Options control Load.
type Options struct {
	// IdentityFeatures replaces the Disease feature file by the identity
	// matrix (HGCN's use_feats=0). Without it a missing feature file is an error.
	IdentityFeatures bool
}

// Load reads dataset name (disease_nc, disease_lp or airport) from root, the hgcn/ folder.
// The split is not set (use datasets.HGCNSplit with DiseaseSplit or AirportSplit).
func Load(root, name string, opts Options) (*datasets.Graph, error) {
	switch name {
	case "airport":
		return LoadAirport(filepath.Join(root, "airport", "airport.p"))
	case "disease_nc", "disease_lp":
		return LoadDisease(filepath.Join(root, name), name, opts)
	}
	return nil, fmt.Errorf("hgcn: unknown dataset %q (want one of %v)", name, Names)
}

// LoadDisease reads NAME.edges.csv, NAME.labels.npy and NAME.feats.npz from dir
// as HGCN's load_synthetic_data does: node ids are numbered in order of first
// appearance in the edge list, the adjacency is made symmetric (a self loop
// would be kept on the diagonal, as HGCN's dense adj[i, j] = 1 does; the
// shipped files have none).
func LoadDisease(dir, name string, opts Options) (*datasets.Graph, error) {
	return LoadDiseaseFiles(name, filepath.Join(dir, name+".edges.csv"), filepath.Join(dir, name+".labels.npy"),
		filepath.Join(dir, name+".feats.npz"), opts)
}

// LoadDiseaseFiles is LoadDisease on the given edge, label and feature
// files (the Source passes the files it declares).
func LoadDiseaseFiles(name, edgesPath, labelsPath, featsPath string, opts Options) (*datasets.Graph, error) {
	ids, us, vs, err := readEdgeCSV(edgesPath)
	if err != nil {
		return nil, err
	}
	n := len(ids)
	adj, err := datasets.NetworkxAdjacency(n, us, vs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", edgesPath, err)
	}
	la, err := npy.ReadFile(labelsPath)
	if err != nil {
		return nil, err
	}
	if len(la.Shape) != 1 || la.Floats == nil {
		return nil, fmt.Errorf("%s: labels of kind %q shape %v, want a 1-D numeric array", labelsPath, la.Kind, la.Shape)
	}
	if la.Shape[0] != n {
		return nil, fmt.Errorf("%s: %d labels for the %d nodes of %s", labelsPath, la.Shape[0], n, edgesPath)
	}
	labels := make([]int, n)
	classes := 0
	for i, v := range la.Floats {
		if v != float64(int(v)) || v < 0 || v > 1<<20 {
			return nil, fmt.Errorf("%s: label %v at position %d is not a class index", labelsPath, v, i)
		}
		labels[i] = int(v)
		classes = max(classes, int(v)+1)
	}
	g := &datasets.Graph{Name: name, Source: "hgcn", Adj: adj, Labels: labels, Classes: classes}
	feats, err := npy.ReadSparseFile(featsPath)
	switch {
	case err == nil:
		if feats.Rows != n {
			return nil, fmt.Errorf("%s: %d feature rows for %d nodes", featsPath, feats.Rows, n)
		}
		g.SparseFeatures = feats
	case errors.Is(err, fs.ErrNotExist) && opts.IdentityFeatures:
		g.SparseFeatures = sparse.Identity(n)
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("hgcn %s: %w (get it with `hylaflow datasets fetch %s`, or use identity features)", name, err, name)
	default:
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("hgcn %s: %w", name, err)
	}
	return g, nil
}

// readEdgeCSV reads "u,v" lines; node names are numbered by first appearance.
func readEdgeCSV(path string) (ids map[string]int, us, vs []int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w (get it with `hylaflow datasets fetch`)", err)
	}
	ids = map[string]int{}
	id := func(s []byte) int {
		k := string(s)
		if v, ok := ids[k]; ok {
			return v
		}
		ids[k] = len(ids)
		return ids[k]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := bytes.TrimRight(sc.Bytes(), "\r")
		if len(bytes.TrimSpace(t)) == 0 {
			continue
		}
		parts := bytes.Split(t, []byte(","))
		if len(parts) != 2 || len(bytes.TrimSpace(parts[0])) == 0 || len(bytes.TrimSpace(parts[1])) == 0 {
			return nil, nil, nil, fmt.Errorf("%s:%d: expected \"u,v\", got %q", path, line, clip(t))
		}
		us = append(us, id(bytes.TrimSpace(parts[0])))
		vs = append(vs, id(bytes.TrimSpace(parts[1])))
	}
	if err := sc.Err(); err != nil {
		return nil, nil, nil, fmt.Errorf("%s:%d: %w", path, line+1, err)
	}
	if len(ids) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no edges", path)
	}
	return ids, us, vs, nil
}

func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// LoadAirport reads airport.p: nodes in the order of the graph's node dict,
// features = the first 4 columns of the node attribute 'feat', labels =
// column 4 binned with AirportBins (numpy.digitize minus its minimum). The
// adjacency is networkx's (datasets.NetworkxAdjacency): its one self loop
// stays on the diagonal, as in the official code.
func LoadAirport(path string) (*datasets.Graph, error) {
	v, err := pyobj.LoadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w (get it with `hylaflow datasets fetch airport`)", err)
		}
		return nil, err
	}
	g, ok := v.(*pyobj.Graph)
	if !ok {
		return nil, fmt.Errorf("%s: holds %T, want a networkx Graph", path, v)
	}
	nodes, err := g.Nodes()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	adjDict, err := g.Adj()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	n := nodes.Len()
	index := make(map[int]int, n)
	feat := mat.NewDense(max(n, 1), 5, nil)
	for i, e := range *nodes {
		id, ok := pyobj.AsInt(e.Key)
		if !ok {
			return nil, fmt.Errorf("%s: node %d has key %v, want an int", path, i, e.Key)
		}
		if _, dup := index[id]; dup {
			return nil, fmt.Errorf("%s: node %d listed twice", path, id)
		}
		index[id] = i
		attrs, ok := e.Value.(*types.Dict)
		if !ok {
			return nil, fmt.Errorf("%s: node %d: attributes are %T", path, id, e.Value)
		}
		fv, ok := pyobj.DictGet(attrs, "feat")
		if !ok {
			return nil, fmt.Errorf("%s: node %d has no 'feat' attribute", path, id)
		}
		vals, err := floatList(fv)
		if err != nil || len(vals) != 5 {
			return nil, fmt.Errorf("%s: node %d: 'feat' must be 5 numbers (%v)", path, id, err)
		}
		feat.SetRow(i, vals)
	}
	var us, vs []int
	for _, e := range *adjDict {
		id, _ := pyobj.AsInt(e.Key)
		u, ok := index[id]
		if !ok {
			return nil, fmt.Errorf("%s: adjacency of unknown node %v", path, e.Key)
		}
		nb, ok := e.Value.(*types.Dict)
		if !ok {
			return nil, fmt.Errorf("%s: neighbours of node %d are %T", path, id, e.Value)
		}
		for _, f := range *nb {
			wid, _ := pyobj.AsInt(f.Key)
			w, ok := index[wid]
			if !ok {
				return nil, fmt.Errorf("%s: node %d has unknown neighbour %v", path, id, f.Key)
			}
			us = append(us, u)
			vs = append(vs, w)
		}
	}
	adj, err := datasets.NetworkxAdjacency(n, us, vs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	labels := make([]int, n)
	minBin := len(AirportBins)
	for i := 0; i < n; i++ {
		labels[i] = digitize(feat.At(i, 4), AirportBins)
		minBin = min(minBin, labels[i])
	}
	classes := 0
	for i := range labels {
		labels[i] -= minBin
		classes = max(classes, labels[i]+1)
	}
	x := mat.DenseCopyOf(feat.Slice(0, max(n, 1), 0, 4))
	out := &datasets.Graph{Name: "airport", Source: "hgcn", Adj: adj, DenseFeatures: x, Labels: labels, Classes: classes}
	if n == 0 {
		return nil, fmt.Errorf("%s: graph has no nodes", path)
	}
	if err := out.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// digitize is numpy.digitize for increasing bins: the number of bin edges ≤ x.
func digitize(x float64, bins []float64) int {
	k := 0
	for _, b := range bins {
		if x >= b {
			k++
		}
	}
	return k
}

func floatList(v any) ([]float64, error) {
	var items []any
	switch l := v.(type) {
	case *types.List:
		items = *l
	case *types.Tuple:
		items = *l
	case *pyobj.NDArray:
		arr, err := l.Array()
		if err != nil {
			return nil, err
		}
		return arr.Floats, nil
	default:
		return nil, fmt.Errorf("a %T", v)
	}
	out := make([]float64, len(items))
	for i, it := range items {
		f, ok := pyobj.AsFloat(it)
		if !ok {
			return nil, fmt.Errorf("element %d is %T", i, it)
		}
		out[i] = f
	}
	return out, nil
}
