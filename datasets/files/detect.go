package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/datasets"
)

// The layouts a path can hold (the format parameter; "auto" detects).
const (
	FormatAuto     = "auto"
	FormatEdgeList = "edgelist" // edges.csv + features/labels/split tables
	FormatPyG      = "pyg"      // one .npz: edge_index, x, y, masks
	FormatOGB      = "ogb"      // an OGB node-property directory
)

// Formats are the values of the format parameter.
var Formats = []string{FormatAuto, FormatEdgeList, FormatPyG, FormatOGB}

// layout is what Detect found at a path: the layout and the files the
// loader reads, named relative to dir.
type layout struct {
	format string
	dir    string // the names below are relative to it
	// edgelist
	edges, features, labels, splitCSV string
	splitTxt                          [3]string // train, val, test
	// pyg
	npz string
	// ogb
	ogbEdges, ogbFeat, ogbLabel, ogbNumNodes string
	ogbSplit                                 [3]string
}

// files lists the files the loader reads, in the order it reads them.
func (l *layout) files() []datasets.NamedFile {
	var names []string
	switch l.format {
	case FormatEdgeList:
		names = append(names, l.edges, l.features, l.labels, l.splitCSV)
		names = append(names, l.splitTxt[:]...)
	case FormatPyG:
		names = []string{l.npz}
	case FormatOGB:
		names = append(names, l.ogbNumNodes, l.ogbEdges, l.ogbFeat, l.ogbLabel)
		names = append(names, l.ogbSplit[:]...)
	}
	var out []datasets.NamedFile
	for _, n := range names {
		if n != "" {
			out = append(out, datasets.NamedFile{Path: filepath.Join(l.dir, filepath.FromSlash(n)), Name: n})
		}
	}
	return out
}

// path returns the file name's path on disk.
func (l *layout) path(name string) string { return filepath.Join(l.dir, filepath.FromSlash(name)) }

// textExts are the extensions of text tables, each also gzipped.
var textExts = []string{".csv", ".tsv", ".txt"}

// detect finds the layout at path (a directory or one file); format
// names it, or "auto" (or "") detects it.
func detect(path, format string) (*layout, error) {
	if format == "" {
		format = FormatAuto
	}
	if !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	if path == "" {
		return nil, errors.New("no path: set path to the directory or file holding the graph")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		l := &layout{dir: filepath.Dir(path)}
		base := filepath.Base(path)
		isNPZ := strings.HasSuffix(strings.ToLower(base), ".npz")
		switch {
		case format == FormatOGB:
			return nil, fmt.Errorf("%s: format ogb needs the dataset's directory (holding raw/ and split/), not a file", path)
		case format == FormatPyG || (format == FormatAuto && isNPZ):
			l.format, l.npz = FormatPyG, base
		default:
			l.format, l.edges = FormatEdgeList, base
		}
		return l, nil
	}
	l := &layout{dir: path}
	has := func(name string) bool {
		st, err := os.Stat(filepath.Join(path, filepath.FromSlash(name)))
		return err == nil && !st.IsDir()
	}
	ogbEdges := firstOf(has, "raw/edge.csv.gz", "raw/edge.csv")
	edges, err := one(path, "edges", textExts, true)
	if err != nil {
		return nil, err
	}
	npzs, _ := filepath.Glob(filepath.Join(path, "*.npz"))
	if format == FormatAuto {
		switch {
		case ogbEdges != "":
			format = FormatOGB
		case edges != "":
			format = FormatEdgeList
		case len(npzs) == 1:
			format = FormatPyG
		case len(npzs) > 1:
			return nil, fmt.Errorf("%s: %d .npz files and no edges.csv: point path at the one to read", path, len(npzs))
		default:
			return nil, fmt.Errorf("%s holds no graph: want edges.csv (or .tsv/.txt, optionally .gz) with optional features, labels and split files, "+
				"one PyG-style .npz, or an OGB directory (raw/edge.csv.gz); see docs/your-graph.md", path)
		}
	}
	l.format = format
	switch format {
	case FormatPyG:
		if len(npzs) != 1 {
			return nil, fmt.Errorf("%s: format pyg wants one .npz file in the directory, found %d", path, len(npzs))
		}
		l.npz = filepath.Base(npzs[0])
	case FormatOGB:
		if ogbEdges == "" {
			return nil, fmt.Errorf("%s: format ogb wants raw/edge.csv.gz", path)
		}
		l.ogbEdges = ogbEdges
		l.ogbFeat = firstOf(has, "raw/node-feat.csv.gz", "raw/node-feat.csv")
		l.ogbLabel = firstOf(has, "raw/node-label.csv.gz", "raw/node-label.csv")
		l.ogbNumNodes = firstOf(has, "raw/num-node-list.csv.gz", "raw/num-node-list.csv")
		splits, _ := os.ReadDir(filepath.Join(path, "split"))
		var dirs []string
		for _, e := range splits {
			if e.IsDir() {
				dirs = append(dirs, e.Name())
			}
		}
		switch len(dirs) {
		case 0:
		case 1:
			for i, part := range []string{"train", "valid", "test"} {
				f := firstOf(has, "split/"+dirs[0]+"/"+part+".csv.gz", "split/"+dirs[0]+"/"+part+".csv")
				if f == "" {
					return nil, fmt.Errorf("%s: split/%s has no %s.csv.gz", path, dirs[0], part)
				}
				l.ogbSplit[i] = f
			}
		default:
			return nil, fmt.Errorf("%s: several splits under split/ (%s): keep the one to use", path, strings.Join(dirs, ", "))
		}
	case FormatEdgeList:
		if edges == "" {
			return nil, fmt.Errorf("%s: format edgelist wants edges.csv (or .tsv/.txt, optionally .gz)", path)
		}
		l.edges = edges
		if l.features, err = one(path, "features", append([]string{".npy", ".npz"}, textExts...), true); err != nil {
			return nil, err
		}
		if l.labels, err = one(path, "labels", append([]string{".npy"}, textExts...), true); err != nil {
			return nil, err
		}
		if l.splitCSV, err = one(path, "split", []string{".csv", ".tsv", ".txt"}, true); err != nil {
			return nil, err
		}
		found := 0
		for i, part := range []string{"train", "val", "test"} {
			if l.splitTxt[i], err = one(path, part, textExts, true); err != nil {
				return nil, err
			}
			if l.splitTxt[i] != "" {
				found++
			}
		}
		switch {
		case found > 0 && l.splitCSV != "":
			return nil, fmt.Errorf("%s: both %s and train/val/test files: keep one split", path, l.splitCSV)
		case found > 0 && found < 3:
			return nil, fmt.Errorf("%s: a split needs train, val and test files, found %d of them "+
				"(validation chooses the hyper-parameters; without a split file the split stage draws one)", path, found)
		}
	}
	return l, nil
}

// one returns the single file STEM.EXT (or STEM.EXT.gz) in dir, "" if none;
// two candidates are an error.
func one(dir, stem string, exts []string, gz bool) (string, error) {
	var found []string
	for _, e := range exts {
		cands := []string{stem + e}
		if gz && e != ".npy" && e != ".npz" {
			cands = append(cands, stem+e+".gz")
		}
		for _, c := range cands {
			st, err := os.Stat(filepath.Join(dir, c))
			switch {
			case err == nil && !st.IsDir():
				found = append(found, c)
			case err != nil && !errors.Is(err, fs.ErrNotExist):
				return "", err
			}
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s: both %s: keep one", dir, strings.Join(found, " and "))
}

func firstOf(has func(string) bool, names ...string) string {
	for _, n := range names {
		if has(n) {
			return n
		}
	}
	return ""
}
