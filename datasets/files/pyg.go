package files

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/datasets/npy"
	"gonum.org/v1/gonum/mat"
)

// pygKnown are the members a PyG-style archive may hold.
var pygKnown = []string{"edge_index", "edge_weight", "x", "y", "train_mask", "val_mask", "test_mask",
	"x_data", "x_indices", "x_indptr", "x_shape", "x_format"}

// loadPyG reads one .npz holding a PyTorch Geometric Data object's arrays:
// edge_index (2 × E integers), optional edge_weight (E), x dense (n × d)
// or as a scipy CSR's members x_data, x_indices, x_indptr, x_shape, y (n
// class indices, -1 unlabelled) and optional boolean train_mask, val_mask
// and test_mask.
func loadPyG(l *layout, info *Info) (*assembled, error) {
	name := l.npz
	a, err := npy.OpenArchive(l.path(name))
	if err != nil {
		return nil, relNPY(err, l)
	}
	defer a.Close()
	bad := func(member, format string, args ...any) error {
		return &Error{File: name, Member: member, Msg: fmt.Sprintf(format, args...)}
	}
	var ignored []string
	for _, m := range a.Names() {
		if !slices.Contains(pygKnown, m) {
			ignored = append(ignored, m)
		}
	}
	if len(ignored) > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("%s: members not read: %s", name, strings.Join(ignored, ", ")))
	}
	if !a.Has("edge_index") {
		return nil, bad("edge_index", "missing: want a 2 × E integer array (data.edge_index.numpy())")
	}
	ei, err := a.Array("edge_index")
	if err != nil {
		return nil, relNPY(err, l)
	}
	if len(ei.Shape) != 2 || ei.Shape[0] != 2 || (ei.Kind != 'i' && ei.Kind != 'u') {
		return nil, bad("edge_index", "kind %q shape %v: want a 2 × E integer array", ei.Kind, ei.Shape)
	}
	if ei.Shape[1] == 0 {
		return nil, bad("edge_index", "no edge (shape %v)", ei.Shape)
	}
	r := &assembled{}
	n := -1
	switch {
	case a.Has("x"):
		x, err := a.Array("x")
		if err != nil {
			return nil, relNPY(err, l)
		}
		if len(x.Shape) != 2 || x.Floats == nil {
			return nil, bad("x", "kind %q shape %v: want a 2-D numeric array (nodes × features)", x.Kind, x.Shape)
		}
		if err := checkFinite(x.Floats, x.Shape[1], name, "x"); err != nil {
			return nil, err
		}
		n = x.Shape[0]
		if x.Shape[0] > 0 && x.Shape[1] > 0 {
			r.dense = mat.NewDense(x.Shape[0], x.Shape[1], x.Floats)
		}
	case a.Has("x_data"):
		x, err := a.SparsePrefixed("x_")
		if err != nil {
			return nil, relNPY(err, l)
		}
		if err := checkFinite(x.Data, 0, name, "x_data"); err != nil {
			return nil, err
		}
		n = x.Rows
		r.sparseX = x
	}
	if a.Has("y") {
		y, err := a.Array("y")
		if err != nil {
			return nil, relNPY(err, l)
		}
		labels, classes, err := labelsOf(y, name, "y")
		if err != nil {
			return nil, err
		}
		if n >= 0 && len(labels) != n {
			return nil, bad("y", "%d labels for the %d rows of x", len(labels), n)
		}
		n = len(labels)
		r.labels, r.classes = labels, classes
	}
	E := ei.Shape[1]
	top := int64(-1)
	for _, v := range ei.Ints {
		if v < 0 {
			return nil, bad("edge_index", "negative node index %d", v)
		}
		top = max(top, v)
	}
	if n < 0 {
		n = int(top) + 1
	}
	if top >= int64(n) {
		col := slices.IndexFunc(ei.Ints, func(v int64) bool { return v == top }) % E
		return nil, bad("edge_index", "column %d names node %d, but x and y have %d rows (node indices must be < %d)", col, top, n, n)
	}
	if n > math.MaxInt32 {
		return nil, bad("edge_index", "%d nodes: at most %d", n, math.MaxInt32)
	}
	r.n = n
	r.src, r.dst = make([]int32, E), make([]int32, E)
	for k := range E {
		r.src[k], r.dst[k] = int32(ei.Ints[k]), int32(ei.Ints[E+k])
	}
	if a.Has("edge_weight") {
		w, err := a.Array("edge_weight")
		if err != nil {
			return nil, relNPY(err, l)
		}
		if len(w.Shape) != 1 || w.Shape[0] != E || w.Floats == nil {
			return nil, bad("edge_weight", "kind %q shape %v: want %d numbers (one per edge_index column)", w.Kind, w.Shape, E)
		}
		for k, v := range w.Floats {
			if !(v > 0) || math.IsInf(v, 0) {
				return nil, bad("edge_weight", "entry %d is %v: want a positive finite weight", k, v)
			}
		}
		r.weights = w.Floats
	}
	var masks [3][]int
	present := 0
	for p, m := range []string{"train_mask", "val_mask", "test_mask"} {
		if !a.Has(m) {
			continue
		}
		present++
		arr, err := a.Array(m)
		if err != nil {
			return nil, relNPY(err, l)
		}
		if len(arr.Shape) != 1 || arr.Shape[0] != n || arr.Ints == nil {
			return nil, bad(m, "kind %q shape %v: want %d booleans (one per node)", arr.Kind, arr.Shape, n)
		}
		for i, v := range arr.Ints {
			if v != 0 {
				masks[p] = append(masks[p], i)
			}
		}
	}
	switch present {
	case 0:
	case 3:
		where := [3]string{"train_mask", "val_mask", "test_mask"}
		if err := checkSplit(masks, r.labels, where, func(i int) string { return fmt.Sprint(i) }); err != nil {
			e := err.(*Error)
			return nil, &Error{File: name, Member: e.File, Msg: e.Msg}
		}
		for p, m := range masks {
			if len(m) == 0 {
				return nil, bad([]string{"train_mask", "val_mask", "test_mask"}[p], "selects no node")
			}
		}
		r.split = &masks
	default:
		return nil, bad("train_mask", "%d of the three masks present: give train_mask, val_mask and test_mask, or none (the split stage then draws one)", present)
	}
	return r, nil
}
