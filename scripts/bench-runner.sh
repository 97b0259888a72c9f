#!/usr/bin/env bash
# Whole-process timings of the runner: the quickstart cold (fresh cache) and
# fully cached, and the 502-stage fan-out of cheap generic stages (the runner's
# own overhead per stage), each repeated, reported as the median with the
# range and the load average.
#
#   bash scripts/bench-runner.sh [BIN] [REPEATS]
#
# BIN defaults to a fresh build in a temporary directory; REPEATS to 5.
set -Eeuo pipefail
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
  local t0 t1
  times >"$tmp/times0"
  t0=$(date +%s.%N)
  "$bin" run -q "$1" --cache "$2" >/dev/null
  t1=$(date +%s.%N)
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
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
measure quickstart pipelines/quickstart.hcl
measure fanout502 testdata/bench/fanout502.hcl
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
