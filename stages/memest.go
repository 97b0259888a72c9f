package stages

import (
	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// Memory estimates of the stages whose memory matters (registry.Type's
// EstimateMem), from their inputs' stored sizes and array shapes. The
// factors are measured: peak RSS of `hylaflow run --force STAGE` with
// every input cached (one process per stage, GOMEMLIMIT=256MiB so the
// collector keeps the heap near the live data) on the TextGCN corpora,
// the largest inputs of the shipped pipelines (docs/reliability.md has
// the table). Each estimate is meant to be at least the real peak and at
// most about twice it.

// memBase is what any stage adds to its arrays: the decoder's buffers,
// the Go runtime's spans, small per-stage state.
const memBase = 64 << 20

// memInputBytes returns the total stored size of every input.
func memInputBytes(in map[string][]registry.InputSize) int64 {
	var n int64
	for _, list := range in {
		for _, s := range list {
			n += s.Bytes
		}
	}
	return n
}

// memNormalize: the graph decoded, S built beside A, the output encoded
// (measured: Ohsumed's 97 MB graph peaks at 218 MB RSS; estimate 323 MB).
func memNormalize(_ registry.Values, in map[string][]registry.InputSize) int64 {
	return 3*memInputBytes(in) + memBase
}

// memPrecompute: the graph decoded plus the dense S^K X it makes. The
// shapes say its size: n nodes (adj), f feature columns (features; none:
// the identity, f = n), and the rows kept (labelled: the split's nodes).
// Sparse X with K > 0 and dense X with K > 0 hold an n×f intermediate
// beside the kept rows; K = 0 and the identity make the kept rows only.
// Measured: MR's corpus (10 662 × 29 426 kept, 2.51 GB) peaks at 2.53 GB
// (estimate 2.65 GB), its documents (K = 0, 10 662 × 18 764) at 1.60 GB
// (estimate 1.67 GB), Ohsumed's corpus at 1.47 GB (estimate 1.70 GB).
func memPrecompute(p registry.Values, in map[string][]registry.InputSize) int64 {
	base := 2*memInputBytes(in) + memBase
	graphs := in["graph"]
	if len(graphs) != 1 {
		return base
	}
	sh := graphs[0].Shapes
	adj := sh[schema.MemberAdj]
	if len(adj) != 2 {
		// Shapes unknown (another format): the decoded graph only.
		return base
	}
	n := int64(adj[0])
	if p.String("level") == "nodes" {
		// S, and S^K while it stays under dataMaxSKEntries (12 bytes each).
		return base + min(int64(dataMaxSKEntries), n*n)*12*min(int64(p.Int("k")), 1)
	}
	rows := n
	if p.String("rows") == "labelled" {
		var labelled int64
		for _, m := range []string{schema.MemberTrain, schema.MemberVal, schema.MemberTest} {
			if s := sh[m]; len(s) == 1 {
				labelled += int64(s[0])
			}
		}
		if labelled > 0 {
			rows = min(labelled, n)
		}
	}
	f, identity := n, true
	if s := sh[schema.MemberFeatures]; len(s) == 2 {
		f, identity = int64(s[1]), false
	}
	dense := rows * f * 8
	if !identity && (p.Int("k") > 0 || p.Bool("inductive")) {
		dense += n * f * 8
	}
	return base + dense
}

// memTrain: the features decoded and the arrays training works on (the
// rows each step uses, φ(Z), gradients, Adam's moments). Measured on MR's
// corpus features (2.51 GB): HyLa-SGC and RFF-SGC peak at 4.22 GB,
// TextSGC at 3.97 GB (estimate 4.65 GB).
func memTrain(_ registry.Values, in map[string][]registry.InputSize) int64 {
	return memInputBytes(in)*9/5 + 2*memBase
}

// memTextGCN: the normalised corpus graph decoded (S and the raw A) and
// S's transpose for the backward pass, plus the n×hidden arrays: W1 with
// its gradient and Adam's two moments, and per step the lookup, S·W1,
// ReLU, the dropout and its mask, their gradients and the evaluation's
// forward pass — about 20 live, which the collector (GOGC = 100) lets grow
// to twice that before it frees the previous step's. Measured peak RSS
// (docs/text.md): R8 transductive 1.22 GiB for a textgcn-only process
// (estimate 1.5 GiB); Ohsumed transductive 1.95 GiB for a process that also
// built and normalised the corpus (estimate 2.2 GiB).
func memTextGCN(p registry.Values, in map[string][]registry.InputSize) int64 {
	base := 2*memInputBytes(in) + memBase
	graphs := in["graph"]
	if len(graphs) != 1 {
		return base
	}
	adj := graphs[0].Shapes[schema.MemberAdj]
	if len(adj) != 2 {
		return base
	}
	n, h := int64(adj[0]), int64(max(p.Int("hidden"), 1))
	return base + textGCNDenseArrays*n*h*8
}

// textGCNDenseArrays is the number of n×hidden float64 arrays memTextGCN
// counts: 20 live, doubled for the collector's headroom, and a margin.
const textGCNDenseArrays = 56
