// Package pipeline is hylaflow's pipeline language: it turns an HCL
// pipeline file into the expanded instance graph the runner plans and
// executes, and knows nothing of caches, keys or executors (a test checks
// its dependencies).
//
//   - Load and LoadSource (load*.go) parse the file, expand for_each and
//     matrix blocks, resolve stage references and check every parameter
//     against its type's schema (registry's parameter codec), giving a
//     Pipeline: instances in a stable topological order, with their
//     resources and the publish blocks. The language is described in
//     docs/pipeline-language.md.
//   - Errors are hcl diagnostics with file:line:col, written for a
//     terminal or as JSON by WriteDiagnostics and WriteDiagnosticsJSON
//     (diag.go); limits.go bounds what a file may ask for (string sizes,
//     nesting, instance count) so hostile input fails with a diagnostic.
//   - FormatFile (format.go) is `hylaflow fmt`.
//   - The graph views (graph.go): DOT and Mermaid of every instance, and
//     the collapsed view (one node per stage block, coloured by a run's
//     statuses) that `hylaflow graph` and the HTML report draw.
//   - Preflight asks each stage type what running it needs from this
//     machine; Load does not call it, a pipeline is valid whatever the
//     machine holds.
package pipeline
