package runner

import (
	"github.com/hylaflow/hylaflow/cache"
	"github.com/hylaflow/hylaflow/pipeline"
	"github.com/hylaflow/hylaflow/registry"
)

// Memory estimates. The local scheduler counts, per stage, the larger of
// its declared resources { mem } and its type's EstimateMem of its
// inputs' stored sizes (a type without one: the sum of those sizes, the
// decoded inputs). The runner knows nothing of what the inputs hold, only
// their kinds and sizes in the cache. An estimate is known once every
// input is stored; it never enters a cache key.

// MemEstimate returns the memory in MiB the local scheduler counts for
// inst, given its producers' outputs (outputs returns nil for a producer
// that has not run yet): known is false while an input's size is unknown,
// and mb is then the declared memory alone.
//
// shapes, if not nil, gives an input's array shapes (ShapeStore); it is
// asked only for the inputs of types with an EstimateMem.
func MemEstimate(inst *pipeline.Instance, outputs func(producer string) []cache.OutputRef, shapes func(cache.OutputRef) map[string][]int) (mb int64, known bool) {
	declared := inst.Resources.MemMB
	sizes := make(map[string][]registry.InputSize, len(inst.Inputs))
	var total int64
	for slot, refs := range inst.Inputs {
		list := make([]registry.InputSize, 0, len(refs))
		for _, r := range refs {
			ref, ok := findOutput(outputs(r.Producer), r.Output)
			if !ok {
				return declared, false
			}
			in := registry.InputSize{Kind: ref.Kind, Bytes: ref.Size}
			if shapes != nil && inst.Type != nil && inst.Type.EstimateMem != nil {
				in.Shapes = shapes(ref)
			}
			list = append(list, in)
			total += ref.Size
		}
		sizes[slot] = list
	}
	est := total
	if inst.Type != nil && inst.Type.EstimateMem != nil {
		est = inst.Type.EstimateMem(inst.Params, sizes)
	}
	return max(declared, mibCeil(est)), true
}

// mibCeil converts bytes to MiB, rounding up.
func mibCeil(b int64) int64 {
	if b <= 0 {
		return 0
	}
	return (b + 1<<20 - 1) >> 20
}

// ShapeStore is a store that can tell the shapes of a stored output's
// arrays cheaply (cache.Cache), for memory estimates.
type ShapeStore interface {
	Shapes(ref cache.OutputRef) map[string][]int
}

// shapesOf returns store's Shapes, or nil when it has none.
func shapesOf(store any) func(cache.OutputRef) map[string][]int {
	if s, ok := store.(ShapeStore); ok {
		return s.Shapes
	}
	return nil
}

// planMem fills each step's memory estimate from the outputs the plan
// found stored.
func planMem(plan *Plan, store any) {
	outputs := func(producer string) []cache.OutputRef {
		if s := plan.ByAddress[producer]; s != nil && s.Cached {
			return s.Outputs
		}
		return nil
	}
	shapes := shapesOf(store)
	for _, s := range plan.Steps {
		if !s.Cached {
			s.MemMB, s.MemKnown = MemEstimate(s.Instance, outputs, shapes)
		}
	}
}
