#!/usr/bin/env bash
# ci-remote.sh — the remote artifact store against a real S3 server
# (SeaweedFS, scripts/s3-dev-server.sh), for .ci/run:
#
#   bash scripts/ci-remote.sh BIN WORKDIR [REDUCED_CACHE]
#
# 1. the remote package's tests, with the integration tests (which start
#    a server of their own);
# 2. two caches sharing one remote: the second reproduces the quickstart
#    (and, given REDUCED_CACHE, the reduced table1 that .ci/reduced.sh ran
#    into it) without computing any stage, with identical digests;
# 3. a damaged payload on the server is detected, the stage recomputed and
#    the remote healed;
# 4. the server stopped in the middle of a run leaves the run successful
#    and the local cache valid.
set -Eeuo pipefail
trap 'echo "::error:: scripts/ci-remote.sh failed at line $LINENO: $BASH_COMMAND" >&2' ERR

bin=${1:?usage: ci-remote.sh BIN WORKDIR [REDUCED_CACHE]}
work=${2:?usage: ci-remote.sh BIN WORKDIR [REDUCED_CACHE]}
reduced=${3:-}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fail() { echo "::error:: $*" >&2; exit 1; }
unset HYLAFLOW_CACHE HYLAFLOW_REMOTE

bash scripts/s3-dev-server.sh build
# The binary just built (cached in the default state directory); the
# server below keeps its data in $work.
export HYLAFLOW_WEED=${HYLAFLOW_WEED:-${HYLAFLOW_S3_STATE:-/var/tmp/hylaflow-s3}/bin/weed}
go test -count=1 -v -run 'TestS3' ./remote | tee "$work/remote-tests.txt"
if grep -q -- '--- SKIP' "$work/remote-tests.txt"; then fail "the S3 integration tests were skipped"; fi

export HYLAFLOW_S3_STATE="$work/s3"
bash scripts/s3-dev-server.sh up
trap 'bash scripts/s3-dev-server.sh down' EXIT
eval "$(bash scripts/s3-dev-server.sh env)"
remote=s3://hylaflow/ci
a="$work/remote-a" b="$work/remote-b"

# digests CACHE: "address output digest" lines of every stored artifact.
digests() {
  "$bin" cache ls --cache "$1" --json |
    python3 -c 'import json,sys; [print(a["address"], a["output"], a["digest"]) for a in json.load(sys.stdin)]' | sort
}

echo "--- quickstart: cache A computes and pushes, cache B fetches"
"$bin" run -q --cache "$a" --remote "$remote" pipelines/quickstart.hcl 2>&1 | tee "$work/remote-q1.txt"
grep -Eq '^remote s3://hylaflow/ci: fetched 0 stages .*pushed 20 ' "$work/remote-q1.txt" || fail "cache A did not push the quickstart"
"$bin" plan --cache "$b" --remote "$remote" pipelines/quickstart.hcl | tee "$work/remote-plan.txt"
grep -Eq '^remote: 20 stages, [0-9.]+ [KM]iB to fetch' "$work/remote-plan.txt" || fail "plan did not say what it would fetch"
"$bin" run -q --cache "$b" --remote "$remote" pipelines/quickstart.hcl 2>&1 | tee "$work/remote-q2.txt"
grep -Eq '^nothing to do: all 20 stages cached' "$work/remote-q2.txt" || fail "cache B computed a quickstart stage"
grep -q 'computed nothing here' "$work/remote-q2.txt" || fail "cache B did not say it computed nothing"
diff <(digests "$a") <(digests "$b") || fail "the caches hold different digests"
"$bin" runs show --cache "$b" >"$work/remote-show.txt"
grep -q 'fetched from s3://hylaflow/ci' "$work/remote-show.txt" || fail "the run record does not mark fetched stages"
"$bin" cache verify --cache "$b" --recompute 5 | tee "$work/remote-recompute.txt"

if [ -n "$reduced" ]; then
  echo "--- reduced table1: pushed from .ci/reduced.sh's cache, reproduced by a third cache"
  "$bin" cache push --cache "$reduced" --remote "$remote"
  c="$work/remote-c"
  "$bin" run -q --cache "$c" --remote "$remote" pipelines/table1.hcl -var 'seeds=[0,1]' -var epochs=10 2>&1 | tee "$work/remote-t1.txt"
  grep -Eq '^nothing to do: all [0-9]+ stages cached' "$work/remote-t1.txt" || fail "the reduced table1 computed a stage"
  grep -q 'computed nothing here' "$work/remote-t1.txt" || fail "table1: no 'computed nothing here'"
  # By digest: a key shared by several pipelines of the reduced cache (a
  # sample stage of table1 and of ablation) is listed under the address
  # that stored it last, so addresses differ where the bytes do not.
  diff <(digests "$c" | awk '{print $NF}' | sort -u) <("$bin" cache ls --cache "$reduced" --json |
    python3 -c 'import json,sys; [print(a["digest"]) for a in json.load(sys.stdin)]' | sort -u | grep -Fxf <(digests "$c" | awk '{print $NF}')) ||
    fail "table1: digests differ from the cache that computed them"
fi

echo "--- a damaged payload on the server: detected, recomputed, healed"
key=$("$bin" cache ls --cache "$a" --json | python3 -c 'import json,sys; print([x for x in json.load(sys.stdin) if x["address"]=="evaluate.quickstart"][0]["digest"])')
head -c 1000 /dev/urandom >"$work/garbage"
curl -sf --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" \
  -X PUT --data-binary @"$work/garbage" "$AWS_ENDPOINT_URL/hylaflow/ci/objects/${key:0:2}/$key" >/dev/null
d="$work/remote-d"
"$bin" run -q --cache "$d" --remote "$remote" pipelines/quickstart.hcl 2>&1 | tee "$work/remote-damaged.txt"
grep -q "payload objects/${key:0:2}/$key of evaluate.quickstart .* is damaged" "$work/remote-damaged.txt" || fail "the damaged payload was not reported"
grep -Eq ' 1 ran, 19 cached, 0 failed' "$work/remote-damaged.txt" || fail "the damaged stage was not recomputed (alone)"
diff <(digests "$a") <(digests "$d") || fail "the recomputed stage has another digest"
"$bin" cache remote verify --cache "$d" --remote "$remote"

echo "--- the server stopped mid-run"
e="$work/remote-e"
# Stopped as soon as the run has stored its first payload, not after a fixed
# time: on an idle machine the run can end before any fixed delay, and then
# the stop tests nothing. Every later stage pushes to a server that is gone.
(
  for _ in $(seq 600); do
    [ -n "$(find "$e/objects" -type f 2>/dev/null | head -1)" ] && break
    sleep 0.05
  done
  bash scripts/s3-dev-server.sh down
) &
stopper=$!
"$bin" run -q --cache "$e" --remote "$remote" pipelines/table1.hcl -var 'seeds=[7]' -var epochs=10 -var 'datasets=["disease","airport"]' 2>&1 | tee "$work/remote-down.txt"
wait "$stopper"
grep -q 'is not usable' "$work/remote-down.txt" || fail "the run did not notice the server stopping"
"$bin" cache verify --cache "$e"
echo "remote: ok"
