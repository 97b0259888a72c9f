package pipeline

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// Preflight asks every instance's stage type what running it needs from
// this machine (registry.Type.Preflight, e.g. a dataset's files) and
// returns the answers as diagnostics, normally warnings: plan prints them
// and run prints them before it starts. Identical findings of several
// instances (every seed of a stage, several stages reading one dataset)
// are reported once, at the first instance, with the number of others.
// Load does not call it: a pipeline is valid whatever the machine holds.
func Preflight(p *Pipeline) hcl.Diagnostics {
	type finding struct {
		diag  *hcl.Diagnostic
		count int
	}
	var order []string
	found := map[string]*finding{}
	for _, inst := range p.Instances {
		if inst.Type.Preflight == nil {
			continue
		}
		for _, pr := range inst.Type.Preflight(inst.Params) {
			k := fmt.Sprintf("%t\x00%s\x00%s", pr.Warning, pr.Summary, pr.Detail)
			if f, ok := found[k]; ok {
				f.count++
				continue
			}
			found[k] = &finding{diag: problemDiag(pr, inst.Range)}
			order = append(order, k)
		}
	}
	var out hcl.Diagnostics
	for _, k := range order {
		f := found[k]
		if f.count > 0 {
			noun := "instances"
			if f.count == 1 {
				noun = "instance"
			}
			f.diag.Detail += fmt.Sprintf(" (Also %d other stage %s.)", f.count, noun)
		}
		out = append(out, f.diag)
	}
	return out
}
