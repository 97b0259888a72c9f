// Package synthetic generates seeded graphs: a disease-propagation tree in
// the spirit of HGCN's Disease (the built-in dataset of the quickstart) and a
// Reddit-scale degree-corrected stochastic block model for scale benchmarks.
// Outputs depend only on the options (seed included), never on the number of
// workers.
package synthetic

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"

	iparallel "github.com/hylaflow/hylaflow/internal/parallel"

	"github.com/hylaflow/hylaflow/datasets"
	"github.com/hylaflow/hylaflow/sparse"
	"gonum.org/v1/gonum/mat"
)

// DiseaseVersion identifies the disease generator's output: it changes
// whenever GenerateDisease draws a different graph for the same options, so
// caches keyed on the options can tell old graphs from new ones.
const DiseaseVersion = "2"

// DiseaseOptions configure GenerateDisease.
type DiseaseOptions struct {
	Nodes    int     // number of nodes (≥ 2); default 1044 like HGCN's disease_nc
	Features int     // feature columns (≥ 1); default 16
	Seed     uint64  // random seed
	Beta     float64 // infection probability scale, in (0,1]; default 1
	Sources  int     // initially infected nodes, the root included; default max(1, Nodes/25)
	Noise    float64 // std of the noise added to the susceptibility signal; default 0.1
	// Heredity is the correlation ρ of a node's latent susceptibility with
	// its parent's (families share susceptibility), in [0,1); default 0.9,
	// negative = independent susceptibilities.
	Heredity float64
	// Susceptible is the fraction of the population whose susceptibility
	// lies above the infection threshold, in (0,1]; default 0.4.
	Susceptible float64
	// Sharpness is the width of the logistic step of the infection
	// probability around the threshold (> 0); default 0.05.
	Sharpness float64
}

func (o *DiseaseOptions) defaults() error {
	if o.Nodes == 0 {
		o.Nodes = 1044
	}
	if o.Features == 0 {
		o.Features = 16
	}
	if o.Beta == 0 {
		o.Beta = 1
	}
	if o.Sources == 0 {
		o.Sources = max(1, o.Nodes/25)
	}
	if o.Noise == 0 {
		o.Noise = 0.1
	}
	switch {
	case o.Heredity == 0:
		o.Heredity = 0.9
	case o.Heredity < 0:
		o.Heredity = 0
	}
	if o.Susceptible == 0 {
		o.Susceptible = 0.4
	}
	if o.Sharpness == 0 {
		o.Sharpness = 0.05
	}
	switch {
	case o.Nodes < 2 || o.Nodes > 1<<28:
		return fmt.Errorf("synthetic disease: nodes = %d, want 2..%d", o.Nodes, 1<<28)
	case o.Features < 1 || o.Features > 1<<16:
		return fmt.Errorf("synthetic disease: features = %d, want 1..65536", o.Features)
	case !(o.Beta > 0 && o.Beta <= 1):
		return fmt.Errorf("synthetic disease: beta = %v, want (0,1]", o.Beta)
	case o.Sources < 1 || o.Sources > o.Nodes:
		return fmt.Errorf("synthetic disease: sources = %d, want 1..nodes", o.Sources)
	case !(o.Noise >= 0):
		return fmt.Errorf("synthetic disease: noise = %v, want ≥ 0", o.Noise)
	case !(o.Heredity < 1):
		return fmt.Errorf("synthetic disease: heredity = %v, want [0,1)", o.Heredity)
	case !(o.Susceptible > 0 && o.Susceptible <= 1):
		return fmt.Errorf("synthetic disease: susceptible = %v, want (0,1]", o.Susceptible)
	case !(o.Sharpness > 0):
		return fmt.Errorf("synthetic disease: sharpness = %v, want > 0", o.Sharpness)
	}
	return nil
}

// GenerateDisease builds a random tree (node i > 0 attaches to a uniformly
// chosen earlier node, so depth grows like log n) and runs an SIR epidemic on
// it, in the spirit of HGCN's Disease (SIR on a tree, node features = the
// susceptibility, label 1 = ever infected).
//
// Susceptibility is inherited: a latent Gaussian z (z_root ~ N(0,1),
// z_v = ρ·z_parent + √(1−ρ²)·N(0,1), ρ = Heredity) gives s_v = Φ(z_v),
// uniform on (0,1) at every node but alike within a family, so the tree
// carries it. The root and Sources − 1 random nodes start infected; each infected
// node infects each susceptible neighbour v with probability
// Beta·σ((s_v − s*)/Sharpness), s* the (1 − Susceptible) quantile of s, then
// recovers. The epidemic thus runs through the susceptible parts of the tree
// that hold a source: which nodes are infected follows from the
// susceptibilities around them, the signal a graph model can pick up after
// propagating the features, and not from coin flips that no feature records
// (version 1 of this generator drew an independent s per node and infected
// with probability Beta·s: its labels were close to unpredictable, and every
// model of the quickstart predicted the majority class).
//
// Feature column j is s + Noise·N(0,1) for the first half of the columns and
// pure N(0,1) noise for the rest. The split is left to the caller
// (datasets.HGCNSplit with datasets' Disease proportions).
func GenerateDisease(opts DiseaseOptions) (*datasets.Graph, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	n := opts.Nodes
	rng := rand.New(rand.NewPCG(opts.Seed, 0x64697365617365)) // "disease"
	parent := make([]int, n)
	parent[0] = -1
	us := make([]int, 0, n-1)
	vs := make([]int, 0, n-1)
	for i := 1; i < n; i++ {
		parent[i] = rng.IntN(i)
		us = append(us, parent[i])
		vs = append(vs, i)
	}
	adj, err := datasets.SymmetricFromEdges(n, us, vs)
	if err != nil {
		return nil, err
	}
	// Parents precede their children, so one pass in index order inherits.
	latent := make([]float64, n)
	sus := make([]float64, n)
	rho, rest := opts.Heredity, math.Sqrt(1-opts.Heredity*opts.Heredity)
	for i := range latent {
		latent[i] = rng.NormFloat64()
		if i > 0 {
			latent[i] = rho*latent[parent[i]] + rest*latent[i]
		}
		sus[i] = 0.5 * math.Erfc(-latent[i]/math.Sqrt2)
	}
	sorted := slices.Clone(sus)
	slices.Sort(sorted)
	threshold := sorted[min(n-1, int(float64(n)*(1-opts.Susceptible)))]
	// SIR: state 0 susceptible, 1 infected (this round), 2 recovered.
	state := make([]uint8, n)
	frontier := []int{0}
	state[0] = 1
	for len(frontier) < opts.Sources {
		v := rng.IntN(n)
		if state[v] == 0 {
			state[v] = 1
			frontier = append(frontier, v)
		}
	}
	for len(frontier) > 0 {
		var next []int
		for _, u := range frontier {
			for p := adj.Indptr[u]; p < adj.Indptr[u+1]; p++ {
				v := int(adj.Indices[p])
				if state[v] != 0 {
					continue
				}
				pv := opts.Beta / (1 + math.Exp(-(sus[v]-threshold)/opts.Sharpness))
				if rng.Float64() < pv {
					state[v] = 1
					next = append(next, v)
				}
			}
			state[u] = 2
		}
		frontier = next
	}
	labels := make([]int, n)
	for i, s := range state {
		if s != 0 {
			labels[i] = 1
		}
	}
	x := mat.NewDense(n, opts.Features, nil)
	signal := (opts.Features + 1) / 2
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j := range row {
			if j < signal {
				row[j] = sus[i] + opts.Noise*rng.NormFloat64()
			} else {
				row[j] = rng.NormFloat64()
			}
		}
	}
	g := &datasets.Graph{Name: "synthetic_disease", Source: "synthetic", Adj: adj, DenseFeatures: x, Labels: labels, Classes: 2}
	return g, g.Validate()
}

// SBMOptions configure GenerateSBM. Zero values take Reddit's sizes.
type SBMOptions struct {
	Nodes    int     // default 232,965
	Edges    int     // distinct undirected edges to aim for; default 11,606,919
	Features int     // default 602
	Classes  int     // default 41
	Seed     uint64  // random seed
	PIn      float64 // fraction of edges inside a class; default 0.8
	Gamma    float64 // power-law exponent of the degree propensities θ; default 2.5
	Signal   float64 // scale of the class means in the features; default 0.5
	Workers  int     // goroutines (≤ 0: GOMAXPROCS); the output does not depend on it
	// Split proportions (of all nodes) for train/val; the rest is test.
	// Defaults: 0.66 / 0.10 (Reddit's split is about 66/10/24).
	PTrain, PVal float64
}

func (o *SBMOptions) defaults() error {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.Nodes, 232965)
	def(&o.Edges, 11606919)
	def(&o.Features, 602)
	def(&o.Classes, 41)
	deff := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	deff(&o.PIn, 0.8)
	deff(&o.Gamma, 2.5)
	deff(&o.Signal, 0.5)
	deff(&o.PTrain, 0.66)
	deff(&o.PVal, 0.10)
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case o.Nodes < 2 || o.Nodes > 1<<28:
		return fmt.Errorf("synthetic sbm: nodes = %d, want 2..%d", o.Nodes, 1<<28)
	case o.Classes < 1 || o.Classes > o.Nodes:
		return fmt.Errorf("synthetic sbm: classes = %d, want 1..nodes", o.Classes)
	case o.Features < 1 || o.Features > 1<<16:
		return fmt.Errorf("synthetic sbm: features = %d, want 1..65536", o.Features)
	case o.Edges < 0 || float64(o.Edges) > 0.25*float64(o.Nodes)*float64(o.Nodes-1):
		return fmt.Errorf("synthetic sbm: edges = %d too many for %d nodes", o.Edges, o.Nodes)
	case o.PIn < 0 || o.PIn > 1:
		return fmt.Errorf("synthetic sbm: p_in = %v, want [0,1]", o.PIn)
	case o.Gamma <= 1:
		return fmt.Errorf("synthetic sbm: gamma = %v, want > 1", o.Gamma)
	case o.PTrain <= 0 || o.PVal < 0 || o.PTrain+o.PVal > 1:
		return fmt.Errorf("synthetic sbm: split proportions train=%v val=%v", o.PTrain, o.PVal)
	}
	return nil
}

// sampler draws nodes with probability proportional to θ among a node list
// in O(1) with Walker's alias method (Vose's construction). Each slot holds
// its threshold, its node and its alias's node together, so a draw reads
// one cache line.
type sampler struct {
	slots []aliasSlot
}

type aliasSlot struct {
	prob        float64
	node, alias int32 // the slot's node and its alias's node
}

func (s *sampler) draw(rng *rand.Rand) int32 {
	sl := &s.slots[rng.IntN(len(s.slots))]
	if rng.Float64() < sl.prob {
		return sl.node
	}
	return sl.alias
}

func newSampler(nodes []int32, theta []float64) *sampler {
	m := len(nodes)
	prob := make([]float64, m)
	alias := make([]int32, m)
	total := 0.0
	for _, v := range nodes {
		total += theta[v]
	}
	scaled := make([]float64, m)
	var small, large []int32
	for i, v := range nodes {
		scaled[i] = theta[v] * float64(m) / total
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l := small[len(small)-1]
		small = small[:len(small)-1]
		g := large[len(large)-1]
		prob[l] = scaled[l]
		alias[l] = g
		scaled[g] = scaled[g] + scaled[l] - 1
		if scaled[g] < 1 {
			large = large[:len(large)-1]
			small = append(small, g)
		}
	}
	for _, i := range large {
		prob[i] = 1
		alias[i] = i
	}
	for _, i := range small { // numerical leftovers
		prob[i] = 1
		alias[i] = i
	}
	s := &sampler{slots: make([]aliasSlot, m)}
	for i := range s.slots {
		s.slots[i] = aliasSlot{prob: prob[i], node: nodes[i], alias: nodes[alias[i]]}
	}
	return s
}

// chunk is the unit of deterministic parallel work: chunk c always uses the
// random stream (Seed, c), whichever goroutine runs it.
const sbmChunk = 1 << 16

// GenerateSBM builds a degree-corrected stochastic block model: class sizes
// follow a Zipf-like law, each node has a propensity θ from a power law with
// exponent Gamma, and each edge picks its first end ∝ θ, then with
// probability PIn a second end ∝ θ in the same class, otherwise anywhere.
// Duplicate edges and self loops are dropped, so the distinct edge count
// ends slightly below Edges. Features are the class mean (a random Gaussian
// vector times Signal) plus N(0,1) noise. Train/val/test are a random split;
// the graph is marked inductive like Reddit.
func GenerateSBM(ctx context.Context, opts SBMOptions) (*datasets.Graph, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	n, C := opts.Nodes, opts.Classes
	rng := rand.New(rand.NewPCG(opts.Seed, 0x73626d)) // "sbm"
	// Class sizes ∝ 1/(c+1)^0.8, every class non-empty.
	w := make([]float64, C)
	tot := 0.0
	for c := range w {
		w[c] = math.Pow(float64(c+1), -0.8)
		tot += w[c]
	}
	labels := make([]int, n)
	pos := 0
	for c := 0; c < C; c++ {
		size := int(math.Round(w[c] / tot * float64(n)))
		size = max(size, 1)
		if c == C-1 || pos+size > n-(C-1-c) {
			size = max(1, min(size, n-pos-(C-1-c)))
			if c == C-1 {
				size = n - pos
			}
		}
		for i := pos; i < pos+size; i++ {
			labels[i] = c
		}
		pos += size
	}
	// Shuffle the node order so classes are not contiguous.
	rng.Shuffle(n, func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	theta := make([]float64, n)
	for i := range theta {
		// Pareto(θ_min = 1, α = γ-1), capped to keep degrees below n/10.
		theta[i] = min(math.Pow(1-rng.Float64(), -1/(opts.Gamma-1)), float64(n)/10)
	}
	byClass := make([][]int32, C)
	all := make([]int32, n)
	for i, l := range labels {
		byClass[l] = append(byClass[l], int32(i))
		all[i] = int32(i)
	}
	samplers := make([]*sampler, C)
	for c := range samplers {
		samplers[c] = newSampler(byClass[c], theta)
	}
	global := newSampler(all, theta)
	// Draw the edges in independent chunks; duplicates (frequent between
	// high-θ nodes) are merged, so top up in further rounds until the distinct
	// count is within 0.5% of the target.
	us := make([]int32, 0, opts.Edges+opts.Edges/4)
	vs := make([]int32, 0, cap(us))
	draw := func(m, firstChunk int) (int, error) {
		base := len(us)
		if cap(us) < base+m {
			us = append(us, make([]int32, m)...)
			vs = append(vs, make([]int32, m)...)
		} else {
			us, vs = us[:base+m], vs[:base+m]
		}
		chunks := (m + sbmChunk - 1) / sbmChunk
		err := parallel(ctx, chunks, opts.Workers, func(c int) {
			r := rand.New(rand.NewPCG(opts.Seed, uint64(firstChunk+c)+1))
			for e := base + c*sbmChunk; e < base+min((c+1)*sbmChunk, m); e++ {
				u := global.draw(r)
				var v int32
				if r.Float64() < opts.PIn {
					v = samplers[labels[u]].draw(r)
				} else {
					v = global.draw(r)
				}
				us[e], vs[e] = u, v
			}
		})
		return firstChunk + chunks, err
	}
	nextChunk, err := draw(opts.Edges+opts.Edges/10, 0)
	if err != nil {
		return nil, err
	}
	var adj *sparse.CSR
	for round := 0; ; round++ {
		adj, err = symmetricFromInt32(ctx, n, us, vs, opts.Workers)
		if err != nil {
			return nil, err
		}
		got := adj.NNZ() / 2
		if round == 4 || float64(got) >= 0.995*float64(opts.Edges) || got == 0 {
			break
		}
		extra := int(float64(opts.Edges-got)*float64(len(us))/float64(got)*1.05) + 1
		if nextChunk, err = draw(extra, nextChunk); err != nil {
			return nil, err
		}
	}
	us, vs = nil, nil
	// Features: class means + noise, rows in chunks with their own streams.
	d := opts.Features
	means := mat.NewDense(C, d, nil)
	for c := 0; c < C; c++ {
		for j := 0; j < d; j++ {
			means.Set(c, j, opts.Signal*rng.NormFloat64())
		}
	}
	x := sparse.NewDense(n, d)
	rowChunks := (n + 4095) / 4096
	err = parallel(ctx, rowChunks, opts.Workers, func(c int) {
		r := rand.New(rand.NewPCG(opts.Seed^0x66656174, uint64(c)+1)) // "feat"
		for i := c * 4096; i < min((c+1)*4096, n); i++ {
			row := x.RawRowView(i)
			mu := means.RawRowView(labels[i])
			for j := range row {
				row[j] = mu[j] + r.NormFloat64()
			}
		}
	})
	if err != nil {
		return nil, err
	}
	perm := rng.Perm(n)
	nTrain := int(math.Round(opts.PTrain * float64(n)))
	nVal := min(int(math.Round(opts.PVal*float64(n))), n-nTrain)
	train := slices.Clone(perm[:nTrain])
	val := slices.Clone(perm[nTrain : nTrain+nVal])
	test := slices.Clone(perm[nTrain+nVal:])
	slices.Sort(train)
	slices.Sort(val)
	slices.Sort(test)
	// adj is symmetric without self loops or repeats: NNZ/2 edges.
	g := &datasets.Graph{Name: "synthetic_sbm", Source: "synthetic", Adj: adj, DenseFeatures: x,
		Labels: labels, Classes: C, Train: train, Val: val, Test: test, Inductive: true, EdgeCount: adj.NNZ() / 2}
	return g, g.Validate()
}

// symmetricFromInt32 builds the 0/1 symmetric adjacency of an edge list
// without self loops or duplicates, directly in CSR form (less memory than
// going through COO int slices). The edge list is counted and scattered in
// parallel parts; the order in which a row receives its entries does not
// matter, since every row is sorted and deduplicated afterwards.
func symmetricFromInt32(ctx context.Context, n int, us, vs []int32, workers int) (*sparse.CSR, error) {
	parts := max(1, min(workers, len(us)>>16))
	cnt := make([][]int, parts)
	err := parallel(ctx, parts, parts, func(w int) {
		c := make([]int, n)
		for e := len(us) * w / parts; e < len(us)*(w+1)/parts; e++ {
			if u, v := us[e], vs[e]; u != v {
				c[u]++
				c[v]++
			}
		}
		cnt[w] = c
	})
	if err != nil {
		return nil, err
	}
	// Row i's entries start at deg[i]; part w writes after parts < w.
	deg := make([]int, n+1)
	for i := 0; i < n; i++ {
		at := deg[i]
		for w := range cnt {
			k := cnt[w][i]
			cnt[w][i] = at
			at += k
		}
		deg[i+1] = at
	}
	idx := sparse.MakeInt32s(deg[n])
	err = parallel(ctx, parts, parts, func(w int) {
		next := cnt[w]
		for e := len(us) * w / parts; e < len(us)*(w+1)/parts; e++ {
			u, v := us[e], vs[e]
			if u == v {
				continue
			}
			idx[next[u]] = v
			next[u]++
			idx[next[v]] = u
			next[v]++
		}
	})
	if err != nil {
		return nil, err
	}
	cnt = nil
	// Sort and deduplicate each row in place (rows in parallel blocks; a
	// row's result does not depend on who sorts it), then close the gaps.
	kept := make([]int, n)
	const rowBlock = 4096
	err = parallel(ctx, (n+rowBlock-1)/rowBlock, workers, func(b int) {
		for i := b * rowBlock; i < min((b+1)*rowBlock, n); i++ {
			row := idx[deg[i]:deg[i+1]]
			slices.Sort(row)
			kept[i] = len(slices.Compact(row))
		}
	})
	if err != nil {
		return nil, err
	}
	out := &sparse.CSR{Rows: n, Cols: n, Indptr: make([]int, n+1)}
	w := 0
	for i := 0; i < n; i++ {
		w += copy(idx[w:], idx[deg[i]:deg[i]+kept[i]])
		out.Indptr[i+1] = w
	}
	out.Indices = slices.Clip(idx[:w])
	out.Data = sparse.MakeFloats(w)
	const fill = 1 << 20
	err = parallel(ctx, (w+fill-1)/fill, workers, func(b int) {
		d := out.Data[b*fill : min((b+1)*fill, w)]
		for k := range d {
			d[k] = 1
		}
	})
	if err != nil {
		return nil, err
	}
	return out, out.Validate()
}

// parallel runs f(0..n-1) on up to workers goroutines, which take the
// indices in order.
func parallel(ctx context.Context, n, workers int, f func(i int)) error {
	return iparallel.Balanced(ctx, n, 1, workers, func(i, _ int) { f(i) })
}
