#!/usr/bin/env bash
# Reduced runs of every paper pipeline (few seeds, few epochs), so that they
# stay runnable: each must finish, its report must be complete, and a rerun
# must compute nothing. The ablation sweep also checks that adding one value
# runs only the new cells.
#
#   bash .ci/reduced.sh BIN WORKDIR
#
# BIN is a built hylaflow; WORKDIR receives the cache and the reports.
set -Eeuo pipefail
trap 'echo "::error:: .ci/reduced.sh failed at line $LINENO: $BASH_COMMAND" >&2' ERR

bin=${1:?usage: reduced.sh BIN WORKDIR}
work=${2:?usage: reduced.sh BIN WORKDIR}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export HYLAFLOW_CACHE="$work/reduced-cache"

fail() { echo "::error:: $*" >&2; exit 1; }

# run NAME FILE ARGS...: run the pipeline, then again (must be fully cached),
# then write its report to $work/report-NAME.
run() {
  local name=$1 file=$2
  shift 2
  echo "--- $name: hylaflow run $file $* [$(date -u +%H:%M:%S)]"
  local t0=$SECONDS
  "$bin" run -q "$file" "$@" 2>&1 | tee "$work/$name-1.txt"
  echo "--- $name: cold run took $((SECONDS - t0)) s"
  "$bin" run -q "$file" "$@" 2>&1 | tee "$work/$name-2.txt"
  grep -Eq '^nothing to do: (all [0-9]+ stages|the 1 stage is) cached' "$work/$name-2.txt" ||
    fail "$name: the second run was not fully cached"
}

# report NAME [ARGS...]: hylaflow report latest into $work/report-NAME; a
# missing table fails it (exit 1).
report() {
  local name=$1
  shift
  "$bin" report latest --out "$work/report-$name" "$@" >"$work/report-$name.txt"
  cat "$work/report-$name.txt"
}

# Table 1: two seeds, 10 epochs, every dataset and model; the report must
# have a number in every cell whose data is present. The Reddit section
# (reddit = "auto") runs on the Reddit-scale synthetic graph: the shared
# datasets have no Reddit files.
run table1 pipelines/table1.hcl -var 'seeds=[0,1]' -var epochs=10
report table1
for model in hyla-sgc rff-sgc sgc gcn gat hgcn lgcn hnn hyla-gcn; do
  grep -Eq "^\| $model \|( [0-9.]+ ± [0-9.]+ [^|]*\|){5}\$" "$work/report-table1.txt" ||
    fail "table1: the $model row does not have five measured cells"
done
grep -Eq '^\| synthetic_sbm \| hyla-sgc \| 2 \| [0-9.]+ ± [0-9.]+ \|.*no paper value' "$work/report-table1.txt" ||
  fail "table1: no Reddit-scale (synthetic graph) cell with two runs"
# A scoped run (datasets, models): its stages keep the full table's keys, so
# only its four smaller tables (table1, table1_val, table1_gnn,
# table1_one_protocol) run.
"$bin" run -q pipelines/table1.hcl -var 'seeds=[0,1]' -var epochs=10 -var 'datasets=["cora"]' \
  -var 'models=["hyla-sgc","gcn"]' 2>&1 | tee "$work/table1-scoped.txt"
grep -Eq '^[0-9]+ stages: 4 ran, [0-9]+ cached, 0 failed' "$work/table1-scoped.txt" ||
  fail "table1: the scoped run did more than its four tables"

# Table 2: R8 only (the corpus build dominates), one seed, two epochs, both settings.
run table2 pipelines/table2.hcl -var 'seeds=[0]' -var epochs=2 -var 'datasets=["r8"]'
report table2
# TextGCN (baselines = "on"): a measured R8 cell in the transductive and the
# inductive table (two epochs: a smoke check, not the paper's number).
# One seed: the cell shows "n = 1" (one run has no std), not "± 0.0".
test "$(grep -Ec '^\| textgcn \| [0-9.]+ \(n = 1\) \(paper [0-9.]+,' "$work/report-table2.txt")" = 2 ||
  fail "table2: the TextGCN rows do not both have a measured R8 cell"
grep -q '^# Table 2 (inductive, baseline): TextGCN' "$work/report-table2.txt" ||
  fail "table2: no inductive TextGCN table"

# The ogbn-products-sized pipeline at its tiny size (the full size needs most
# of a 24 GB machine): both settings train and the table has both cells.
run products pipelines/products.hcl -var size=tiny -var epochs=5
report products
test "$(grep -Ec '^\| hyla-sgc-(inductive|transductive) +\| [0-9.]+ (± |\(n = 1\))' "$work/report-products.txt")" = 2 ||
  fail "products: the table does not have both settings' cells"

# Figure 1 / appendix E: the kernel figures on a coarse grid.
run kernel pipelines/kernel.hcl -var grid=21
# (no evaluate table: its outputs are the figure bundle's PNG/SVG/CSV files)
"$bin" cache ls kernel.figure1 >"$work/kernel-ls.txt"
grep -Eq '^[0-9a-f]{12} +figure +figure ' "$work/kernel-ls.txt" || fail "kernel: no figure artifact in the cache"
# report writes a run's figures too, not only evaluate tables, and lists them.
report kernel
for f in kernel_distance.png disk_kernel.png error.png summary.json; do
  test -s "$work/report-kernel/kernel.figure1/$f" || fail "kernel: report did not write kernel.figure1/$f"
  grep -q "^  kernel.figure1/$f\$" "$work/report-kernel.txt" || fail "kernel: report's listing lacks $f"
done

# Figure 3: t-SNE / PCA of learned features, test rows only, few iterations.
run visualize pipelines/visualize.hcl -var epochs=5 -var iterations=250 -var rows=test

# Table 6 / Figure 4: timing on Pubmed, one seed, few epochs, timed without the cache.
"$bin" run -q --no-cache pipelines/timing.hcl -var 'seeds=[0]' -var epochs=10
report timing --timing
for model in hyla-sgc rff-sgc sgc gcn gat hnn hgcn lgcn; do
  grep -q "| pubmed | $model |" "$work/report-timing.txt" || fail "timing: no $model row"
done
# Each baseline's time over SGC's beside Table 6's ratio (GPU seconds over SGC's 0.37).
for ratio in gat:33.8 hnn:6.5 hgcn:41.6 lgcn:29.5; do
  model=${ratio%%:*} paper=${ratio#*:}
  grep -Eq "^\| pubmed \| $model \| [0-9.]+ \| [0-9.]+× \| ${paper/./\\.}× \|\$" "$work/report-timing.txt" ||
    fail "timing: no ${model^^}/SGC ratio beside the paper's ($paper×)"
done

# The ablation sweep: two dims × two seeds, then a third dim runs only its cells.
run ablation pipelines/ablation-dim.hcl -var 'dims=[2,4]' -var 'seeds=[0,1]' -var epochs=5
"$bin" run -q pipelines/ablation-dim.hcl -var 'dims=[2,4,8]' -var 'seeds=[0,1]' -var epochs=5 2>&1 | tee "$work/ablation-3.txt"
grep -Eq ' [1-9][0-9]* ran, [1-9][0-9]* cached, 0 failed' "$work/ablation-3.txt" ||
  fail "ablation: adding a dimension did not reuse the finished cells"
ran=$(grep -Eo ' [0-9]+ ran' "$work/ablation-3.txt" | grep -Eo '[0-9]+')
# one more dim: two samples, two embeds or trains per model... at most a handful
# of stages per seed plus the evaluate; certainly not the whole sweep again.
total=$(grep -Eo '^[0-9]+ stages' "$work/ablation-3.txt" | grep -Eo '[0-9]+')
[ "$ran" -lt $((total / 2)) ] || fail "ablation: $ran of $total stages ran after adding one dimension"
echo "--- ablation: adding d0=8 ran $ran of $total stages"
report ablation

# The validation grid: a 2 × 1 × 2 grid on Disease (one split and precompute
# per seed), then a wider lr_c list runs only the new cells.
run search pipelines/search.hcl -var dataset=disease -var 'seeds=[0,1]' -var 'scales=[0.5,1]' \
  -var 'lr_es=[1]' -var 'lr_cs=[0.1,0.3]' -var epochs=5
report search
grep -Eq '^\| s=1 lr_e=1 lr_c=0.3 \| [0-9.]+ ± [0-9.]+' "$work/report-search.txt" || fail "search: no validation cell for s=1 lr_e=1 lr_c=0.3"
"$bin" run -q pipelines/search.hcl -var dataset=disease -var 'seeds=[0,1]' -var 'scales=[0.5,1]' \
  -var 'lr_es=[1]' -var 'lr_cs=[0.1,0.3,1]' -var epochs=5 2>&1 | tee "$work/search-3.txt"
grep -Eq '^[0-9]+ stages: 5 ran, ' "$work/search-3.txt" || fail "search: adding lr_c = 1 did not run just its 4 cells and the table"
