package stages

import (
	"testing"

	"github.com/hylaflow/hylaflow/registry"
	"github.com/hylaflow/hylaflow/stages/schema"
)

// TestMemHypPubmed checks the hyperbolic stages' estimates against the
// peak RSS measured on Pubmed (memest_hyp.go): each estimate is at least
// the measured peak and at most twice it.
func TestMemHypPubmed(t *testing.T) {
	const mib = 1 << 20
	graph := registry.InputSize{Bytes: 14869410, Shapes: map[string][]int{schema.MemberAdj: {19717, 19717}, schema.MemberFeatures: {19717, 500}}}
	withEmb := map[string][]registry.InputSize{"graph": {graph}, "embeddings": {{Bytes: 2524421, Shapes: map[string][]int{schema.MemberZ: {19717, 16}}}}}
	onlyGraph := map[string][]registry.InputSize{"graph": {graph}}
	nc := registry.Values{"dim": 16, "layers": 2}
	lp := registry.Values{"dim": 16, "layers": 2, "val_prop": 0.05, "test_prop": 0.10}
	for _, tc := range []struct {
		name     string
		est      int64
		measured int64
	}{
		{"hnn", memHyp(nc, onlyGraph), 312 * mib},
		{"hgcn", memHyp(nc, onlyGraph), 436 * mib},
		{"lgcn", memHyp(nc, onlyGraph), 320 * mib},
		{"hgcn on embeddings", memHyp(nc, withEmb), 180 * mib},
		{"linkpred", memLinkPred(lp, onlyGraph), 849 * mib},
	} {
		if tc.est < tc.measured || tc.est > 2*tc.measured {
			t.Errorf("%s: estimate %d MiB for a measured peak of %d MiB, want within [1, 2]×", tc.name, tc.est/mib, tc.measured/mib)
		}
	}
}

// The estimates grow with the nodes, the dimension and the layers; link
// prediction's with the edges (bounded by the input's size); without the
// adjacency's shape they fall back to the inputs' size.
func TestMemHypShape(t *testing.T) {
	in := func(n int, bytes int64) map[string][]registry.InputSize {
		return map[string][]registry.InputSize{"graph": {{Bytes: bytes, Shapes: map[string][]int{schema.MemberAdj: {n, n}}}}}
	}
	v := func(dim, layers int) registry.Values {
		return registry.Values{"dim": dim, "layers": layers, "val_prop": 0.05, "test_prop": 0.1}
	}
	for _, f := range []struct {
		name string
		fn   func(registry.Values, map[string][]registry.InputSize) int64
	}{{"memHyp", memHyp}, {"memLinkPred", memLinkPred}} {
		small, big := f.fn(v(16, 2), in(1000, 1<<20)), f.fn(v(16, 2), in(10000, 1<<20))
		wide, deep := f.fn(v(64, 2), in(10000, 1<<20)), f.fn(v(16, 4), in(10000, 1<<20))
		if !(small < big && big < wide && big < deep) {
			t.Errorf("%s: estimates %d (1k nodes), %d (10k), %d (dim 64), %d (4 layers) do not grow", f.name, small, big, wide, deep)
		}
		noShape := map[string][]registry.InputSize{"graph": {{Bytes: 1 << 20}}}
		if got, want := f.fn(v(16, 2), noShape), int64(3<<20)+memBase; got != want {
			t.Errorf("%s without shapes: %d, want %d", f.name, got, want)
		}
	}
	// More stored bytes (more edges) raise linkpred's estimate until the
	// degree bound, not hgcn's node arrays.
	a, b, c := memLinkPred(v(16, 2), in(10000, 256<<10)), memLinkPred(v(16, 2), in(10000, 4<<20)), memLinkPred(v(16, 2), in(10000, 64<<20))
	if growth := int64(3 * (4<<20 - 256<<10)); !(b-a > growth) {
		t.Errorf("linkpred: %d (256 KiB input) and %d (4 MiB) differ by no more than the decoded input's %d: the edges do not count", a, b, growth)
	}
	// Attention adds per-edge arrays to hgcn's estimate.
	plain, att := memHyp(v(16, 2), in(10000, 4<<20)), memHyp(registry.Values{"dim": 16, "layers": 2, "use_att": true}, in(10000, 4<<20))
	if !(att > plain) {
		t.Errorf("hgcn with attention: estimate %d, without %d", att, plain)
	}
	if c-b != 3*(60<<20) {
		t.Errorf("linkpred: %d (64 MiB input) − %d (4 MiB) = %d, want only the decoded input's growth %d (the degree bound)", c, b, c-b, 3*(60<<20))
	}
}
