#!/usr/bin/env bash
# A single-node Slurm cluster on this machine, for kigi's Slurm test: munge for auth,
# slurmctld and slurmd as root, no cgroups (process tracking by /proc), one partition whose
# node claims 16 CPUs so members run side by side on a small machine. Needs root and
# Debian's slurm-wlm and munge (.ci/run installs them). Idempotent: a running cluster that
# answers is left as it is.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "start-cluster.sh: needs root (it starts munged, slurmctld and slurmd)" >&2
    exit 2
fi
for tool in munged slurmctld slurmd srun sinfo scancel; do
    command -v "$tool" >/dev/null || { echo "start-cluster.sh: $tool is not installed (apt install slurm-wlm munge)" >&2; exit 2; }
done

schedulable() {
    timeout 5 sinfo -h -o %T 2>/dev/null | grep -Eq "^(idle|mixed|allocated)"
}
if (munge -n 2>/dev/null | unmunge >/dev/null 2>&1) && schedulable; then
    exit 0
fi

host=$(hostname -s)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /var/lib/munge /var/log/munge /etc/munge

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
# A credential that round-trips says munged is up (a dead one may linger as a zombie).
if ! (munge -n 2>/dev/null | unmunge >/dev/null 2>&1); then
    rm -f /run/munge/munge.socket.2*
    runuser -u munge -- /usr/sbin/munged
fi

cat > /etc/slurm/slurm.conf <<CONF
ClusterName=kigitest
SlurmctldHost=${host}
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
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
KillWait=2
InactiveLimit=0
NodeName=${host} CPUs=16 RealMemory=1000 State=UNKNOWN
PartitionName=kigi Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# Debian's tools read /etc/slurm/slurm.conf; older layouts read /etc/slurm-llnl.
[ -d /etc/slurm-llnl ] && cp /etc/slurm/slurm.conf /etc/slurm-llnl/slurm.conf

pkill -x slurmctld 2>/dev/null || true
pkill -x slurmd 2>/dev/null || true
slurmctld -c
slurmd -c

# Up when the node is schedulable: at most 60 s.
deadline=$((SECONDS + 60))
while [ "$SECONDS" -lt "$deadline" ]; do
    schedulable && exit 0
    sleep 0.5
done
echo "start-cluster.sh: the node did not become schedulable within 60 s" >&2
timeout 5 sinfo >&2 || true
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
