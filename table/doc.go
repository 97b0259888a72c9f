// Package table is the one home of the evaluate stage's table artifact:
// the layout of its table.json member (Doc, Cell), how every report
// formats its numbers (Spread: "mean ± std", "n = 1"), and the Markdown
// and CSV members made from it. The evaluate stage (stages) writes a Doc;
// runreport and runs read it with Parse; a renamed field is then a compile
// error, not a reader that silently finds nothing.
//
// It is a small top-level package, importing nothing of the project, so
// that both sides may use it: the stages (the domain) write tables and
// runreport/runs (which import the runner) read them, while the engine
// (runner, cache, registry) never needs it (runner/deps_test.go).
//
// # One spread convention: the sample standard deviation
//
// Every "±" that hylaflow prints — the evaluate tables, the text and HTML
// reports, runs diff and report --compare — is the sample standard
// deviation s = sqrt(Σ(x−mean)²/(n−1)) of a cell's n values, and each of
// them says so ("mean ± sample std"). Why the sample std (ddof = 1) rather
// than the population std (ddof = 0, numpy's np.std default):
//   - the comparisons need it: runs diff judges a difference of means
//     against 2·sqrt(sA²/nA + sB²/nB), the standard error of Welch's test,
//     which is defined with the sample variance; a table and a diff of the
//     same cells on one page now print the same std;
//   - it is what R's sd, pandas' DataFrame.std, MATLAB's std and
//     statistics.stdev compute, and what "mean ± std over 10 seeds" means
//     in most papers; numpy users get it with np.std(x, ddof=1);
//   - it is undefined for one value, which is the honest answer: a single
//     run prints "72.1 (n = 1)", never "72.1 ± 0.0", which reads as a
//     spread of zero.
//
// Tables written by evaluate versions before 4 hold the population std
// and no std_ddof field; Parse converts them, so every reader sees one
// convention whatever the age of the cached artifact.
package table
