#!/usr/bin/env bash
# A one-node SLURM cluster for tests and benchmarks (Debian slurmd/slurmctld/slurm-client/munge).
#
#   .ci/slurm.sh start   # install if missing (root + apt), write slurm.conf, start the daemons
#   .ci/slurm.sh env     # print `export SLURM_CONF=...` for clients (sbatch, squeue, sinfo)
#   .ci/slurm.sh status  # exit 0 when the node answers idle/mixed/allocated
#   .ci/slurm.sh stop    # stop exactly the daemons `start` started, by their recorded PIDs
#
# Everything lives in $SLURM_CI_DIR (default /tmp/static-rteb-slurm): slurm.conf, a fresh munge
# key, the munge socket, state and logs, and one PID file per daemon. Nothing under /etc is
# changed: clients find the cluster through SLURM_CONF (printed by `start` and `env`).
# `start` is idempotent: with the recorded daemons alive and the node answering it does
# nothing. Exit status: 0 ok; 1 the cluster did not come up (logs are printed); 3 not root
# or no apt to install the packages (the reason is printed).
set -euo pipefail

DIR="${SLURM_CI_DIR:-/tmp/static-rteb-slurm}"
CONF="$DIR/slurm.conf"
PACKAGES=(slurmd slurmctld slurm-client munge)
DAEMONS=(munged slurmctld slurmd)
export SLURM_CONF="$CONF"

log() { echo "slurm.sh: $*" >&2; }

alive() { # alive NAME: the recorded PID of daemon NAME runs
    local pidfile="$DIR/pids/$1"
    [[ -s "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null
}

node_up() {
    local state
    state="$(timeout 10 sinfo -h -N -o '%t' 2>/dev/null | head -n1)" || return 1
    [[ "$state" =~ ^(idle|mix|alloc|comp) ]]
}

install_if_missing() {
    local binary missing=0
    for binary in slurmd slurmctld sbatch sinfo squeue scancel munged; do
        command -v "$binary" >/dev/null 2>&1 || [[ -x "/usr/sbin/$binary" ]] || missing=1
    done
    ((missing == 0)) && return 0
    if [[ "$(id -u)" != 0 ]]; then
        log "SLURM is not installed and this is not root: cannot apt-get install ${PACKAGES[*]}"
        exit 3
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        log "SLURM is not installed and there is no apt-get to install ${PACKAGES[*]}"
        exit 3
    fi
    log "installing ${PACKAGES[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # one apt-get at a time: the browser tests may install Chromium on another pytest-xdist
    # worker (tests/site/test_lab.py takes the same flock); one started elsewhere is waited for
    exec 9>>"${STATIC_RTEB_APT_LOCK:-/tmp/static-rteb-apt.lock}"
    flock 9
    apt-get update -qq
    apt-get install -y -qq -o DPkg::Lock::Timeout=600 --no-install-recommends "${PACKAGES[@]}" >/dev/null
    flock -u 9
}

# SchedulerParameters: a test cluster schedules at once. With SLURM's defaults (main loop
# every 60 s, backfill every 30 s) an array job waited up to a minute for its first pass:
# 53 s in one CI run, which made the cancel/resume test take 89 s instead of about 35.
write_config() {
    local host cpus memory
    host="$(hostname -s)"
    cpus=2
    memory=$(($(awk '/^MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10))
    mkdir -p "$DIR"/{state,spool,logs,pids,munge}
    cat >"$CONF" <<EOF
# written by .ci/slurm.sh: a one-node test cluster
ClusterName=staticrteb
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket.2
SlurmctldPort=${SLURM_CI_CTLD_PORT:-6817}
SlurmdPort=${SLURM_CI_SLURMD_PORT:-6818}
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/logs/slurmctld.log
SlurmdLogFile=$DIR/logs/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
SchedulerParameters=defer_batch=0,sched_interval=2,bf_interval=1
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=2
MinJobAge=600
MaxArraySize=10001
DefMemPerCPU=1024
EnforcePartLimits=ALL
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=short Nodes=ALL Default=NO MaxTime=5 State=UP
EOF
}

start_munged() {
    alive munged && return 0
    rm -f "$DIR/munge/munge.socket.2" "$DIR/munge/munge.socket.2.lock"
    dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
    chown -R munge:munge "$DIR/munge"
    chmod 700 "$DIR/munge"
    chmod 400 "$DIR/munge/munge.key"
    setsid runuser -u munge -- /usr/sbin/munged --foreground --force \
        --socket="$DIR/munge/munge.socket.2" --key-file="$DIR/munge/munge.key" \
        --pid-file="$DIR/munge/munged.pid" --seed-file="$DIR/munge/munged.seed" \
        --log-file="$DIR/munge/munged.log" </dev/null >>"$DIR/logs/munged.out" 2>&1 &
    echo $! >"$DIR/pids/munged"
    for _ in $(seq 50); do
        [[ -S "$DIR/munge/munge.socket.2" ]] && return 0
        sleep 0.1
    done
    log "munged did not create its socket"
    return 1
}

start_daemon() { # start_daemon NAME: run NAME in the foreground (-D), detached, PID recorded
    local name="$1"
    alive "$name" && return 0
    setsid "/usr/sbin/$name" -D -f "$CONF" </dev/null >>"$DIR/logs/$name.out" 2>&1 &
    echo $! >"$DIR/pids/$name"
}

dump_logs() {
    local file
    for file in "$DIR"/logs/* "$DIR/munge/munged.log"; do
        [[ -f "$file" ]] || continue
        echo "----- $file" >&2
        tail -n 30 "$file" >&2
    done
}

start() {
    if alive munged && alive slurmctld && alive slurmd && node_up; then
        echo "SLURM_CONF=$CONF"
        return 0
    fi
    install_if_missing
    if [[ "$(id -u)" != 0 ]]; then
        log "starting slurmd needs root"
        exit 3
    fi
    stop >/dev/null 2>&1 || true
    write_config
    start_munged || { dump_logs; exit 1; }
    start_daemon slurmctld
    sleep 0.5
    start_daemon slurmd
    local resumed=""
    for _ in $(seq 120); do
        if node_up; then
            echo "SLURM_CONF=$CONF"
            return 0
        fi
        # A drain or down state restored from an earlier cluster's $DIR/state (its reason,
        # e.g. a spool folder that was full then, is stale): resume it once; if the cause
        # persists, slurmd drains it again and the message below shows the reason.
        if [[ -z "$resumed" ]] && timeout 10 sinfo -h -N -o '%t' 2>/dev/null | grep -qE "^(drain|drng|down)"; then
            timeout 10 scontrol update NodeName="$(hostname -s)" State=RESUME >/dev/null 2>&1 || true
            resumed=1
        fi
        sleep 0.5
    done
    log "the node did not become idle within 60 s"
    sinfo -N -l >&2 || true
    dump_logs
    exit 1
}

stop() {
    local name pid
    for name in slurmd slurmctld munged; do
        [[ -s "$DIR/pids/$name" ]] || continue
        pid="$(cat "$DIR/pids/$name")"
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 50); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$DIR/pids/$name"
    done
    log "stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
env) echo "export SLURM_CONF=$CONF" ;;
status) alive slurmctld && alive slurmd && node_up ;;
*)
    echo "usage: $0 start|stop|env|status" >&2
    exit 2
    ;;
esac
