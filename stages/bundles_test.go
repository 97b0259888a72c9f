package stages

import (
	"github.com/hylaflow/hylaflow/artifact"
	"github.com/hylaflow/hylaflow/artifact/bundle"
)

// The tests hold artifacts as bundles; a registry.Job takes (and a RunFunc
// returns) them as artifact.Artifact.

// testInputs converts bundles to a Job's Inputs.
func testInputs(in map[string][]*bundle.Bundle) map[string][]artifact.Artifact {
	if in == nil {
		return nil
	}
	out := make(map[string][]artifact.Artifact, len(in))
	for slot, bs := range in {
		out[slot] = make([]artifact.Artifact, len(bs))
		for i, b := range bs {
			if b != nil {
				out[slot][i] = b
			}
		}
	}
	return out
}

// testBundles converts a RunFunc's outputs to bundles.
func testBundles(outs map[string]artifact.Artifact, err error) (map[string]*bundle.Bundle, error) {
	if err != nil || outs == nil {
		return nil, err
	}
	m := make(map[string]*bundle.Bundle, len(outs))
	for name, a := range outs {
		b, err := bundle.From(a)
		if err != nil {
			return nil, err
		}
		m[name] = b
	}
	return m, nil
}
