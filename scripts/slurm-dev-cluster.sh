#!/usr/bin/env bash
# slurm-dev-cluster.sh — a single-node Slurm cluster on this machine, for
# hylaflow's Slurm executor tests and for trying `hylaflow run --executor slurm`.
#
#   scripts/slurm-dev-cluster.sh up      install slurm-wlm + munge if missing, write a
#                                        single-node slurm.conf, start munged, slurmctld
#                                        and slurmd, wait until `sinfo` shows the node idle
#   scripts/slurm-dev-cluster.sh down    stop the daemons (by the pids this script recorded)
#   scripts/slurm-dev-cluster.sh status  print the daemons' pids and `sinfo`
#
# No systemd is needed: the daemons run in the foreground (-D) in the
# background of this script, with their pids in $STATE/pids/. Every command
# is idempotent: `up` on a running cluster only checks it, `down` on a
# stopped one does nothing.
#
# The cluster: partition "debug" (default) holding this one node, with the
# CPUs and memory `slurmd -C` detects; proctrack/linuxproc, task/none,
# select/cons_tres with CR_Core_Memory, no accounting. Must run as root
# (it installs packages and starts munged/slurmd).
#
# Environment:
#   HYLAFLOW_SLURM_STATE  state directory (default /var/tmp/hylaflow-slurm):
#                         slurm.conf, logs, spool and pid files.
#   HYLAFLOW_SLURM_WAIT   seconds to wait for the node to become idle (default 60).
#
# The generated slurm.conf is also installed as /etc/slurm/slurm.conf (so
# sbatch/squeue work without SLURM_CONF) unless a slurm.conf that this script
# did not write is already there; then export SLURM_CONF=$STATE/slurm.conf.
set -euo pipefail

STATE=${HYLAFLOW_SLURM_STATE:-/var/tmp/hylaflow-slurm}
WAIT=${HYLAFLOW_SLURM_WAIT:-60}
CONF=$STATE/slurm.conf
ETC_CONF=/etc/slurm/slurm.conf
MARKER="# written by hylaflow scripts/slurm-dev-cluster.sh"
PIDS=$STATE/pids
PARTITION=debug

log() { printf 'slurm-dev-cluster: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

need_root() {
	[ "$(id -u)" = 0 ] || die "must run as root (installs packages, starts munged and slurmd)"
}

install_packages() {
	local missing=()
	command -v slurmctld >/dev/null 2>&1 || missing+=(slurm-wlm)
	command -v munged >/dev/null 2>&1 || missing+=(munge)
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null ||
		die "apt-get update failed"
	apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install ${missing[*]} failed"
}

# alive PIDFILE: true if the pid recorded in PIDFILE is a running process.
alive() {
	local f=$1 pid
	[ -s "$f" ] || return 1
	pid=$(cat "$f")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

write_conf() {
	local node host
	host=$(hostname -s)
	# slurmd -C prints the node's detected hardware as a NodeName= line.
	node=$(slurmd -C | sed -n 's/^NodeName=[^ ]* /NodeName='"$host"' /p')
	[ -n "$node" ] || die "slurmd -C printed no NodeName line"
	mkdir -p "$STATE/ctld" "$STATE/d" "$STATE/log" "$PIDS"
	cat >"$CONF.tmp" <<EOF
$MARKER
ClusterName=hylaflow-dev
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
# Jobs that do not ask for memory get 1000 MB per CPU, not the whole node.
DefMemPerCPU=1000
SchedulerType=sched/backfill
# Start batch jobs at once instead of batching their scheduling for up to 3 s.
SchedulerParameters=batch_sched_delay=0,sched_min_interval=100000
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
# Finished jobs stay visible to squeue/scontrol for MinJobAge seconds.
MinJobAge=600
KillWait=5
SlurmdTimeout=60
InactiveLimit=0
$node State=UNKNOWN
PartitionName=$PARTITION Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	mv "$CONF.tmp" "$CONF"
	if [ ! -e "$ETC_CONF" ] || grep -qF "$MARKER" "$ETC_CONF"; then
		mkdir -p "$(dirname "$ETC_CONF")"
		cp "$CONF" "$ETC_CONF"
	else
		log "note: $ETC_CONF was not written by this script; export SLURM_CONF=$CONF"
	fi
}

start_munge() {
	if alive "$PIDS/munged"; then
		return 0
	fi
	if [ ! -s /etc/munge/munge.key ]; then
		log "creating /etc/munge/munge.key"
		mkdir -p /etc/munge
		dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
	fi
	chown munge:munge /etc/munge /etc/munge/munge.key
	chmod 0700 /etc/munge
	chmod 0400 /etc/munge/munge.key
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown munge:munge /run/munge /var/lib/munge /var/log/munge
	chmod 0755 /run/munge
	rm -f /run/munge/munge.socket.2 /run/munge/munge.socket.2.lock
	runuser -u munge -- /usr/sbin/munged --foreground >"$STATE/log/munged.out" 2>&1 &
	echo $! >"$PIDS/munged"
	for _ in $(seq 50); do
		[ -S /run/munge/munge.socket.2 ] && munge -n </dev/null | unmunge >/dev/null 2>&1 && return 0
		alive "$PIDS/munged" || break
		sleep 0.1
	done
	cat "$STATE/log/munged.out" >&2 || true
	die "munged did not start (log above)"
}

# start_daemon NAME: start slurmctld or slurmd in the foreground, backgrounded.
start_daemon() {
	local name=$1
	if alive "$PIDS/$name"; then
		return 0
	fi
	SLURM_CONF=$CONF "/usr/sbin/$name" -D -f "$CONF" >"$STATE/log/$name.out" 2>&1 &
	echo $! >"$PIDS/$name"
	sleep 0.2
	alive "$PIDS/$name" || {
		cat "$STATE/log/$name.out" >&2 || true
		tail -n 20 "$STATE/log/$name.log" >&2 2>/dev/null || true
		die "$name exited at once (log above)"
	}
}

# node_state prints the node's state as sinfo sees it ("" if slurmctld does not answer).
node_state() {
	SLURM_CONF=$CONF timeout 10 sinfo -h -N -o '%T' 2>/dev/null | head -n 1 || true
}

wait_idle() {
	local deadline=$((SECONDS + WAIT)) state=""
	while [ $SECONDS -lt $deadline ]; do
		state=$(node_state)
		case $state in
		idle | mixed | allocated | completing) return 0 ;;
		drain* | down*)
			# A node left down by an earlier run of the daemons: resume it.
			SLURM_CONF=$CONF scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true
			;;
		esac
		for d in slurmctld slurmd; do
			alive "$PIDS/$d" || {
				tail -n 20 "$STATE/log/$d.log" >&2 2>/dev/null || true
				die "$d died while waiting for the node (log above)"
			}
		done
		sleep 0.5
	done
	die "node not idle after ${WAIT}s (state: ${state:-no answer}); logs in $STATE/log"
}

stop_pid() {
	local name=$1 f=$PIDS/$1 pid
	[ -s "$f" ] || return 0
	pid=$(cat "$f")
	if kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null; then
			log "$name (pid $pid) ignored SIGTERM; sending SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		log "stopped $name (pid $pid)"
	fi
	rm -f "$f"
}

cmd_up() {
	need_root
	install_packages
	mkdir -p "$STATE/log" "$PIDS"
	if alive "$PIDS/munged" && alive "$PIDS/slurmctld" && alive "$PIDS/slurmd" && [ -n "$(node_state)" ]; then
		log "already up: $(node_state) (conf $CONF)"
		return 0
	fi
	# Half up (a daemon died): restart from a clean slate, keeping the queue state.
	stop_pid slurmd
	stop_pid slurmctld
	write_conf
	start_munge
	start_daemon slurmctld
	start_daemon slurmd
	wait_idle
	log "up: node $(hostname -s) $(node_state), partition $PARTITION (conf $CONF, logs $STATE/log)"
}

cmd_down() {
	stop_pid slurmd
	stop_pid slurmctld
	stop_pid munged
	# Jobs still running under the stopped slurmd are reparented; slurmstepd
	# processes end with slurmd's SIGTERM (proctrack/linuxproc kills them).
	return 0
}

cmd_status() {
	local rc=0
	for d in munged slurmctld slurmd; do
		if alive "$PIDS/$d"; then
			printf '%-10s running (pid %s)\n' "$d" "$(cat "$PIDS/$d")"
		else
			printf '%-10s stopped\n' "$d"
			rc=3
		fi
	done
	if [ $rc = 0 ]; then
		SLURM_CONF=$CONF sinfo || rc=3
	fi
	return $rc
}

case ${1:-} in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
*)
	echo "usage: $0 up|down|status" >&2
	exit 2
	;;
esac
