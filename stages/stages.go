// Package stages implements the registered stage types: thin adapters from
// parameters and input artifacts to the libraries (datasets, sparse, hyla,
// nn). Stages never touch the cache or the runner. Their artifacts are
// bundles (package artifact/bundle) laid out as package stages/schema says.
package stages

import (
	"fmt"

	"github.com/hylaflow/hylaflow/artifact/bundle"
	"github.com/hylaflow/hylaflow/registry"
)

// RegisterAll registers every built-in stage type in r.
func RegisterAll(r *registry.Registry) error {
	for _, register := range []func(*registry.Registry) error{
		registerGeneric,   // generic.go: small stages for tests and runner benchmarks
		registerData,      // data.go: dataset, normalize, precompute, split
		registerLearning,  // learning.go: sample, embed, train, evaluate
		registerGNN,       // learning_gnn.go: gcn, gat; learning_hylagcn.go: hyla_gcn
		registerHyp,       // learning_hyp.go: hnn, hgcn, lgcn, linkpred
		registerTextGCN,   // learning_textgcn.go: textgcn
		registerKernel,    // kernel.go: kernel tables and figures
		registerVisual,    // visual.go: t-SNE/PCA scatter plots of learned features
		registerCommand,   // command.go: a user's own program (opt-in)
		registerFunctions, // functions.go: pipeline functions (dataset_present)
	} {
		if err := register(r); err != nil {
			return err
		}
	}
	return nil
}

// inputBundles returns the artifacts of an input slot of job as bundles,
// the format of every built-in stage's outputs (a nil entry stays nil); an
// artifact of another format is an error that names the slot and its
// producer.
func inputBundles(job *registry.Job, slot string) ([]*bundle.Bundle, error) {
	in := job.Inputs[slot]
	out := make([]*bundle.Bundle, len(in))
	for i, a := range in {
		if a == nil {
			continue
		}
		b, err := bundle.From(a)
		if err != nil {
			from := fmt.Sprintf("#%d", i)
			if labels := job.InputLabels[slot]; i < len(labels) {
				from = labels[i]
			}
			return nil, fmt.Errorf("input %q from %s: %w", slot, from, err)
		}
		out[i] = b
	}
	return out, nil
}

// Default returns a registry holding every built-in stage type.
func Default() *registry.Registry {
	r := registry.New()
	if err := RegisterAll(r); err != nil {
		panic(err) // a built-in stage with an invalid schema is a programming error
	}
	return r
}
