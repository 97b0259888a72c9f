#!/usr/bin/env bash
# ci-slurm.sh [HYLAFLOW_BIN] — the Slurm part of CI (.ci/run calls it).
#
# Starts the single-node cluster (scripts/slurm-dev-cluster.sh up), runs the
# Slurm integration tests (the client against the real sbatch/squeue/
# scontrol/scancel, and the executor: digests equal local, a failing stage,
# the conformance suite, a driver killed with SIGKILL and restarted, Ctrl-C),
# then runs the quickstart with `hylaflow run --executor slurm` and checks
# that every stored artifact has the digest of a local run, and that a second
# Slurm run submits nothing. Stops the cluster again unless it was already
# running before. HYLAFLOW_BIN (default: built from this checkout) is the
# hylaflow binary for the quickstart runs. Must run as root (see
# slurm-dev-cluster.sh).
set -Eeuo pipefail
trap 'echo "::error:: ci-slurm.sh failed at line $LINENO: $BASH_COMMAND" >&2' ERR

cd "$(dirname "${BASH_SOURCE[0]}")/.."
state=${HYLAFLOW_SLURM_STATE:-/var/tmp/hylaflow-slurm}
export SLURM_CONF=$state/slurm.conf
work=$(mktemp -d)
was_up=0
if scripts/slurm-dev-cluster.sh status >/dev/null 2>&1; then was_up=1; fi
cleanup() {
	rm -rf "$work"
	if [ $was_up = 0 ]; then scripts/slurm-dev-cluster.sh down || true; fi
}
trap cleanup EXIT

bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/hylaflow
	go build -o "$bin" ./cmd/hylaflow
fi

echo "--- cluster up"
scripts/slurm-dev-cluster.sh up
sinfo

echo "--- integration tests (HYLAFLOW_SLURM=1)"
HYLAFLOW_SLURM=1 go test -count=1 -timeout 15m -run 'TestClusterIntegration|TestSlurmCluster' ./slurm/ ./runner/

echo "--- quickstart: local vs --executor slurm"
qs=(pipelines/quickstart.hcl -var 'seeds=[0,1]' -var epochs=20)
"$bin" run -q --cache "$work/local" "${qs[@]}"
"$bin" run -q --cache "$work/slurm" --executor slurm --store "$work/store" "${qs[@]}"
digests() {
	"$bin" cache ls --json --cache "$1" |
		python3 -c 'import json, sys
for a in sorted(json.load(sys.stdin), key=lambda a: (a["address"], a["output"])):
    print(a["address"], a["output"], a["key"], a["digest"])'
}
digests "$work/local" >"$work/local.txt"
digests "$work/slurm" >"$work/slurm.txt"
if ! diff -u "$work/local.txt" "$work/slurm.txt"; then
	echo "the Slurm run's artifacts differ from the local run's (diff above)" >&2
	exit 1
fi
echo "$(wc -l <"$work/local.txt") artifacts, identical keys and digests"
jobs_before=$(find "$work/store/logs" -name '*.out' | wc -l)
out=$("$bin" run --cache "$work/slurm" --executor slurm --store "$work/store" "${qs[@]}")
echo "$out" | tail -n 1
jobs_after=$(find "$work/store/logs" -name '*.out' | wc -l)
if [ "$jobs_after" != "$jobs_before" ] || ! echo "$out" | grep -qE 'nothing to do| 0 ran,'; then
	echo "the second Slurm run submitted jobs ($jobs_before → $jobs_after) or ran stages" >&2
	exit 1
fi
echo "ci-slurm: ok"
