#!/usr/bin/env bash
# ci-slurm.sh [HYLAFLOW_BIN] — the Slurm part of CI (.ci/run calls it).
#
# Starts the single-node cluster (scripts/slurm-dev-cluster.sh up), runs the
# Slurm integration tests (the client against the real sbatch/squeue/
# scontrol/scancel, and the executor: digests equal local, a failing stage,
# the conformance suite, a driver killed with SIGKILL and restarted, Ctrl-C),
# then runs the quickstart, a small table1 subset (1 seed, 2 epochs, all
# five datasets; needs $HYLAFLOW_DATA) and examples/baseline (a command
# stage running Python) with `hylaflow run --executor slurm`
# and checks that every stored artifact has the key and digest of a local
# run, and that a second Slurm run submits nothing. Stops the cluster again unless it was already
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
HYLAFLOW_SLURM=1 go test -count=1 -timeout 15m -run 'TestClusterIntegration|TestSlurmCluster' ./slurm/ ./executor/slurm/

# key, output, digest of every stored artifact (not the address: instances
# with equal keys share one entry, recorded under whichever ran first).
digests() {
	"$bin" cache ls --json --cache "$1" |
		python3 -c 'import json, sys
for a in sorted(json.load(sys.stdin), key=lambda a: (a["key"], a["output"])):
    print(a["key"], a["output"], a["digest"])'
}

# same NAME PIPELINE-ARGS...: run the pipeline locally and through Slurm;
# every artifact must have the same key and digest; a second Slurm run must
# submit nothing.
same() {
	local name=$1 d=$work/$1
	shift
	echo "--- $name: local vs --executor slurm"
	"$bin" run -q --cache "$d/local" "$@"
	"$bin" run -q --cache "$d/slurm" --executor slurm --store "$d/store" "$@"
	digests "$d/local" >"$d/local.txt"
	digests "$d/slurm" >"$d/slurm.txt"
	if ! diff -u "$d/local.txt" "$d/slurm.txt"; then
		echo "$name: the Slurm run's artifacts differ from the local run's (diff above)" >&2
		exit 1
	fi
	echo "$name: $(wc -l <"$d/local.txt") artifacts, identical keys and digests"
	local before after out
	before=$(find "$d/store/logs" -name '*.out' | wc -l)
	out=$("$bin" run --cache "$d/slurm" --executor slurm --store "$d/store" "$@" 2>&1)
	echo "$out" | tail -n 1
	after=$(find "$d/store/logs" -name '*.out' | wc -l)
	if [ "$after" != "$before" ] || ! echo "$out" | grep -qE 'nothing to do| 0 ran,'; then
		echo "$name: the second Slurm run submitted jobs ($before → $after) or ran stages" >&2
		exit 1
	fi
}

same quickstart pipelines/quickstart.hcl -var 'seeds=[0,1]' -var epochs=20
if [ -d "${HYLAFLOW_DATA:-}" ]; then
	same table1 pipelines/table1.hcl -var 'seeds=[0]' -var epochs=2 -var reddit=off
	# A command stage (a Python program) as a Slurm job: its scikit-learn
	# model is deterministic too, so every digest must match.
	same baseline examples/baseline/baseline.hcl --allow-commands -var 'seeds=[0]' -var epochs=20
else
	echo "--- table1 subset skipped: HYLAFLOW_DATA is not a directory"
fi
echo "ci-slurm: ok"
