package files

import (
	"cmp"
	"context"
	"slices"

	"github.com/hylaflow/hylaflow/internal/parallel"
	"github.com/hylaflow/hylaflow/sparse"
)

// adjStats count what building the adjacency did to the edge lines.
type adjStats struct {
	Lines      int // edge lines read
	LoopLines  int // lines u u
	SelfLoops  int // distinct nodes with a self loop (kept on the diagonal)
	Undirected int // distinct undirected pairs {u,v}, u ≠ v
	// Merged are the lines that named a pair already listed, in either
	// direction: a file listing each edge both ways merges half its lines.
	Merged int
}

// buildAdjacency builds the symmetric n×n adjacency of edges (u, v) over
// node indices: a line u v sets (u,v) and (v,u); a self loop u u is kept
// once on the diagonal, as networkx's adjacency_matrix gives it and the
// benchmark loaders keep it (datasets.NetworkxAdjacency); a pair listed
// several times, in either direction, is one entry whose weight is the
// largest listed (1 without a weight column). Row blocks are sorted and
// merged on up to workers goroutines; the result does not depend on
// their number. The index slices are released (set to nil) once the
// pattern is built, to bound the peak memory.
func buildAdjacency(ctx context.Context, n int, src, dst *[]int32, weights *[]float64, workers int) (*sparse.CSR, adjStats, error) {
	us, vs := *src, *dst
	var ws []float64
	if weights != nil {
		ws = *weights
	}
	st := adjStats{Lines: len(us)}
	indptr := make([]int, n+1)
	for k, u := range us {
		v := vs[k]
		indptr[u+1]++
		if u != v {
			indptr[v+1]++
		} else {
			st.LoopLines++
		}
	}
	for i := range n {
		indptr[i+1] += indptr[i]
	}
	nnz := indptr[n]
	indices := make([]int32, nnz)
	var vals []float64
	if ws != nil {
		vals = make([]float64, nnz)
	}
	next := slices.Clone(indptr[:n])
	for k, u := range us {
		v := vs[k]
		p := next[u]
		next[u]++
		indices[p] = v
		if vals != nil {
			vals[p] = ws[k]
		}
		if u != v {
			p = next[v]
			next[v]++
			indices[p] = u
			if vals != nil {
				vals[p] = ws[k]
			}
		}
	}
	next = nil
	*src, *dst = nil, nil
	if weights != nil {
		*weights = nil
	}
	us, vs, ws = nil, nil, nil
	// Sort and merge each row in place; kept[i] is row i's merged length.
	kept := make([]int, n)
	const block = 4096
	err := parallel.Balanced(ctx, n, block, max(1, workers), func(lo, hi int) {
		var pairs []weighted
		for i := lo; i < hi; i++ {
			a, b := indptr[i], indptr[i+1]
			row := indices[a:b]
			if vals == nil {
				slices.Sort(row)
				kept[i] = len(slices.Compact(row))
				continue
			}
			pairs = pairs[:0]
			for p, c := range row {
				pairs = append(pairs, weighted{c, vals[a+p]})
			}
			slices.SortFunc(pairs, func(x, y weighted) int { return cmp.Compare(x.col, y.col) })
			m := 0
			for _, e := range pairs {
				if m > 0 && pairs[m-1].col == e.col {
					pairs[m-1].w = max(pairs[m-1].w, e.w)
					continue
				}
				pairs[m] = e
				m++
			}
			for p, e := range pairs[:m] {
				row[p], vals[a+p] = e.col, e.w
			}
			kept[i] = m
		}
	})
	if err != nil {
		return nil, st, err
	}
	// Compact the rows (each moves left or stays).
	out := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	w := 0
	for i := range n {
		a := indptr[i]
		copy(indices[w:], indices[a:a+kept[i]])
		if vals != nil {
			copy(vals[w:], vals[a:a+kept[i]])
		}
		w += kept[i]
		out.Indptr[i+1] = w
	}
	indptr, kept = nil, nil
	out.Indices = slices.Clip(indices[:w])
	if vals != nil {
		out.Data = slices.Clip(vals[:w])
	} else {
		out.Data = make([]float64, w)
		for p := range out.Data {
			out.Data[p] = 1
		}
	}
	if w < nnz/2 { // many duplicates: give the slack back
		out.Indices = slices.Clone(out.Indices)
		if vals != nil {
			out.Data = slices.Clone(out.Data)
		}
	}
	for i := range n {
		if _, found := slices.BinarySearch(out.Indices[out.Indptr[i]:out.Indptr[i+1]], int32(i)); found {
			st.SelfLoops++
		}
	}
	st.Undirected = (w - st.SelfLoops) / 2
	st.Merged = st.Lines - st.Undirected - st.SelfLoops
	return out, st, nil
}

type weighted struct {
	col int32
	w   float64
}
