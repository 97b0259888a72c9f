#!/usr/bin/env bash
# s3-dev-server.sh — an S3-compatible server (SeaweedFS) on 127.0.0.1, for
# hylaflow's remote-store integration tests and for trying `--remote s3://…`.
#
#   scripts/s3-dev-server.sh build    build SeaweedFS's `weed` from its Go module
#                                     (if not built yet) into $HYLAFLOW_WEED
#   scripts/s3-dev-server.sh up       build if needed, start `weed server` with its
#                                     S3 gateway on 127.0.0.1, create the bucket,
#                                     wait until it answers
#   scripts/s3-dev-server.sh down     stop it (by the pid this script recorded)
#   scripts/s3-dev-server.sh status   say whether it runs
#   scripts/s3-dev-server.sh env      print the exports a client needs:
#                                     eval "$(scripts/s3-dev-server.sh env)"
#
# `weed` is built from the module github.com/seaweedfs/seaweedfs at
# $WEED_VERSION in a scratch directory outside the repository (its go.mod
# has replace directives, so `go install pkg@version` refuses it: the module
# is copied out of the module cache and built as the main module). The
# build takes minutes (several hundred packages; measured in docs/remote.md)
# and the binary is cached, so later `up`s start in seconds.
#
# The server: master, volume, filer and S3 gateway in one process (`weed
# server`), data under $STATE/data, one identity with full access
# (hylaflow / hylaflow-dev-secret, in $STATE/s3.json), bucket "hylaflow".
# Every command is idempotent.
#
# Environment:
#   HYLAFLOW_S3_STATE  state directory (default /var/tmp/hylaflow-s3): data, logs, pid
#   HYLAFLOW_WEED      the weed binary (default $HYLAFLOW_S3_STATE/bin/weed, built if missing)
#   HYLAFLOW_S3_PORT   S3 port (default 18333); the master, volume and filer
#                      take HYLAFLOW_S3_PORT+1000, +2000 and +3000 (and their
#                      gRPC ports 10000 above each)
#   HYLAFLOW_S3_BUCKET bucket to create (default hylaflow)
set -euo pipefail

WEED_MODULE=github.com/seaweedfs/seaweedfs
WEED_VERSION=v0.0.0-20261109003541-7506e5f91cd6
STATE=${HYLAFLOW_S3_STATE:-/var/tmp/hylaflow-s3}
WEED=${HYLAFLOW_WEED:-$STATE/bin/weed}
PORT=${HYLAFLOW_S3_PORT:-18333}
MASTER_PORT=$((PORT + 1000))
VOLUME_PORT=$((PORT + 2000))
FILER_PORT=$((PORT + 3000))
BUCKET=${HYLAFLOW_S3_BUCKET:-hylaflow}
ACCESS_KEY=hylaflow
SECRET_KEY=hylaflow-dev-secret
PIDFILE=$STATE/weed.pid
WAIT=${HYLAFLOW_S3_WAIT:-90}

log() { printf 's3-dev-server: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

running() {
	[ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

build() {
	[ -x "$WEED" ] && return 0
	command -v go >/dev/null || die "go is not on PATH"
	local scratch start end
	scratch=$(mktemp -d "${TMPDIR:-/tmp}/hylaflow-weed-build.XXXXXX")
	start=$(date +%s)
	log "building weed from $WEED_MODULE@$WEED_VERSION in $scratch (takes minutes; the binary is cached in $WEED)"
	(
		cd "$scratch"
		printf 'module weedbuild\n\ngo 1.26\n' >go.mod
		src=$(GOFLAGS=-mod=mod go mod download -json "$WEED_MODULE@$WEED_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		[ -d "$src" ] || die "go mod download $WEED_MODULE@$WEED_VERSION gave no directory"
		cp -r "$src" src
		chmod -R u+w src
		cd src
		mkdir -p "$(dirname "$WEED")"
		go build -o "$WEED.tmp" ./weed
		mv "$WEED.tmp" "$WEED"
	) || { rm -rf "$scratch"; die "building weed failed"; }
	rm -rf "$scratch"
	end=$(date +%s)
	log "built $WEED in $((end - start)) s (load: $(cut -d' ' -f1-3 /proc/loadavg))"
}

write_config() {
	mkdir -p "$STATE/data" "$STATE/log"
	cat >"$STATE/s3.json" <<EOF
{
  "identities": [
    {
      "name": "$ACCESS_KEY",
      "credentials": [{"accessKey": "$ACCESS_KEY", "secretKey": "$SECRET_KEY"}],
      "actions": ["Admin", "Read", "Write", "List", "Tagging"]
    }
  ]
}
EOF
}

wait_ready() {
	local i code
	for ((i = 0; i < WAIT * 2; i++)); do
		running || die "weed exited; see $STATE/log/weed.log"
		code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/" || true)
		# Any HTTP answer (403 without credentials) means the gateway is up.
		if [ -n "$code" ] && [ "$code" != 000 ]; then
			return 0
		fi
		sleep 0.5
	done
	die "the S3 gateway did not answer on 127.0.0.1:$PORT within ${WAIT}s; see $STATE/log/weed.log"
}

create_bucket() {
	local i out
	for ((i = 0; i < WAIT; i++)); do
		out=$(echo "s3.bucket.create -name $BUCKET" | "$WEED" shell -master="127.0.0.1:$MASTER_PORT" 2>&1 || true)
		if echo "$out" | grep -qiE 'created|already exist'; then
			return 0
		fi
		# The filer may not have registered with the master yet.
		sleep 1
	done
	die "could not create bucket $BUCKET: $out"
}

up() {
	command -v curl >/dev/null || die "curl is not on PATH"
	if running; then
		log "weed runs already (pid $(cat "$PIDFILE")), S3 on 127.0.0.1:$PORT"
		return 0
	fi
	build
	write_config
	log "starting weed server (S3 on 127.0.0.1:$PORT, data in $STATE/data)"
	setsid "$WEED" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$STATE/data" \
		-master.port="$MASTER_PORT" -master.volumeSizeLimitMB=64 \
		-volume.port="$VOLUME_PORT" -volume.max=128 \
		-filer -filer.port="$FILER_PORT" \
		-s3 -s3.port="$PORT" -s3.config="$STATE/s3.json" -s3.port.iceberg=0 -s3.port.lance=0 \
		>"$STATE/log/weed.log" 2>&1 </dev/null &
	echo $! >"$PIDFILE"
	wait_ready
	create_bucket
	log "ready: bucket $BUCKET on http://127.0.0.1:$PORT"
}

down() {
	if ! running; then
		rm -f "$PIDFILE"
		return 0
	fi
	local pid i
	pid=$(cat "$PIDFILE")
	kill "$pid" 2>/dev/null || true
	for ((i = 0; i < 40; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.25
	done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$PIDFILE"
	log "stopped weed (pid $pid)"
}

case "${1:-}" in
build) build ;;
up) up ;;
down) down ;;
status)
	if running; then echo "running: pid $(cat "$PIDFILE"), S3 on 127.0.0.1:$PORT"; else echo "stopped"; exit 1; fi
	;;
env)
	cat <<EOF
export AWS_ENDPOINT_URL=http://127.0.0.1:$PORT
export AWS_ACCESS_KEY_ID=$ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$SECRET_KEY
export AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
export HYLAFLOW_S3_TEST_BUCKET=$BUCKET
EOF
	;;
*)
	echo "usage: $0 build|up|down|status|env" >&2
	exit 2
	;;
esac
