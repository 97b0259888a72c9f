package table

// Provenance names the run that published a table: the "run" field a
// published table.json carries and the header of a generated result page.
// The cached artifact never holds it (its bytes are the same whichever run
// made or reused it); it is added when a run publishes.
type Provenance struct {
	// RunID is the run's number in the cache that made it.
	RunID int64 `json:"id"`
	// Command is the command line as typed ("hylaflow run pipelines/table1.hcl -var docs=true").
	Command string `json:"command"`
	// Pipeline is the pipeline file, relative to the repository when it is in one.
	Pipeline string `json:"pipeline"`
	// Revision is the VCS revision of the hylaflow that ran, "+dirty"
	// appended when its work tree had uncommitted changes; "" when the
	// build was not stamped.
	Revision string `json:"revision"`
	// Kernel is the vector kernels' path ("avx512", "avx2", "generic";
	// the three give identical bits).
	Kernel string `json:"kernel"`
	// Vars are the -var settings (NAME → VALUE as given); empty for a run
	// with the pipeline's defaults.
	Vars map[string]string `json:"variables"`
}
