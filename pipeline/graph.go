package pipeline

import (
	"fmt"
	"slices"
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

// CollapsedBlock is a stage block of the collapsed view: its instances
// and, given a run's statuses, how many of them had each status.
type CollapsedBlock struct {
	Name   string         // TYPE.NAME of the block
	Type   string         // "TYPE vVERSION"
	Count  int            // instances
	Status map[string]int // status → instances; empty without a run
	Absent int            // instances the run did not record
}

// CollapsedEdge is an input between two blocks: the slots it feeds and
// how many instance edges it stands for.
type CollapsedEdge struct {
	From, To string
	Labels   []string
	Count    int
}

// GraphInstance is a stage instance as Collapse groups it.
type GraphInstance struct {
	Address string
	Block   string // TYPE.NAME of its stage block
	Type    string // "TYPE vVERSION"
}

// GraphEdge is one input of one instance: producer and consumer
// addresses, and the label (the input slot, "OUTPUT → SLOT" when the
// producer has several outputs).
type GraphEdge struct {
	From, To, Label string
}

// StatusOrder lists the status classes of the collapsed view, in the
// order a block takes the first one any of its instances has.
var StatusOrder = []string{"failed", "canceled", "skipped", "ran", "cached"}

// StatusFill is the fill colour of a status class (DOT, Mermaid, HTML).
var StatusFill = map[string]string{
	"failed":   "#f4cccc",
	"canceled": "#fce5cd",
	"skipped":  "#fff2cc",
	"ran":      "#d9ead3",
	"cached":   "#e8eaed",
}

// Collapsed groups the pipeline's instances by stage block and their
// edges by pair of blocks (see Collapse).
func (p *Pipeline) Collapsed(status map[string]string) ([]*CollapsedBlock, []*CollapsedEdge) {
	insts := make([]GraphInstance, len(p.Instances))
	for i, inst := range p.Instances {
		insts[i] = GraphInstance{Address: inst.Address, Block: inst.Block, Type: inst.Type.Name + " v" + inst.Type.Version}
	}
	var edges []GraphEdge
	for _, e := range p.edges() {
		edges = append(edges, GraphEdge{From: e.from, To: e.to, Label: e.label})
	}
	return Collapse(insts, edges, status)
}

// Collapse groups instances by stage block (in order of the first
// instance) and the instance edges by pair of blocks (in order of the
// first edge). status gives each instance's status in a run (nil: no
// run). An edge naming an instance not in insts is left out.
func Collapse(insts []GraphInstance, edges []GraphEdge, status map[string]string) ([]*CollapsedBlock, []*CollapsedEdge) {
	var blocks []*CollapsedBlock
	byName := map[string]*CollapsedBlock{}
	blockOf := map[string]string{}
	for _, inst := range insts {
		blockOf[inst.Address] = inst.Block
		b, ok := byName[inst.Block]
		if !ok {
			b = &CollapsedBlock{Name: inst.Block, Type: inst.Type, Status: map[string]int{}}
			byName[inst.Block] = b
			blocks = append(blocks, b)
		}
		b.Count++
		if status != nil {
			if st, ok := status[inst.Address]; ok {
				b.Status[st]++
			} else {
				b.Absent++
			}
		}
	}
	var out []*CollapsedEdge
	byPair := map[[2]string]*CollapsedEdge{}
	for _, e := range edges {
		from, okf := blockOf[e.From]
		to, okt := blockOf[e.To]
		if !okf || !okt {
			continue
		}
		k := [2]string{from, to}
		be, ok := byPair[k]
		if !ok {
			be = &CollapsedEdge{From: from, To: to}
			byPair[k] = be
			out = append(out, be)
		}
		be.Count++
		if !slices.Contains(be.Labels, e.Label) {
			be.Labels = append(be.Labels, e.Label)
		}
	}
	return blocks, out
}

// Class is the status class of a block: the first of StatusOrder that
// one of its instances has; "" without a run or when the run recorded
// none of its instances.
func (b *CollapsedBlock) Class() string {
	for _, s := range StatusOrder {
		if b.Status[s] > 0 {
			return s
		}
	}
	return ""
}

// Label is the block's text: its name, its type and instance count, and
// with a run, the count of each status ("3 ran, 6 cached").
func (b *CollapsedBlock) Label() []string {
	lines := []string{b.Name, b.Type}
	if b.Count > 1 {
		lines[1] += fmt.Sprintf(" ×%d", b.Count)
	}
	var parts []string
	for _, s := range StatusOrder {
		if n := b.Status[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if b.Absent > 0 && (len(parts) > 0 || len(b.Status) == 0) {
		parts = append(parts, fmt.Sprintf("%d not in the run", b.Absent))
	}
	if len(parts) > 0 {
		lines = append(lines, strings.Join(parts, ", "))
	}
	return lines
}

// Label is the edge's text: its slots, and ×N when it stands for N > 1
// instance edges.
func (e *CollapsedEdge) Label() string {
	l := strings.Join(e.Labels, ", ")
	if e.Count > 1 {
		l += fmt.Sprintf(" ×%d", e.Count)
	}
	return l
}

// CollapsedDOT renders the DAG in Graphviz DOT with one node per stage
// block (TYPE.NAME), labelled with its stage type and instance count, and
// one edge per pair of connected blocks, labelled with the input slots and
// how many instance edges it stands for. status, when not nil, gives each
// instance's status in a run (ran, cached, failed, skipped, canceled): a
// block is filled by the first of failed, canceled, skipped, ran and
// cached that one of its instances has, lists the counts, and is dashed
// when the run recorded none of its instances.
func (p *Pipeline) CollapsedDOT(status map[string]string) string {
	var b strings.Builder
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace
	q := func(s string) string { return `"` + esc(s) + `"` }
	fmt.Fprintf(&b, "digraph %s {\n", q(p.Name))
	b.WriteString("  rankdir=LR;\n  node [shape=box, style=rounded, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
	blocks, edges := p.Collapsed(status)
	for _, blk := range blocks {
		lines := blk.Label()
		for i := range lines {
			lines[i] = esc(lines[i])
		}
		attrs := `label="` + strings.Join(lines, `\n`) + `"`
		switch c := blk.Class(); {
		case c != "":
			attrs += fmt.Sprintf(`, style="rounded,filled", fillcolor=%q`, StatusFill[c])
		case status != nil:
			attrs += `, style="rounded,dashed"`
		}
		fmt.Fprintf(&b, "  %s [%s];\n", q(blk.Name), attrs)
	}
	for _, e := range edges {
		fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", q(e.From), q(e.To), q(e.Label()))
	}
	b.WriteString("}\n")
	return b.String()
}

// CollapsedMermaid renders the collapsed DAG of CollapsedDOT as a Mermaid
// flowchart, the status classes as classDef styles.
func (p *Pipeline) CollapsedMermaid(status map[string]string) string {
	var b strings.Builder
	esc := func(s string) string {
		return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;").Replace(s)
	}
	b.WriteString("flowchart LR\n")
	blocks, edges := p.Collapsed(status)
	ids := map[string]string{}
	classes := map[string][]string{}
	for i, blk := range blocks {
		id := fmt.Sprintf("b%d", i)
		ids[blk.Name] = id
		lines := blk.Label()
		text := esc(lines[0]) + "<br/><small>" + esc(lines[1]) + "</small>"
		if len(lines) > 2 {
			text += "<br/><small>" + esc(lines[2]) + "</small>"
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", id, text)
		switch c := blk.Class(); {
		case c != "":
			classes[c] = append(classes[c], id)
		case status != nil:
			classes["absent"] = append(classes["absent"], id)
		}
	}
	for _, e := range edges {
		fmt.Fprintf(&b, "  %s -->|%s| %s\n", ids[e.From], esc(e.Label()), ids[e.To])
	}
	for _, c := range append(slices.Clone(StatusOrder), "absent") {
		if len(classes[c]) == 0 {
			continue
		}
		if c == "absent" {
			b.WriteString("  classDef absent stroke-dasharray: 4 4\n")
		} else {
			fmt.Fprintf(&b, "  classDef %s fill:%s\n", c, StatusFill[c])
		}
		fmt.Fprintf(&b, "  class %s %s\n", strings.Join(classes[c], ","), c)
	}
	return b.String()
}
