package pipeline

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/hashicorp/hcl/v2"
)

// buildDAG orders the instances topologically (producers first; among
// the ready instances the smallest address first) and reports every
// dependency cycle with the strongly connected components of the graph.
func (l *loader) buildDAG() {
	if l.p == nil {
		return
	}
	succ := make(map[string][]string, len(l.p.Instances))
	indeg := make(map[string]int, len(l.p.Instances))
	for _, inst := range l.p.Instances {
		indeg[inst.Address] += 0
		var producers []string
		for _, refs := range inst.Inputs {
			for _, r := range refs {
				if _, ok := l.p.ByAddress[r.Producer]; ok { // else its block failed, already reported
					producers = append(producers, r.Producer)
				}
			}
		}
		slices.Sort(producers)
		for _, from := range slices.Compact(producers) { // one edge per producer
			succ[from] = append(succ[from], inst.Address)
			indeg[inst.Address]++
		}
	}
	if order, ok := loadTopoSort(succ, indeg); ok {
		sorted := make([]*Instance, len(order))
		for i, addr := range order {
			sorted[i] = l.p.ByAddress[addr]
		}
		l.p.Instances = sorted
		return
	}
	// A cycle: find the strongly connected components with dominikbraun/graph.
	g := graph.New(graph.StringHash, graph.Directed())
	for _, inst := range l.p.Instances {
		_ = g.AddVertex(inst.Address) // addresses are unique by construction
	}
	for _, from := range sortedNames(succ) {
		for _, to := range succ[from] {
			if err := g.AddEdge(from, to); err != nil && !errors.Is(err, graph.ErrEdgeAlreadyExists) {
				l.errorf(nil, "Internal error", "adding edge %s → %s: %v", from, to, err)
			}
		}
	}
	sccs, err := graph.StronglyConnectedComponents(g)
	if err != nil {
		l.errorf(nil, "Internal error", "finding dependency cycles: %v", err)
		return
	}
	var cycles [][]string
	for _, c := range sccs {
		if len(c) > 1 {
			sort.Strings(c)
			cycles = append(cycles, c)
		}
	}
	sort.Slice(cycles, func(i, j int) bool { return cycles[i][0] < cycles[j][0] })
	for _, c := range cycles {
		var lines []string
		for _, addr := range c {
			inst := l.p.ByAddress[addr]
			lines = append(lines, fmt.Sprintf("  %s (declared at %s)", addr, inst.Range))
		}
		first := l.p.ByAddress[c[0]]
		l.diags = append(l.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Dependency cycle",
			Detail: fmt.Sprintf("These %d stages depend on each other, so none of them can run first:\n%s",
				len(c), strings.Join(lines, "\n")),
			Subject: rangePtr(first.Range),
		})
	}
}

// loadTopoSort returns the lexicographically smallest topological order:
// Kahn's algorithm with a min-heap of ready addresses, O((V+E) log V).
// It replaces graph.StableTopologicalSort, which rescans every vertex per
// step (O(V²)) and whose edge store allocates more than the rest of Load
// on large fan-outs (docs/performance.md, "Figures behind code
// comments"). ok is false on a cycle.
func loadTopoSort(succ map[string][]string, indeg map[string]int) (order []string, ok bool) {
	ready := &loadAddrHeap{}
	for v, d := range indeg {
		if d == 0 {
			*ready = append(*ready, v)
		}
	}
	heap.Init(ready)
	order = make([]string, 0, len(indeg))
	for ready.Len() > 0 {
		v := heap.Pop(ready).(string)
		order = append(order, v)
		for _, w := range succ[v] {
			if indeg[w]--; indeg[w] == 0 {
				heap.Push(ready, w)
			}
		}
	}
	return order, len(order) == len(indeg)
}

// loadAddrHeap is a min-heap of instance addresses.
type loadAddrHeap []string

func (h loadAddrHeap) Len() int           { return len(h) }
func (h loadAddrHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h loadAddrHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *loadAddrHeap) Push(x any)        { *h = append(*h, x.(string)) }
func (h *loadAddrHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
