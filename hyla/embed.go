package hyla

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// EmbedOptions configure EmbedPoincare. Zero fields take the defaults in
// brackets (those of Nickel & Kiela's reference implementation where it has one).
type EmbedOptions struct {
	Epochs       int     // passes over the edges [100]
	LR           float64 // RSGD learning rate [0.3]
	Negatives    int     // negative samples per edge [10]
	BatchSize    int     // edges per RSGD step [10]
	BurnIn       int     // initial epochs at LR·BurnInFactor [10]; negative disables
	BurnInFactor float64 // [0.1]
	InitScale    float64 // initial coordinates uniform in [−InitScale, InitScale] [1e−3]
	Seed         uint64  // seeds initialisation, edge order and negatives
	// Progress, if set, is called after every epoch with the mean loss.
	Progress func(epoch int, loss float64)
}

func (o *EmbedOptions) defaults() {
	if o.Epochs == 0 {
		o.Epochs = 100
	}
	if o.LR == 0 {
		o.LR = 0.3
	}
	if o.Negatives == 0 {
		o.Negatives = 10
	}
	if o.BatchSize == 0 {
		o.BatchSize = 10
	}
	if o.BurnIn == 0 {
		o.BurnIn = 10
	}
	if o.BurnInFactor == 0 {
		o.BurnInFactor = 0.1
	}
	if o.InitScale == 0 {
		o.InitScale = 1e-3
	}
}

// embedExample is one positive edge (u, v) with its negative samples.
type embedExample struct {
	u, v int
	negs []int
}

// EmbedPoincare learns a Poincaré embedding (n×dim) of the graph adj from
// its connectivity alone, as in Nickel & Kiela (2017) and the two-step
// variant of the paper's appendix F. For every stored edge (u, v) of adj
// (both directions of an undirected graph) it minimises
//
//	L(u, v) = −log( e^{−d(u,v)} / Σ_{c ∈ {v} ∪ N(u)} e^{−d(u,c)} )
//
// with N(u) a set of uniformly drawn non-neighbours of u, by Riemannian SGD
// on mini-batches (RSGDStep), with a burn-in phase at a reduced rate. The
// run is sequential and seeded, so results are bit-identical for a seed.
// It returns the embedding and the mean loss of every epoch.
func EmbedPoincare(ctx context.Context, adj *sparse.CSR, dim int, opts EmbedOptions) (*mat.Dense, []float64, error) {
	opts.defaults()
	if adj == nil {
		return nil, nil, fmt.Errorf("hyla: embed: no adjacency matrix")
	}
	if err := adj.Validate(); err != nil {
		return nil, nil, fmt.Errorf("hyla: embed: adjacency: %w", err)
	}
	n := adj.Rows
	if adj.Cols != n {
		return nil, nil, fmt.Errorf("hyla: embed: adjacency is %d×%d, want square", adj.Rows, adj.Cols)
	}
	if dim < 1 {
		return nil, nil, fmt.Errorf("hyla: embed: dimension %d, want ≥ 1", dim)
	}
	if opts.Epochs < 0 || opts.LR < 0 || opts.Negatives < 0 || opts.BatchSize < 0 || opts.InitScale < 0 {
		return nil, nil, fmt.Errorf("hyla: embed: negative option in %+v", opts)
	}
	// Positive edges without self loops, in CSR order.
	var edges [][2]int
	for i := 0; i < n; i++ {
		for p := adj.Indptr[i]; p < adj.Indptr[i+1]; p++ {
			if j := int(adj.Indices[p]); j != i && adj.Data[p] != 0 {
				edges = append(edges, [2]int{i, j})
			}
		}
	}
	if len(edges) == 0 {
		return nil, nil, fmt.Errorf("hyla: embed: the graph has no edges")
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15))
	z := mat.NewDense(n, dim, nil)
	for i := range z.RawMatrix().Data {
		z.RawMatrix().Data[i] = opts.InitScale * (2*rng.Float64() - 1)
	}
	grad := mat.NewDense(n, dim, nil)
	touched := make([]bool, n)
	var touchedList []int
	order := make([]int, len(edges))
	for i := range order {
		order[i] = i
	}
	batch := make([]embedExample, 0, opts.BatchSize)
	negBuf := make([]int, opts.BatchSize*opts.Negatives)
	losses := make([]float64, 0, opts.Epochs)
	for epoch := 0; epoch < opts.Epochs; epoch++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		lr := opts.LR
		if epoch < opts.BurnIn {
			lr *= opts.BurnInFactor
		}
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		var total, chance float64
		for start := 0; start < len(order); start += opts.BatchSize {
			end := min(start+opts.BatchSize, len(order))
			batch = batch[:0]
			for k, e := range order[start:end] {
				u, v := edges[e][0], edges[e][1]
				negs := negBuf[k*opts.Negatives : k*opts.Negatives : (k+1)*opts.Negatives]
				negs = sampleNegatives(rng, adj, u, opts.Negatives, negs)
				batch = append(batch, embedExample{u: u, v: v, negs: negs})
			}
			total += embedLoss(z, batch, grad, touched, &touchedList)
			for _, ex := range batch {
				chance += math.Log(float64(1 + len(ex.negs))) // the loss when every candidate is as far
			}
			for _, i := range touchedList {
				rsgdRow(z.RawRowView(i), grad.RawRowView(i), lr)
				clear(grad.RawRowView(i))
				touched[i] = false
			}
			touchedList = touchedList[:0]
		}
		mean := total / float64(len(edges))
		if math.IsNaN(mean) || math.IsInf(mean, 0) {
			return nil, nil, &EmbedDivergedError{Epoch: epoch, Loss: mean}
		}
		losses = append(losses, mean)
		if opts.Progress != nil {
			opts.Progress(epoch+1, mean)
		}
		chance /= float64(len(edges))
		if epoch == opts.Epochs-1 && epoch-max(opts.BurnIn, 0) >= 1 && mean >= chance {
			return nil, nil, &EmbedDivergedError{Epoch: epoch, Loss: mean, Chance: chance}
		}
	}
	return z, losses, nil
}

// EmbedDivergedError reports a Poincaré embedding whose training diverged:
// its loss stopped being finite, or its last epoch's, after at least two
// epochs at the full rate, is no lower than chance's — the loss were
// every candidate as far as the neighbour, ln(1 + negatives): the
// embedding holds nothing of the graph (at a learning rate of 1e6 every
// point is thrown to the ball's edge; a learning run ends far below).
type EmbedDivergedError struct {
	Epoch  int
	Loss   float64
	Chance float64 // 0 when Loss is not finite
}

func (e *EmbedDivergedError) Error() string {
	if e.Chance == 0 {
		return fmt.Sprintf("hyla: embed: training diverged at epoch %d: the loss is %v", e.Epoch, e.Loss)
	}
	return fmt.Sprintf("hyla: embed: training diverged at epoch %d, the last: the loss %.4g is no lower than chance's %.4g "+
		"(every candidate as far as the neighbour)", e.Epoch, e.Loss, e.Chance)
}

// sampleNegatives draws up to k distinct-from-u non-neighbours of u
// uniformly (with replacement). Nodes adjacent to everything get fewer.
func sampleNegatives(rng *rand.Rand, adj *sparse.CSR, u, k int, dst []int) []int {
	n := adj.Rows
	row := adj.Indices[adj.Indptr[u]:adj.Indptr[u+1]]
	for tries := 0; len(dst) < k && tries < 20*k; tries++ {
		c := rng.IntN(n)
		if c == u {
			continue
		}
		if _, found := slices.BinarySearch(row, int32(c)); found {
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// embedLoss adds the Euclidean gradient of Σ L over the batch to grad (rows
// listed in touchedList) and returns the summed loss.
func embedLoss(z *mat.Dense, batch []embedExample, grad *mat.Dense, touched []bool, touchedList *[]int) float64 {
	var total float64
	var dists [64]float64
	for _, ex := range batch {
		cands := 1 + len(ex.negs)
		d := dists[:0]
		if cands > len(dists) {
			d = make([]float64, 0, cands)
		}
		zu := z.RawRowView(ex.u)
		for c := 0; c < cands; c++ {
			d = append(d, Dist(zu, z.RawRowView(embedCand(ex, c))))
		}
		// L = d_0 + log Σ_c e^{−d_c}; ∂L/∂d_c = [c = 0] − softmax(−d)_c.
		m := d[0]
		for _, x := range d {
			m = math.Min(m, x)
		}
		var s float64
		for _, x := range d {
			s += math.Exp(m - x)
		}
		total += d[0] - m + math.Log(s)
		for c := 0; c < cands; c++ {
			w := -math.Exp(m-d[c]) / s
			if c == 0 {
				w++
			}
			if w == 0 {
				continue
			}
			v := embedCand(ex, c)
			markTouched(ex.u, touched, touchedList)
			markTouched(v, touched, touchedList)
			distGradAdd(zu, z.RawRowView(v), w, grad.RawRowView(ex.u), grad.RawRowView(v))
		}
	}
	return total
}

func embedCand(ex embedExample, c int) int {
	if c == 0 {
		return ex.v
	}
	return ex.negs[c-1]
}

func markTouched(i int, touched []bool, list *[]int) {
	if !touched[i] {
		touched[i] = true
		*list = append(*list, i)
	}
}

// distGradAdd adds w·∂d(x,y)/∂x to gx and w·∂d(x,y)/∂y to gy, where
// d = 2·asinh(√s), s = ‖x−y‖²/(αβ), α = 1−‖x‖², β = 1−‖y‖²:
//
//	∂d/∂x = 2(x−y)/(‖x−y‖·√(αβ)·√(1+s)) + 2√s·x/(α·√(1+s)),
//
// which stays bounded as y → x (the first term's direction is then
// undefined and dropped at x = y exactly).
func distGradAdd(x, y []float64, w float64, gx, gy []float64) {
	a := oneMinusSq(x)
	b := oneMinusSq(y)
	delta := math.Sqrt(sqDist(x, y))
	rs := delta / math.Sqrt(a*b) // √s
	q := math.Sqrt(1 + rs*rs)
	var c1 float64
	if delta > 0 {
		c1 = 2 / (delta * math.Sqrt(a*b) * q)
	}
	cx := 2 * rs / (a * q)
	cy := 2 * rs / (b * q)
	for k := range x {
		diff := x[k] - y[k]
		gx[k] += w * (c1*diff + cx*x[k])
		gy[k] += w * (-c1*diff + cy*y[k])
	}
}
