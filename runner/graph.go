package runner

import (
	"fmt"
	"strings"
)

// graphEdge is one input of one instance, for rendering.
type graphEdge struct {
	from, to, label string
}

// edges lists the DAG's edges in instance order, slots by name, refs in slot order.
func (p *Pipeline) edges() []graphEdge {
	var out []graphEdge
	for _, inst := range p.Instances {
		for _, slot := range sortedNames(inst.Inputs) {
			for _, r := range inst.Inputs[slot] {
				label := slot
				if prod, ok := p.ByAddress[r.Producer]; ok && len(prod.Type.Outputs) > 1 {
					label = r.Output + " → " + slot
				}
				out = append(out, graphEdge{r.Producer, inst.Address, label})
			}
		}
	}
	return out
}

// groups returns the instances of each for_each/matrix block (blocks in
// order of their first instance) and the plain instances.
func (p *Pipeline) groups() (blocks []string, members map[string][]*Instance) {
	members = map[string][]*Instance{}
	for _, inst := range p.Instances {
		key := ""
		if inst.EachKey != "" || inst.Address != inst.Block {
			key = inst.Block
		}
		if _, seen := members[key]; !seen && key != "" {
			blocks = append(blocks, key)
		}
		members[key] = append(members[key], inst)
	}
	return blocks, members
}

// DOT renders the DAG in Graphviz DOT: one node per instance labelled with
// its address and stage type, the instances of a for_each/matrix stage in
// a cluster, edges labelled with the input slot.
func (p *Pipeline) DOT() string {
	var b strings.Builder
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace
	q := func(s string) string { return `"` + esc(s) + `"` }
	fmt.Fprintf(&b, "digraph %s {\n", q(p.Name))
	b.WriteString("  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	node := func(indent string, inst *Instance) {
		label := `"` + esc(inst.Address) + `\n` + esc(inst.Type.Name+" v"+inst.Type.Version) + `"`
		fmt.Fprintf(&b, "%s%s [label=%s];\n", indent, q(inst.Address), label)
	}
	blocks, members := p.groups()
	for _, inst := range members[""] {
		node("  ", inst)
	}
	for i, blk := range blocks {
		fmt.Fprintf(&b, "  subgraph %s {\n    label=%s;\n    style=rounded;\n", q(fmt.Sprintf("cluster_%d", i)), q(blk))
		for _, inst := range members[blk] {
			node("    ", inst)
		}
		b.WriteString("  }\n")
	}
	for _, e := range p.edges() {
		fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", q(e.from), q(e.to), q(e.label))
	}
	b.WriteString("}\n")
	return b.String()
}

// Mermaid renders the DAG as a Mermaid flowchart (left to right), with the
// same structure as DOT.
func (p *Pipeline) Mermaid() string {
	var b strings.Builder
	ids := map[string]string{}
	for i, inst := range p.Instances {
		ids[inst.Address] = fmt.Sprintf("n%d", i)
	}
	esc := func(s string) string {
		return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(s)
	}
	b.WriteString("flowchart LR\n")
	node := func(indent string, inst *Instance) {
		fmt.Fprintf(&b, "%s%s[\"%s<br/><small>%s v%s</small>\"]\n", indent, ids[inst.Address], esc(inst.Address), esc(inst.Type.Name), esc(inst.Type.Version))
	}
	blocks, members := p.groups()
	for _, inst := range members[""] {
		node("  ", inst)
	}
	for i, blk := range blocks {
		fmt.Fprintf(&b, "  subgraph s%d[\"%s\"]\n", i, esc(blk))
		for _, inst := range members[blk] {
			node("    ", inst)
		}
		b.WriteString("  end\n")
	}
	for _, e := range p.edges() {
		fmt.Fprintf(&b, "  %s -->|%s| %s\n", ids[e.from], esc(e.label), ids[e.to])
	}
	return b.String()
}
