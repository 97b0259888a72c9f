package viz

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Neighbors returns, for every row of x, the indices of its k nearest other
// rows by Euclidean distance, nearest first (ties by smaller index). It is
// exact (O(n²·d)) and bit-identical for any number of workers (≤ 0: GOMAXPROCS).
func Neighbors(ctx context.Context, x *mat.Dense, k, workers int) ([][]int, error) {
	n, _ := x.Dims()
	if k < 1 || k >= n {
		return nil, fmt.Errorf("viz: %d nearest neighbours among %d points, want 1..%d", k, n, n-1)
	}
	if err := checkFiniteMatrix(x); err != nil {
		return nil, fmt.Errorf("viz: neighbours: %w", err)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([][]int, n)
	parallelRows(n, workers, func(lo, hi int) {
		d2 := make([]float64, n)
		idx := make([]int, n)
		for i := lo; i < hi; i++ {
			if ctx.Err() != nil {
				return
			}
			sqDistRow(x, i, d2)
			idx = idx[:0]
			for j := 0; j < n; j++ {
				if j != i {
					idx = append(idx, j)
				}
			}
			sort.Slice(idx, func(a, b int) bool {
				da, db := d2[idx[a]], d2[idx[b]]
				if da != db {
					return da < db
				}
				return idx[a] < idx[b]
			})
			out[i] = append([]int(nil), idx[:k]...)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// KNNAccuracy is the leave-one-out k-nearest-neighbour classification
// accuracy over the labelled points (label ≥ 0), using the neighbour lists of
// Neighbors (only their first k entries): the majority label among the
// labelled neighbours, ties going to the class whose member comes first in
// the list. Points without labelled neighbours count as errors. It returns
// NaN when no point is labelled.
func KNNAccuracy(nb [][]int, labels []int, k int) float64 {
	right, total := 0, 0
	votes := map[int]int{}
	for i, list := range nb {
		if labels[i] < 0 {
			continue
		}
		total++
		clear(votes)
		best, bestVotes := -1, 0
		for _, j := range list[:min(k, len(list))] {
			l := labels[j]
			if l < 0 {
				continue
			}
			votes[l]++
			if votes[l] > bestVotes {
				best, bestVotes = l, votes[l]
			}
		}
		if best == labels[i] {
			right++
		}
	}
	if total == 0 {
		return math.NaN()
	}
	return float64(right) / float64(total)
}

// NeighborPreservation is the mean over points of |N_k(high) ∩ N_k(low)|/k,
// the fraction of each point's k nearest neighbours in the original space
// that are also among its k nearest in the projection (1 = all kept).
func NeighborPreservation(high, low [][]int, k int) (float64, error) {
	if len(high) != len(low) {
		return 0, fmt.Errorf("viz: neighbour lists for %d and %d points", len(high), len(low))
	}
	if len(high) == 0 {
		return 0, fmt.Errorf("viz: no points")
	}
	sum := 0.0
	for i := range high {
		if len(high[i]) < k || len(low[i]) < k {
			return 0, fmt.Errorf("viz: point %d has %d and %d neighbours, want %d", i, len(high[i]), len(low[i]), k)
		}
		in := make(map[int]bool, k)
		for _, j := range high[i][:k] {
			in[j] = true
		}
		hit := 0
		for _, j := range low[i][:k] {
			if in[j] {
				hit++
			}
		}
		sum += float64(hit) / float64(k)
	}
	return sum / float64(len(high)), nil
}
