// Package stages implements the registered stage types: thin adapters from
// parameters and input artifacts to the libraries (datasets, sparse, hyla,
// nn). Stages never touch the cache or the runner.
package stages

import "github.com/hylaflow/hylaflow/registry"

// RegisterAll registers every built-in stage type in r.
func RegisterAll(r *registry.Registry) error {
	for _, register := range []func(*registry.Registry) error{
		registerGeneric,   // generic.go: small stages for tests and runner benchmarks
		registerData,      // data.go: dataset, normalize, precompute, split
		registerLearning,  // learning.go: sample, embed, train, evaluate
		registerKernel,    // kernel.go: kernel tables and figures
		registerVisual,    // visual.go: t-SNE/PCA scatter plots of learned features
		registerFunctions, // functions.go: pipeline functions (dataset_present)
	} {
		if err := register(r); err != nil {
			return err
		}
	}
	return nil
}

// Default returns a registry holding every built-in stage type.
func Default() *registry.Registry {
	r := registry.New()
	if err := RegisterAll(r); err != nil {
		panic(err) // a built-in stage with an invalid schema is a programming error
	}
	return r
}
