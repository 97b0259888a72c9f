package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hylaflow/hylaflow/registry"
)

// maxHints is how many candidate names Suggest lists before "… and N more".
const maxHints = 8

// Blocks returns the stage blocks of p (TYPE.NAME), each once, in the
// order of their first instance.
func (p *Pipeline) Blocks() []string {
	var blocks []string
	for _, inst := range p.Instances {
		if !slices.Contains(blocks, inst.Block) {
			blocks = append(blocks, inst.Block)
		}
	}
	return blocks
}

// Suggest says what a name given on the command line (--force, --only)
// that names no stage block or instance of p may have meant, as a clause
// to append to the error: the stage blocks it is the start, the type or
// the NAME of (train → "; did you mean one of train.hyla, train.rff,
// train.sgc?"), else the instances whose address it starts, else the
// nearest block or address by edit distance (trian.hyla → "; did you
// mean train.hyla?"), else p's stages (" (its stages: …)").
func (p *Pipeline) Suggest(name string) string {
	blocks := p.Blocks()
	var hits []string
	for _, b := range blocks {
		typ, bname, _ := strings.Cut(b, ".")
		if strings.HasPrefix(b, name) || typ == name || bname == name {
			hits = append(hits, b)
		}
	}
	if len(hits) == 0 {
		for _, inst := range p.Instances {
			if strings.HasPrefix(inst.Address, name) {
				hits = append(hits, inst.Address)
			}
		}
	}
	if len(hits) == 0 {
		all := slices.Clone(blocks)
		for _, inst := range p.Instances {
			if inst.Address != inst.Block {
				all = append(all, inst.Address)
			}
		}
		if s := registry.DidYouMean(name, all); s != "" {
			hits = []string{s}
		}
	}
	switch {
	case len(hits) == 1:
		return fmt.Sprintf("; did you mean %s?", hits[0])
	case len(hits) > maxHints:
		return fmt.Sprintf("; did you mean one of %s, … (%d more)?", strings.Join(hits[:maxHints], ", "), len(hits)-maxHints)
	case len(hits) > 1:
		return fmt.Sprintf("; did you mean one of %s?", strings.Join(hits, ", "))
	}
	return fmt.Sprintf(" (its stages: %s)", strings.Join(blocks, ", "))
}
