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
# run, and that a second Slurm run submits nothing. Then the same with a
# remote store (SeaweedFS, scripts/s3-dev-server.sh) as the ONLY thing the
# driver and its jobs share: the remote-backed integration tests, and the
# quickstart run by a driver whose cache lives on a tmpfs in a private
# mount namespace (the jobs, started by slurmd outside it, cannot see a
# byte of it) with the jobs' scratch caches in a TMPDIR of their own; its
# digests must equal the local run's, and with the server stopped a run
# must fail naming the remote. Stops the cluster again unless it was already
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
	go build -o "$work/" ./cmd/hylaflow ./cmd/hylaflow-remote # the remote helper beside it
fi

echo "--- cluster up"
scripts/slurm-dev-cluster.sh up
sinfo

# The S3 server of the remote-store part, on ports of its own, data in $work.
bash scripts/s3-dev-server.sh build
export HYLAFLOW_WEED=${HYLAFLOW_WEED:-${HYLAFLOW_S3_STATE:-/var/tmp/hylaflow-s3}/bin/weed}
export HYLAFLOW_S3_STATE=$work/s3 HYLAFLOW_S3_PORT=${HYLAFLOW_SLURM_S3_PORT:-18433}
bash scripts/s3-dev-server.sh up
cleanup() {
	bash scripts/s3-dev-server.sh down || true
	rm -rf "$work"
	if [ $was_up = 0 ]; then scripts/slurm-dev-cluster.sh down || true; fi
}
eval "$(bash scripts/s3-dev-server.sh env)"
remote=s3://hylaflow/ci-slurm

echo "--- integration tests (HYLAFLOW_SLURM=1, HYLAFLOW_SLURM_REMOTE=$remote)"
HYLAFLOW_SLURM=1 HYLAFLOW_SLURM_REMOTE=$remote/tests go test -count=1 -v -timeout 15m -run 'TestClusterIntegration|TestSlurmCluster' ./slurm/ ./executor/slurm/ >"$work/tests.txt" 2>&1 ||
	{ cat "$work/tests.txt"; exit 1; }
grep -E '^(--- |ok|FAIL)' "$work/tests.txt"
if grep -q -- '--- SKIP' "$work/tests.txt"; then
	echo "the Slurm integration tests skipped some (above)" >&2
	exit 1
fi

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

echo "--- quickstart: local vs --executor slurm --store $remote/quickstart, nothing else shared"
d=$work/remote-only
mkdir -p "$d/driver" "$d/jobtmp"
"$bin" run -q --cache "$d/local" pipelines/quickstart.hcl -var 'seeds=[0,1]' -var epochs=20
digests "$d/local" >"$d/local.txt"
# The driver's cache exists only in the driver's mount namespace; the
# jobs get TMPDIR=$d/jobtmp for their scratch caches (sbatch exports the
# driver's environment, as it does the AWS settings).
TMPDIR=$d/jobtmp unshare --mount --propagation private /bin/sh -c '
	set -e
	mount -t tmpfs driver "$1/driver"
	"$2" run --cache "$1/driver/cache" --executor slurm --store "$3" pipelines/quickstart.hcl -var "seeds=[0,1]" -var epochs=20 >"$1/run1.txt" 2>&1
	"$2" run --cache "$1/driver/cache" --executor slurm --store "$3" pipelines/quickstart.hcl -var "seeds=[0,1]" -var epochs=20 >"$1/run2.txt" 2>&1
	"$2" cache ls --json --cache "$1/driver/cache" >"$1/driver.json"
' sh "$d" "$bin" "$remote/quickstart" || { cat "$d"/run*.txt; exit 1; }
grep -q 'jobs exchange artifacts through the remote store' "$d/run1.txt" || { cat "$d/run1.txt"; echo "the run did not use the remote store" >&2; exit 1; }
python3 -c 'import json, sys
for a in sorted(json.load(sys.stdin), key=lambda a: (a["key"], a["output"])):
    print(a["key"], a["output"], a["digest"])' <"$d/driver.json" >"$d/remote.txt"
if ! diff -u "$d/local.txt" "$d/remote.txt"; then
	echo "the remote-only Slurm run's artifacts differ from the local run's (diff above)" >&2
	exit 1
fi
if [ -n "$(ls -A "$d/driver")" ] || [ -n "$(ls -A "$d/jobtmp")" ]; then
	echo "the driver's cache leaked out of its namespace, or the jobs left scratch files: $(ls -A "$d/driver" "$d/jobtmp")" >&2
	exit 1
fi
grep -qE 'nothing to do|^[0-9]+ stages: 0 ran,' "$d/run2.txt" || { cat "$d/run2.txt"; echo "the second remote-only run ran stages" >&2; exit 1; }
echo "quickstart through the remote only: $(wc -l <"$d/local.txt") artifacts, identical keys and digests"

echo "--- the remote store down: the run fails naming it"
bash scripts/s3-dev-server.sh down
if "$bin" run -q --cache "$d/down" --executor slurm --store "$remote/down" pipelines/quickstart.hcl -var 'seeds=[0]' -var epochs=2 >"$d/down.txt" 2>&1; then
	echo "a run with its remote store down succeeded" >&2
	exit 1
fi
grep -q "remote $remote/down" "$d/down.txt" || { cat "$d/down.txt"; echo "the failure does not name the remote" >&2; exit 1; }
echo "ci-slurm: ok"
