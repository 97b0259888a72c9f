package runner

import "fmt"

// ProvenanceStore is a RunStore that keeps a provenance document with each
// run (what produced it: the build, the pipeline and variable files, the
// machine). *cache.Cache implements it.
type ProvenanceStore interface {
	SetRunProvenance(runID int64, doc []byte) error
}

// beginRun records the start of a run in store, with opts.Provenance when
// there is one and the store keeps it.
func beginRun(store RunStore, pipeline string, opts RunOptions) (int64, error) {
	runID, err := store.BeginRun(pipeline, opts.Args)
	if err != nil {
		return 0, fmt.Errorf("record the run: %w", err)
	}
	if opts.Provenance == nil {
		return runID, nil
	}
	if ps, ok := store.(ProvenanceStore); ok {
		if err := ps.SetRunProvenance(runID, opts.Provenance); err != nil {
			store.FinishRun(runID, RunFailed)
			return 0, fmt.Errorf("record the run's provenance: %w", err)
		}
	}
	return runID, nil
}
