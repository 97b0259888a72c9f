#!/usr/bin/env bash
# Whole-process timings of the runner: the quickstart cold (fresh cache) and
# fully cached, and the 502-stage fan-out of cheap generic stages (the runner's
# own overhead per stage), each repeated, reported as the median with the
# range and the load average. When snakemake is on PATH (Debian's package
# snakemake), the same fan-out as a Snakefile (500 rules' jobs between a
# source and a sink) is timed too: its no-op run (everything up to date)
# against hylaflow's fully cached run, in the same session.
#
#   bash scripts/bench-runner.sh [BIN] [REPEATS]
#
# BIN defaults to a fresh build in a temporary directory; REPEATS to 5.
# SNAKEMAKE=0 skips Snakemake.
set -Eeuo pipefail
[ -n "${EPOCHREALTIME:-}" ] || { echo "bench-runner.sh needs bash 5 (\$EPOCHREALTIME)" >&2; exit 1; }
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
  bin="$tmp/hylaflow"
  go build -o "$bin" ./cmd/hylaflow
fi
repeats=${2:-5}

# wall FILE CACHE: run once, print the wall time in seconds; the CPU time
# (user + system of the run's processes: a fully cached run starts no
# second one) is appended to $tmp/cpu.
wall() {
  timed "$bin" run -q "$1" --cache "$2"
}

# timed CMD...: run CMD (stdout discarded), print its wall time in seconds
# and append its CPU time (user + system of its processes) to $tmp/cpu.
timed() {
  local t0 t1
  times >"$tmp/times0"
  # $EPOCHREALTIME, not $(date …): spawning date took ~10 ms of the
  # interval on a slow-forking VM, and its CPU went into the children's.
  t0=$EPOCHREALTIME
  "$@" >/dev/null
  t1=$EPOCHREALTIME
  times >"$tmp/times1"
  # The second line of `times` is the shell's finished children: user, system.
  awk 'function s(t,  m) { split(t, m, "m"); sub("s", "", m[2]); return m[1] * 60 + m[2] }
       FNR == 2 { c[FILENAME] = s($1) + s($2) }
       END { printf "%.3f\n", c[ARGV[2]] - c[ARGV[1]] }' "$tmp/times0" "$tmp/times1" >>"$tmp/cpu"
  echo "$t1 - $t0" | bc
}

# median: of the numbers on stdin, with the min and max.
median() {
  sort -g | awk '{a[NR]=$1} END {m = (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2;
    printf "median %.3f s (min %.3f, max %.3f, n=%d)", m, a[1], a[NR], NR}'
}

# measure NAME FILE: cold runs on fresh caches, then cached runs on the last one.
measure() {
  local name=$1 file=$2 stages
  : >"$tmp/cpu"
  for i in $(seq "$repeats"); do
    rm -rf "$tmp/c"
    wall "$file" "$tmp/c" >>"$tmp/coldw"
  done
  median <"$tmp/coldw" >"$tmp/cold"
  median <"$tmp/cpu" >"$tmp/coldcpu"
  : >"$tmp/cpu"
  for i in $(seq "$repeats"); do wall "$file" "$tmp/c" >>"$tmp/cachedw"; done
  median <"$tmp/cachedw" >"$tmp/cached"
  median <"$tmp/cpu" >"$tmp/cachedcpu"
  rm -f "$tmp/coldw" "$tmp/cachedw"
  stages=$("$bin" plan "$file" --cache "$tmp/c" | grep -Eo 'all [0-9]+ stages' | grep -Eo '[0-9]+')
  printf '%-12s %4s stages  cold: %s; CPU %s\n' "$name" "$stages" "$(cat "$tmp/cold")" "$(cat "$tmp/coldcpu")"
  printf '%-12s %4s stages  cached: %s; CPU %s\n' "$name" "$stages" "$(cat "$tmp/cached")" "$(cat "$tmp/cachedcpu")"
  cp "$tmp/cached" "$tmp/$name.cached"
  cp "$tmp/cachedcpu" "$tmp/$name.cachedcpu"
}

# snakemake_noop: the fan-out as a Snakefile, run once to make its files,
# then its no-op runs timed; the ratios to hylaflow's fully cached fan-out.
snakemake_noop() {
  local d="$tmp/snakemake"
  mkdir -p "$d"
  cat >"$d/Snakefile" <<'SNAKE'
# 1 source, 500 fan-out jobs, 1 sink: testdata/bench/fanout502.hcl's shape.
rule all:
    input: "sum.txt"
rule source:
    output: "source.txt"
    shell: "echo 1 > {output}"
rule fan:
    input: "source.txt"
    output: "fan/{i}.txt"
    shell: "cat {input} > {output}"
rule sink:
    input: expand("fan/{i:03d}.txt", i=range(500))
    output: "sum.txt"
    shell: "cat {input} > {output}"
SNAKE
  (cd "$d" && snakemake -c1 -q >/dev/null 2>&1) || { echo "snakemake: the cold run failed"; return; }
  : >"$tmp/cpu"
  : >"$tmp/smw"
  for i in $(seq "$repeats"); do (cd "$d" && timed snakemake -c1 -q 2>/dev/null) >>"$tmp/smw"; done
  printf '%-12s %4s jobs    no-op: %s; CPU %s (%s)\n' snakemake 502 "$(median <"$tmp/smw")" "$(median <"$tmp/cpu")" "$(snakemake --version)"
  local hw hc sw sc
  hw=$(awk '{print $2}' "$tmp/fanout502.cached"); hc=$(awk '{print $2}' "$tmp/fanout502.cachedcpu")
  sw=$(median <"$tmp/smw" | awk '{print $2}'); sc=$(median <"$tmp/cpu" | awk '{print $2}')
  awk -v hw="$hw" -v hc="$hc" -v sw="$sw" -v sc="$sc" 'BEGIN {
    printf "fanout502 cached vs snakemake no-op (medians): %.1fx less wall, %.1fx less CPU\n", sw / hw, (hc > 0 ? sc / hc : 0) }'
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
measure quickstart pipelines/quickstart.hcl
measure fanout502 testdata/bench/fanout502.hcl
if [ "${SNAKEMAKE:-1}" != 0 ] && command -v snakemake >/dev/null; then
  snakemake_noop
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
