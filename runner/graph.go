package runner

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

// graphBlock is a stage block of the collapsed view: its instances and,
// given a run's statuses, how many of them had each status.
type graphBlock struct {
	name   string
	typ    string // "TYPE vVERSION"
	count  int
	status map[string]int // status → instances; empty without a run
	absent int            // instances the run did not record
}

// blockEdge is an input between two blocks: the slots it feeds and how
// many instance edges it stands for.
type blockEdge struct {
	from, to string
	labels   []string
	count    int
}

// Status classes of the collapsed view, in the order a block takes the
// first one any of its instances has.
var graphStatusOrder = []string{"failed", "canceled", "skipped", "ran", "cached"}

// graphStyle is the fill colour of a status class (DOT and Mermaid).
var graphStyle = map[string]string{
	"failed":   "#f4cccc",
	"canceled": "#fce5cd",
	"skipped":  "#fff2cc",
	"ran":      "#d9ead3",
	"cached":   "#e8eaed",
}

// collapsed groups the instances by stage block (in order of the first
// instance) and the instance edges by pair of blocks. status gives each
// instance's status in a run (nil: no run).
func (p *Pipeline) collapsed(status map[string]string) ([]*graphBlock, []*blockEdge) {
	var blocks []*graphBlock
	byName := map[string]*graphBlock{}
	for _, inst := range p.Instances {
		b, ok := byName[inst.Block]
		if !ok {
			b = &graphBlock{name: inst.Block, typ: inst.Type.Name + " v" + inst.Type.Version, status: map[string]int{}}
			byName[inst.Block] = b
			blocks = append(blocks, b)
		}
		b.count++
		if status != nil {
			if st, ok := status[inst.Address]; ok {
				b.status[st]++
			} else {
				b.absent++
			}
		}
	}
	var edges []*blockEdge
	byPair := map[[2]string]*blockEdge{}
	for _, e := range p.edges() {
		from, to := p.ByAddress[e.from].Block, p.ByAddress[e.to].Block
		k := [2]string{from, to}
		be, ok := byPair[k]
		if !ok {
			be = &blockEdge{from: from, to: to}
			byPair[k] = be
			edges = append(edges, be)
		}
		be.count++
		if !slices.Contains(be.labels, e.label) {
			be.labels = append(be.labels, e.label)
		}
	}
	return blocks, edges
}

// class is the status class of a block: the first of graphStatusOrder
// that one of its instances has; "" without a run or when the run
// recorded none of its instances.
func (b *graphBlock) class() string {
	for _, s := range graphStatusOrder {
		if b.status[s] > 0 {
			return s
		}
	}
	return ""
}

// label is the block's text: its name, its type and instance count, and
// with a run, the count of each status ("3 ran, 6 cached").
func (b *graphBlock) label() []string {
	lines := []string{b.name, b.typ}
	if b.count > 1 {
		lines[1] += fmt.Sprintf(" ×%d", b.count)
	}
	var parts []string
	for _, s := range graphStatusOrder {
		if n := b.status[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if b.absent > 0 && (len(parts) > 0 || len(b.status) == 0) {
		parts = append(parts, fmt.Sprintf("%d not in the run", b.absent))
	}
	if len(parts) > 0 {
		lines = append(lines, strings.Join(parts, ", "))
	}
	return lines
}

func (e *blockEdge) label() string {
	l := strings.Join(e.labels, ", ")
	if e.count > 1 {
		l += fmt.Sprintf(" ×%d", e.count)
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
	blocks, edges := p.collapsed(status)
	for _, blk := range blocks {
		lines := blk.label()
		for i := range lines {
			lines[i] = esc(lines[i])
		}
		attrs := `label="` + strings.Join(lines, `\n`) + `"`
		switch c := blk.class(); {
		case c != "":
			attrs += fmt.Sprintf(`, style="rounded,filled", fillcolor=%q`, graphStyle[c])
		case status != nil:
			attrs += `, style="rounded,dashed"`
		}
		fmt.Fprintf(&b, "  %s [%s];\n", q(blk.name), attrs)
	}
	for _, e := range edges {
		fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", q(e.from), q(e.to), q(e.label()))
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
	blocks, edges := p.collapsed(status)
	ids := map[string]string{}
	classes := map[string][]string{}
	for i, blk := range blocks {
		id := fmt.Sprintf("b%d", i)
		ids[blk.name] = id
		lines := blk.label()
		text := esc(lines[0]) + "<br/><small>" + esc(lines[1]) + "</small>"
		if len(lines) > 2 {
			text += "<br/><small>" + esc(lines[2]) + "</small>"
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", id, text)
		switch c := blk.class(); {
		case c != "":
			classes[c] = append(classes[c], id)
		case status != nil:
			classes["absent"] = append(classes["absent"], id)
		}
	}
	for _, e := range edges {
		fmt.Fprintf(&b, "  %s -->|%s| %s\n", ids[e.from], esc(e.label()), ids[e.to])
	}
	for _, c := range append(slices.Clone(graphStatusOrder), "absent") {
		if len(classes[c]) == 0 {
			continue
		}
		if c == "absent" {
			b.WriteString("  classDef absent stroke-dasharray: 4 4\n")
		} else {
			fmt.Fprintf(&b, "  classDef %s fill:%s\n", c, graphStyle[c])
		}
		fmt.Fprintf(&b, "  class %s %s\n", strings.Join(classes[c], ","), c)
	}
	return b.String()
}
