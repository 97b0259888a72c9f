package datasets

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/hylaflow/hylaflow/sparse"
)

// Hyperbolicity is a sampled estimate of Gromov's δ (four-point condition).
type Hyperbolicity struct {
	Delta     float64 // largest δ over the sampled quadruples
	Mean      float64 // mean δ over the sampled quadruples
	Diameter  int     // largest distance seen between sampled nodes
	Relative  float64 // 2δ / diameter (0 for trees, ≤ 1)
	Samples   int     // quadruples evaluated
	Component int     // size of the largest connected component (where nodes are sampled)
}

// EstimateHyperbolicity samples `landmarks` nodes of the largest connected
// component, computes their BFS distances, and evaluates δ(x,y,z,w) =
// (largest − second largest of d(x,y)+d(z,w), d(x,z)+d(y,w), d(x,w)+d(y,z))/2
// on `quads` random quadruples of them. Cost: landmarks breadth-first searches.
func EstimateHyperbolicity(ctx context.Context, adj *sparse.CSR, landmarks, quads int, seed uint64) (Hyperbolicity, error) {
	n := adj.Rows
	if n == 0 {
		return Hyperbolicity{}, fmt.Errorf("empty graph")
	}
	// Largest connected component.
	comp := make([]int32, n)
	for i := range comp {
		comp[i] = -1
	}
	best, bestSize := int32(-1), 0
	queue := make([]int32, 0, n)
	for s := 0; s < n; s++ {
		if comp[s] >= 0 {
			continue
		}
		id := int32(s)
		comp[s] = id
		queue = append(queue[:0], int32(s))
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for p := adj.Indptr[u]; p < adj.Indptr[u+1]; p++ {
				if v := adj.Indices[p]; comp[v] < 0 {
					comp[v] = id
					queue = append(queue, v)
				}
			}
		}
		if len(queue) > bestSize {
			best, bestSize = id, len(queue)
		}
	}
	var members []int32
	for i, c := range comp {
		if c == best {
			members = append(members, int32(i))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x64656c7461)) // "delta"
	landmarks = min(landmarks, len(members))
	if landmarks < 4 {
		return Hyperbolicity{Component: bestSize}, nil
	}
	picks := rng.Perm(len(members))[:landmarks]
	dist := make([][]int32, landmarks)
	for k, pi := range picks {
		if err := ctx.Err(); err != nil {
			return Hyperbolicity{}, err
		}
		d := make([]int32, n)
		for i := range d {
			d[i] = -1
		}
		src := members[pi]
		d[src] = 0
		queue = append(queue[:0], src)
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for p := adj.Indptr[u]; p < adj.Indptr[u+1]; p++ {
				if v := adj.Indices[p]; d[v] < 0 {
					d[v] = d[u] + 1
					queue = append(queue, v)
				}
			}
		}
		row := make([]int32, landmarks)
		for j, pj := range picks {
			row[j] = d[members[pj]]
		}
		dist[k] = row
	}
	h := Hyperbolicity{Component: bestSize, Samples: quads}
	for i := range dist {
		for j := range dist[i] {
			h.Diameter = max(h.Diameter, int(dist[i][j]))
		}
	}
	sum := 0.0
	for q := 0; q < quads; q++ {
		x, y, z, w := rng.IntN(landmarks), rng.IntN(landmarks), rng.IntN(landmarks), rng.IntN(landmarks)
		s1 := dist[x][y] + dist[z][w]
		s2 := dist[x][z] + dist[y][w]
		s3 := dist[x][w] + dist[y][z]
		// largest minus second largest
		a, b, c := s1, s2, s3
		if a < b {
			a, b = b, a
		}
		if b < c {
			b, c = c, b
		}
		if a < b {
			a, b = b, a
		}
		d := float64(a-b) / 2
		sum += d
		h.Delta = max(h.Delta, d)
	}
	if quads > 0 {
		h.Mean = sum / float64(quads)
	}
	if h.Diameter > 0 {
		h.Relative = 2 * h.Delta / float64(h.Diameter)
	}
	return h, nil
}
