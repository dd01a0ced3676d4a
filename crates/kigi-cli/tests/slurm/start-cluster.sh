#!/usr/bin/env bash
# A private single-node Slurm cluster for kigi's Slurm test: its own configuration, spool,
# state, logs and ports under $KIGI_SLURM_DIR (default /var/tmp/kigi-slurm), so a real
# Slurm installation on the machine is never touched; munge for auth (started if it is not
# running); slurmctld and slurmd as root, no cgroups (process tracking by /proc); one
# partition whose node claims 16 CPUs so members run side by side on a small machine.
# Needs root and Debian's slurm-wlm and munge (.ci/run installs them). Idempotent: a
# cluster of ours that answers is left as it is. Prints the SLURM_CONF to use.
set -euo pipefail

dir=${KIGI_SLURM_DIR:-/var/tmp/kigi-slurm}
conf="$dir/slurm.conf"

if [ "$(id -u)" -ne 0 ]; then
    echo "start-cluster.sh: needs root (it starts munged, slurmctld and slurmd)" >&2
    exit 2
fi
for tool in munge munged slurmctld slurmd srun sinfo squeue scancel; do
    command -v "$tool" >/dev/null || { echo "start-cluster.sh: $tool is not installed (apt install slurm-wlm munge)" >&2; exit 2; }
done

munge_works() {
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1
}
schedulable() {
    SLURM_CONF="$conf" timeout 5 sinfo -h -o %T 2>/dev/null | grep -Eq "^(idle|mixed|allocated)"
}
# Whether the process in pid file $1 is alive and is program $2 (a stale pid may be reused).
ours() {
    [ -s "$1" ] || return 1
    local pid
    pid=$(cat "$1")
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

if [ -s "$conf" ] && munge_works && ours "$dir/slurmctld.pid" slurmctld && ours "$dir/slurmd.pid" slurmd && schedulable; then
    echo "$conf"
    exit 0
fi

# A credential that round-trips says munged is up (a dead one may linger as a zombie).
if ! munge_works; then
    mkdir -p /run/munge /var/lib/munge /var/log/munge /etc/munge
    if [ ! -s /etc/munge/munge.key ]; then
        if command -v mungekey >/dev/null; then
            mungekey --create --force >/dev/null
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        fi
    fi
    chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge
    chmod 0700 /etc/munge
    chmod 0400 /etc/munge/munge.key
    rm -f /run/munge/munge.socket.2*
    runuser -u munge -- /usr/sbin/munged
fi

# Only the daemons this script started before are stopped.
for daemon in slurmctld slurmd; do
    if ours "$dir/$daemon.pid" "$daemon"; then
        kill "$(cat "$dir/$daemon.pid")"
        for _ in $(seq 1 50); do ours "$dir/$daemon.pid" "$daemon" || break; sleep 0.1; done
    fi
done

mkdir -p "$dir/state" "$dir/spool"
host=$(hostname -s)
cat > "$conf" <<CONF
ClusterName=kigitest
SlurmctldHost=${host}
SlurmctldPort=6917
SlurmdPort=6918
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SlurmdParameters=config_overrides
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
KillWait=2
InactiveLimit=0
NodeName=${host} CPUs=16 RealMemory=1000 State=UNKNOWN
PartitionName=kigi Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

slurmctld -c -f "$conf"
slurmd -c -f "$conf"

# Up when the node is schedulable: at most 60 s.
deadline=$((SECONDS + 60))
while [ "$SECONDS" -lt "$deadline" ]; do
    if schedulable; then
        echo "$conf"
        exit 0
    fi
    sleep 0.5
done
echo "start-cluster.sh: the node did not become schedulable within 60 s" >&2
SLURM_CONF="$conf" timeout 5 sinfo >&2 || true
tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
