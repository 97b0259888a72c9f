// Package executor chooses where a run's stages execute. Each remote
// executor is its own package below it (executor/slurm); the local,
// in-process executor is runner.Local. Flags are the `hylaflow run` flags
// that select one (--executor, and the Slurm executor's --store,
// --partition, --account, --max-jobs) and Build makes it, so a new
// executor adds its package here and its case to Flags.
//
// Executor packages import the runner (its Executor interface, Task,
// Result and stores) and never the CLI; the runner imports none of them
// (runner/deps_test.go).
package executor
