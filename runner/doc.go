// Package runner plans a loaded pipeline (package pipeline) against the
// cache and executes it on a worker pool. It knows stages only through the
// registry and artifacts only as opaque values, so it builds without any of
// the maths (a test checks its dependencies).
//
// A run goes through three steps after pipeline.Load:
//
//   - MakePlan (plan.go) computes each instance's cache key from its type,
//     version, canonical parameters, fingerprint and its producers' keys
//     (key.go builds every key record), looks the keys up in the store,
//     and says why each stage that is not cached runs.
//   - Execute and Run (exec.go) hand the plan to the scheduler
//     (exec_sched.go): the ready queue in plan order, -j slots, the memory
//     budget (resources { mem } against --mem, for executors that run
//     stages in this process), keep-going, cancellation, retries of stages
//     whose key another process holds (BusyError) or whose stored input is
//     unreadable (InputError). It talks to executors only through the
//     Executor interface and, for in-process ones, InProcess.
//   - An Executor runs one Task: Local (local.go) claims the key in the
//     cache, loads the inputs, runs the stage and stores its outputs;
//     remote executors live in their own packages under executor/ (the
//     Slurm one submits `hylaflow exec-stage --store` jobs and ingests their
//     outputs). Claims live in the cache (one process computes a key
//     at a time); the memo (Memo, local.go) shares decoded artifacts
//     between the stages of one run and drops each after its last
//     consumer; executortest is the conformance suite every executor
//     passes.
//
// The run record (stages, timings, reasons, provenance) is written to the
// store as the run goes; publish.go copies chosen outputs out of the
// cache afterwards.
package runner
