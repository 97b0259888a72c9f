package files

import (
	"context"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// loadOGB reads an OGB node-property dataset's directory as OGB's
// read_csv_graph_raw does: raw/edge.csv.gz (src,dst over row numbers, no
// header), optional raw/num-node-list.csv.gz, raw/node-feat.csv.gz (one row
// of floats per node), raw/node-label.csv.gz (one class per node; nan for
// unlabelled) and split/NAME/{train,valid,test}.csv.gz (row numbers).
func loadOGB(ctx context.Context, l *layout, info *Info, workers int) (*assembled, error) {
	el, err := readEdges(ctx, l.path(l.ogbEdges), l.ogbEdges, workers)
	if err != nil {
		return nil, err
	}
	if !el.intIDs {
		return nil, errAt(l.ogbEdges, lineOf(l.path(l.ogbEdges), edgeFormat{delim: ','}, el.names[0]), "node %q: OGB edges are row numbers", clip(el.names[0]))
	}
	r := &assembled{weights: el.weights}
	n := -1
	if l.ogbNumNodes != "" {
		rows, err := readTable(l.path(l.ogbNumNodes), l.ogbNumNodes)
		if err != nil {
			return nil, err
		}
		v, ok := canonicalInt([]byte(rows[0].fields[0]))
		if len(rows) != 1 || len(rows[0].fields) != 1 || !ok {
			return nil, errAt(l.ogbNumNodes, rows[0].line, "want one line holding the node count (one graph)")
		}
		n = int(v)
	}
	if l.ogbFeat != "" {
		var data []float64
		rowsRead, cols := 0, -1
		err := scanRows(l.path(l.ogbFeat), l.ogbFeat, func(line int, f [][]byte) error {
			if cols < 0 {
				cols = len(f)
			} else if len(f) != cols {
				return errAt(l.ogbFeat, line, "%s, want %d like the first row", columns(len(f)), cols)
			}
			for j, b := range f {
				x, msg := parseFloat(string(b))
				if msg != "" {
					return errAt(l.ogbFeat, line, "column %d: %s: features must be finite numbers", j+1, msg)
				}
				data = append(data, x)
			}
			rowsRead++
			return nil
		})
		if err != nil {
			return nil, err
		}
		if n >= 0 && rowsRead != n {
			return nil, &Error{File: l.ogbFeat, Msg: fmt.Sprintf("%d rows for the %d nodes of %s", rowsRead, n, l.ogbNumNodes)}
		}
		n = rowsRead
		r.dense = mat.NewDense(rowsRead, cols, data)
	}
	if l.ogbLabel != "" {
		var vals []string
		var lines []int
		err := scanRows(l.path(l.ogbLabel), l.ogbLabel, func(line int, f [][]byte) error {
			if len(f) != 1 {
				return errAt(l.ogbLabel, line, "%s, want one class per line", columns(len(f)))
			}
			s := string(f[0])
			if strings.EqualFold(s, "nan") {
				s = ""
			}
			if s != "" && s != "-1" {
				if _, ok := canonicalInt([]byte(strings.TrimSuffix(s, ".0"))); !ok {
					return errAt(l.ogbLabel, line, "%q: want a class index (or nan for unlabelled)", clip(s))
				}
				s = strings.TrimSuffix(s, ".0")
			}
			vals = append(vals, s)
			lines = append(lines, line)
			return nil
		})
		if err != nil {
			return nil, err
		}
		if n >= 0 && len(vals) != n {
			return nil, &Error{File: l.ogbLabel, Msg: fmt.Sprintf("%d labels for %d nodes: the label file must have one line per node", len(vals), n)}
		}
		n = len(vals)
		labels, classes, _, err := labelSet(vals)
		if err != nil {
			return nil, &Error{File: l.ogbLabel, Msg: err.Error()}
		}
		r.labels, r.classes = labels, classes
	}
	if n < 0 {
		for k := range el.src {
			n = max(n, int(el.src[k])+1, int(el.dst[k])+1)
		}
	}
	ns := &nodeSet{n: n, rows: true, rowsFile: "the node tables"}
	if err := mapEdges(l, l.ogbEdges, el, ns); err != nil {
		return nil, err
	}
	r.n, r.src, r.dst = n, el.src, el.dst
	if l.ogbSplit[0] != "" {
		var split [3][]int
		seen := map[int]string{}
		for p, name := range l.ogbSplit {
			rows, err := readTable(l.path(name), name)
			if err != nil {
				return nil, err
			}
			for _, rw := range rows {
				if len(rw.fields) != 1 {
					return nil, errAt(name, rw.line, "%s, want one node index per line", columns(len(rw.fields)))
				}
				i := ns.lookup(rw.fields[0])
				switch {
				case i < 0:
					return nil, errAt(name, rw.line, "node %q is not %s", clip(rw.fields[0]), ns.expected())
				case seen[i] != "":
					return nil, errAt(name, rw.line, "node %d is already in %s: the split's parts must not overlap", i, seen[i])
				case r.labels != nil && r.labels[i] < 0:
					return nil, errAt(name, rw.line, "node %d has no label: a split names labelled nodes only", i)
				}
				seen[i] = fmt.Sprintf("%s:%d", name, rw.line)
				split[p] = append(split[p], i)
			}
		}
		r.split = &split
	}
	return r, nil
}
