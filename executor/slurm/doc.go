// Package slurm is the Slurm executor: a runner.Executor that runs every
// stage instance as one Slurm batch job, and the job's side of it.
//
//   - Executor (executor.go), made by New, stages a task's inputs into the
//     shared Store, submits `hylaflow exec-stage --store DIR KEY`, follows
//     the job with squeue/scontrol and ingests the outputs the job wrote
//     into the local cache. The runner's scheduler does not know it is
//     Slurm: it sees an Executor whose stages run elsewhere.
//   - Store (store.go) is the shared store directory every compute node
//     sees: artifact objects, task specs, submission and done-records,
//     written atomically, no database.
//   - RunJob (job.go) is what `hylaflow exec-stage --store` runs on a compute node:
//     the local executor over the store's files, then the done-record.
//
// It talks to Slurm only through the slurm.Cluster interface of the
// top-level package slurm (imported here as slurmcmd): that package is a
// library of Slurm's commands and their parsers with no engine in it, so
// it is tested against its fake and a real cluster on its own. The
// executor's tests run the shared conformance suite (runner/executortest)
// against the fake cluster in every `go test ./...`, and against a real
// one with HYLAFLOW_SLURM=1 (docs/slurm.md).
package slurm
