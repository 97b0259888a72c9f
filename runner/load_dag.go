package runner

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dominikbraun/graph"
	"github.com/hashicorp/hcl/v2"
)

// buildDAG orders the instances topologically (producers first, ties
// broken by address) and reports every dependency cycle.
func (l *loader) buildDAG() {
	if l.p == nil {
		return
	}
	g := graph.New(graph.StringHash, graph.Directed())
	for _, inst := range l.p.Instances {
		_ = g.AddVertex(inst.Address) // addresses are unique by construction
	}
	for _, inst := range l.p.Instances {
		for _, slot := range sortedNames(inst.Inputs) {
			for _, r := range inst.Inputs[slot] {
				if _, ok := l.p.ByAddress[r.Producer]; !ok {
					continue // its block failed; already reported
				}
				if err := g.AddEdge(r.Producer, inst.Address); err != nil && !errors.Is(err, graph.ErrEdgeAlreadyExists) {
					l.errorf(rangePtr(inst.Range), "Internal error", "adding edge %s → %s: %v", r.Producer, inst.Address, err)
				}
			}
		}
	}
	order, err := graph.StableTopologicalSort(g, func(a, b string) bool { return a < b })
	if err == nil {
		sorted := make([]*Instance, len(order))
		for i, addr := range order {
			sorted[i] = l.p.ByAddress[addr]
		}
		l.p.Instances = sorted
		return
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
