package files

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/hylaflow/hylaflow/datasets/npy"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// loadEdgeList reads the edge list layout: edges, then the node set from
// the first of features.npy/.npz (row numbers), labels.npy (row numbers),
// features.csv (its ids), labels.csv (its ids) or the edges' own ids;
// then features, labels and the split over that node set.
func loadEdgeList(ctx context.Context, l *layout, info *Info, workers int) (*assembled, error) {
	el, err := readEdges(ctx, l.path(l.edges), l.edges, workers)
	if err != nil {
		return nil, err
	}
	r := &assembled{weights: el.weights}
	var ns *nodeSet
	isText := func(name string) bool {
		return name != "" && !strings.HasSuffix(name, ".npy") && !strings.HasSuffix(name, ".npz")
	}
	// Row-indexed arrays fix the node count.
	switch {
	case strings.HasSuffix(l.features, ".npy"):
		a, err := npy.ReadFile(l.path(l.features))
		if err != nil {
			return nil, relNPY(err, l)
		}
		if len(a.Shape) != 2 || a.Floats == nil {
			return nil, &Error{File: l.features, Msg: fmt.Sprintf("array of kind %q shape %v, want a 2-D numeric array (nodes × features)", a.Kind, a.Shape)}
		}
		if err := checkFinite(a.Floats, a.Shape[1], l.features, ""); err != nil {
			return nil, err
		}
		if a.Shape[0] > 0 && a.Shape[1] > 0 {
			r.dense = mat.NewDense(a.Shape[0], a.Shape[1], a.Floats)
		}
		ns = &nodeSet{n: a.Shape[0], rows: true, rowsFile: l.features}
	case strings.HasSuffix(l.features, ".npz"):
		x, err := npy.ReadSparseFile(l.path(l.features))
		if err != nil {
			return nil, relNPY(err, l)
		}
		if err := checkFinite(x.Data, 0, l.features, "data.npy"); err != nil {
			return nil, err
		}
		r.sparseX = x
		ns = &nodeSet{n: x.Rows, rows: true, rowsFile: l.features}
	}
	if strings.HasSuffix(l.labels, ".npy") {
		labels, classes, err := readLabelsNPY(l, l.labels, "")
		if err != nil {
			return nil, err
		}
		if ns != nil && len(labels) != ns.n {
			return nil, &Error{File: l.labels, Msg: fmt.Sprintf("%d labels for the %d rows of %s: a label file must have one entry per node", len(labels), ns.n, ns.rowsFile)}
		}
		if ns == nil {
			ns = &nodeSet{n: len(labels), rows: true, rowsFile: l.labels}
		}
		r.labels, r.classes = labels, classes
	}
	if isText(l.features) {
		x, ids, lines, err := readFeaturesCSV(l, l.features)
		if err != nil {
			return nil, err
		}
		if ns == nil {
			ns = namedNodes(append([]string(nil), ids...), l.features)
		}
		if len(ids) != ns.n {
			return nil, &Error{File: l.features, Msg: fmt.Sprintf("%d rows for %d nodes of %s", len(ids), ns.n, ns.from+ns.rowsFile)}
		}
		_, c := x.Dims()
		dense := sparse.NewDense(ns.n, c)
		seen := make([]bool, ns.n)
		for k, id := range ids {
			i := ns.lookup(id)
			if i < 0 {
				return nil, errAt(l.features, lines[k], "node %q is not %s", clip(id), ns.expected())
			}
			if seen[i] {
				return nil, errAt(l.features, lines[k], "node %q has a second row", clip(id))
			}
			seen[i] = true
			dense.SetRow(i, x.RawRowView(k))
		}
		r.dense = dense
	}
	if isText(l.labels) {
		rows, err := readTable(l.path(l.labels), l.labels)
		if err != nil {
			return nil, err
		}
		if labelHeader(rows) {
			rows = rows[1:]
		}
		if len(rows) == 0 {
			return nil, &Error{File: l.labels, Msg: "empty file: a header and no label"}
		}
		if ns == nil {
			ids := make([]string, len(rows))
			for k, rw := range rows {
				if len(rw.fields) != 2 {
					return nil, errAt(l.labels, rw.line, "%s, want 2 (id, label)", columns(len(rw.fields)))
				}
				ids[k] = rw.fields[0]
			}
			ns = namedNodes(ids, l.labels)
		}
		vals := make([]string, ns.n)
		have := make([]bool, ns.n)
		for _, rw := range rows {
			if len(rw.fields) != 2 {
				return nil, errAt(l.labels, rw.line, "%s, want 2 (id, label)", columns(len(rw.fields)))
			}
			i := ns.lookup(rw.fields[0])
			switch {
			case i < 0:
				return nil, errAt(l.labels, rw.line, "node %q is not %s: the label file must name the same nodes", clip(rw.fields[0]), ns.expected())
			case have[i]:
				return nil, errAt(l.labels, rw.line, "node %q has a second label", clip(rw.fields[0]))
			}
			have[i], vals[i] = true, rw.fields[1]
		}
		for i, ok := range have {
			if !ok {
				return nil, &Error{File: l.labels, Msg: fmt.Sprintf("no label row for node %s of %s (%d of %d nodes lack one): the label file must name the same nodes; give an empty label or -1 to leave a node unlabelled",
					ns.name(i), ns.from+ns.rowsFile, countFalse(have), ns.n)}
			}
		}
		labels, classes, names, err := labelSet(vals)
		if err != nil {
			return nil, &Error{File: l.labels, Msg: err.Error()}
		}
		r.labels, r.classes = labels, classes
		info.ClassNames = names
	}
	if ns == nil {
		ns = nodesOfEdges(el, l.edges)
	} else if err := mapEdges(l, l.edges, el, ns); err != nil {
		return nil, err
	}
	r.n, r.src, r.dst = ns.n, el.src, el.dst
	el.src, el.dst = nil, nil
	if !ns.rows {
		info.NodeNames = ns.names
	}
	if l.splitCSV != "" || l.splitTxt[0] != "" {
		split, err := readSplit(l, ns, r.labels)
		if err != nil {
			return nil, err
		}
		r.split = split
	}
	return r, nil
}

func countFalse(b []bool) int {
	c := 0
	for _, v := range b {
		if !v {
			c++
		}
	}
	return c
}

// name is node i's id in messages.
func (ns *nodeSet) name(i int) string {
	if ns.rows || ns.names == nil {
		return fmt.Sprint(i)
	}
	return fmt.Sprintf("%q", clip(ns.names[i]))
}

// labelHeader: a labels table's first row is a header when its fields
// are column names, or its id is not an integer while the next row's is.
func labelHeader(rows []row) bool {
	if len(rows) == 0 || len(rows[0].fields) != 2 {
		return false
	}
	if isHeaderWord(rows[0].fields[0]) && isHeaderWord(rows[0].fields[1]) {
		return true
	}
	return idHeader(rows)
}

// readFeaturesCSV reads "id, x1, …, xd" rows: a header when the first
// row's values are not numbers; every row as many columns as the first.
func readFeaturesCSV(l *layout, name string) (x *mat.Dense, ids []string, lines []int, err error) {
	var data []float64
	cols := -1
	first := true
	err = scanRows(l.path(name), name, func(line int, f [][]byte) error {
		if first {
			first = false
			header := len(f) > 1
			for _, v := range f[1:] {
				header = header && !isNumber(string(v))
			}
			if header || (len(f) > 1 && isHeaderWord(string(f[0])) && !isNumber(string(f[1]))) {
				return nil
			}
		}
		if len(f) < 2 {
			return errAt(name, line, "%d column, want an id and at least one feature", len(f))
		}
		if cols < 0 {
			cols = len(f) - 1
		} else if len(f)-1 != cols {
			return errAt(name, line, "%s, want %d (an id and %d features, like the first row)", columns(len(f)), cols+1, cols)
		}
		for j, v := range f[1:] {
			x, msg := parseFloat(string(v))
			if msg != "" {
				return errAt(name, line, "column %d: %s: features must be finite numbers", j+2, msg)
			}
			data = append(data, x)
		}
		ids = append(ids, string(f[0]))
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	if len(ids) == 0 {
		return nil, nil, nil, &Error{File: name, Msg: "empty file: a header and no row"}
	}
	return mat.NewDense(len(ids), cols, data), ids, lines, nil
}

// readLabelsNPY reads a 1-D integer array of class indices (-1:
// unlabelled); member names an npz member ("" for a .npy file).
func readLabelsNPY(l *layout, name, member string) ([]int, int, error) {
	a, err := npy.ReadFile(l.path(name))
	if err != nil {
		return nil, 0, relNPY(err, l)
	}
	return labelsOf(a, name, member)
}

// labelsOf checks a label array: 1-D (or n×1), integral values ≥ -1.
func labelsOf(a *npy.Array, name, member string) ([]int, int, error) {
	shape := a.Shape
	if len(shape) == 2 && shape[1] == 1 {
		shape = shape[:1]
	}
	if len(shape) != 1 || (a.Floats == nil && a.Len() > 0) {
		return nil, 0, &Error{File: name, Member: member, Msg: fmt.Sprintf("array of kind %q shape %v, want a 1-D integer array of class indices (-1: unlabelled)", a.Kind, a.Shape)}
	}
	labels := make([]int, len(a.Floats))
	classes := 0
	for i, v := range a.Floats {
		if math.IsNaN(v) {
			labels[i] = -1 // OGB writes nan for unlabelled nodes
			continue
		}
		if v != math.Trunc(v) || v < -1 || v >= 1<<20 {
			return nil, 0, &Error{File: name, Member: member, Msg: fmt.Sprintf("entry %d is %v: want a class index 0..%d or -1 (unlabelled)", i, v, 1<<20-1)}
		}
		labels[i] = int(v)
		classes = max(classes, int(v)+1)
	}
	return labels, classes, nil
}

// relNPY names an npy error's file relative to the dataset's path.
func relNPY(err error, l *layout) error {
	if e, ok := err.(*npy.Error); ok {
		f := e.File
		if rel, ok := strings.CutPrefix(f, l.dir+"/"); ok {
			f = rel
		}
		msg := e.Msg
		if e.Offset > 0 {
			msg = fmt.Sprintf("byte %d: %s", e.Offset, e.Msg)
		}
		if e.Err != nil {
			msg += ": " + e.Err.Error()
		}
		return &Error{File: f, Member: strings.TrimSuffix(e.Member, ".npy"), Msg: msg}
	}
	return err
}

// readSplit reads split.csv (id, train|val|test) or train/val/test files
// (one id per line).
func readSplit(l *layout, ns *nodeSet, labels []int) (*[3][]int, error) {
	var split [3][]int
	where := l.splitTxt
	lineOfNode := map[int]string{}
	add := func(part int, file string, line int, id string) error {
		i := ns.lookup(id)
		if i < 0 {
			return errAt(file, line, "node %q is not %s", clip(id), ns.expected())
		}
		if prev, dup := lineOfNode[i]; dup {
			return errAt(file, line, "node %q is already in %s: the split's parts must not overlap", clip(id), prev)
		}
		lineOfNode[i] = fmt.Sprintf("%s:%d", file, line)
		if labels != nil && labels[i] < 0 {
			return errAt(file, line, "node %q has no label: a split names labelled nodes only", clip(id))
		}
		split[part] = append(split[part], i)
		return nil
	}
	if l.splitCSV != "" {
		where = [3]string{l.splitCSV, l.splitCSV, l.splitCSV}
		rows, err := readTable(l.path(l.splitCSV), l.splitCSV)
		if err != nil {
			return nil, err
		}
		for k, rw := range rows {
			if len(rw.fields) != 2 {
				return nil, errAt(l.splitCSV, rw.line, "%s, want 2 (id, train|val|test)", columns(len(rw.fields)))
			}
			part := -1
			switch strings.ToLower(rw.fields[1]) {
			case "train", "training":
				part = 0
			case "val", "valid", "validation", "dev":
				part = 1
			case "test":
				part = 2
			}
			if part < 0 {
				if k == 0 && isHeaderWord(rw.fields[0]) {
					continue
				}
				return nil, errAt(l.splitCSV, rw.line, "part %q: want train, val or test", clip(rw.fields[1]))
			}
			if err := add(part, l.splitCSV, rw.line, rw.fields[0]); err != nil {
				return nil, err
			}
		}
	} else {
		for p, name := range l.splitTxt {
			rows, err := readTable(l.path(name), name)
			if err != nil {
				return nil, err
			}
			for _, rw := range rows {
				if len(rw.fields) != 1 {
					return nil, errAt(name, rw.line, "%s, want one node id per line", columns(len(rw.fields)))
				}
				if err := add(p, name, rw.line, rw.fields[0]); err != nil {
					return nil, err
				}
			}
		}
	}
	for p, part := range split {
		if len(part) == 0 && p != 1 {
			return nil, &Error{File: where[p], Msg: "no node in the " + [3]string{"training", "validation", "test"}[p] + " set"}
		}
	}
	if len(split[1]) == 0 {
		return nil, &Error{File: where[1], Msg: "no validation node: hyper-parameters are chosen on the validation set, never on the test set"}
	}
	return &split, nil
}
