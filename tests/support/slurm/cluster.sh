#!/bin/sh
# A private single-node Slurm cluster in one directory, for tests: munge, MariaDB, slurmdbd, slurmctld, slurmd.
#
#   cluster.sh up DIR [CPUS [GPUS]]   start it (CPUS defaults to 8, GPUS to 4 fake ones); prints
#                                     SLURM_CONF=DIR/etc/slurm.conf, which every Slurm command needs
#   cluster.sh down DIR               cancel its jobs, stop its daemons, end what is left of its jobs
#   cluster.sh crash DIR              the node dies as in a power loss: slurmd and every process of
#                                     every job on it are killed at once, and slurmctld is told the
#                                     node is down (its jobs end NODE_FAIL; requeueable ones requeue)
#   cluster.sh revive DIR             the node comes back: slurmd starts again, registers, and gets
#                                     what slurmctld still had to tell it about the jobs it lost
#
# `up` exits 77 with the reason when this machine cannot run Slurm at all (packages missing, not
# root), 1 when a daemon fails to start (its log is printed: that is a bug to look at, not a skip).
# Everything lives under DIR (ports chosen free at start); nothing in /etc or /run is touched, so
# several clusters can run on one machine at once. Always pair `up` with `down` (a trap on EXIT).
set -u

die() { echo "slurm cluster: $*" >&2; exit 1; }
# up_failed MSG: a start that failed half-way stops what it had started.
up_failed() { echo "slurm cluster: $*" >&2; down "$dir" >/dev/null 2>&1; exit 1; }
skip() { echo "slurm cluster: $*" >&2; exit 77; }

# free_ports N: N TCP ports on 127.0.0.1 that nothing listens on now.
free_ports() {
	python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

# wait_for SECONDS WHAT CMD...: retries CMD every 0.2 s until it succeeds.
wait_for() {
	tries=$(($1 * 5)); what=$2; shift 2
	while [ "$tries" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.2; tries=$((tries - 1))
	done
	echo "slurm cluster: timed out waiting for $what" >&2
	return 1
}

# show_log FILE: the end of a daemon's log, for a start that failed.
show_log() { [ -f "$1" ] && { echo "--- $1 (last 25 lines)" >&2; tail -25 "$1" >&2; }; }

# start NAME CMD...: runs a daemon that forks itself, with no tie to our stdout (a caller reading
# it through a pipe would wait for the daemon's end otherwise).
start() {
	name=$1; shift
	"$@" </dev/null >/dev/null 2>"$dir/log/$name.stderr" ||
		{ show_log "$dir/log/$name.stderr"; show_log "$dir/log/$name.log"; up_failed "$name did not start"; }
}

# pid_alive PIDFILE: its process runs (a zombie does not: in a container nothing may reap it).
pid_alive() {
	[ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$(cat "$1")/stat" 2>/dev/null
}

up() {
	dir=$1 cpus=${2:-8} gpus=${3:-4}
	case $cpus$gpus in *[!0-9]*) die "CPUS and GPUS are whole numbers" ;; esac
	[ "$cpus" -ge 1 ] || die "CPUS must be at least 1"
	[ "$(id -u)" -eq 0 ] || skip "needs root (slurmd runs jobs as their owner; CI and the dev machines are root)"
	for p in munged slurmctld slurmd slurmdbd mariadbd mariadb-install-db sbatch sacct; do
		command -v "$p" >/dev/null 2>&1 || [ -x "/usr/sbin/$p" ] ||
			skip "'$p' is missing: install slurm-wlm, slurmdbd, munge and mariadb-server ('make test-deps')"
	done
	PATH=$PATH:/usr/sbin
	mkdir -p "$dir" || die "cannot create '$dir'"
	dir=$(cd "$dir" && pwd)
	[ ! -e "$dir/etc/slurm.conf" ] || die "'$dir' already holds a cluster; run 'down' first"
	# munged wants the socket's directory searchable by all, the key's private; unix socket paths
	# are limited to 107 bytes.
	[ ${#dir} -le 80 ] || die "'$dir' is too long for munge's socket path; use a shorter directory"
	mkdir -p "$dir/etc" "$dir/munge" "$dir/sock" "$dir/state" "$dir/spool" "$dir/log" "$dir/run" \
		"$dir/db" "$dir/dev" || die "cannot lay out '$dir'"
	chmod 700 "$dir/munge"; chmod 755 "$dir" "$dir/sock"

	set -- $(free_ports 4)
	[ $# -eq 4 ] || up_failed "could not find free TCP ports"
	ctld_port=$1 slurmd_port=$2 dbd_port=$3 db_port=$4
	host=$(hostname -s)
	conf=$dir/etc/slurm.conf
	export SLURM_CONF="$conf"

	# munge: a fresh key, its own socket.
	dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$dir/munge/munge.key" ||
		up_failed "cannot write the munge key"
	start munged munged --force --key-file="$dir/munge/munge.key" --socket="$dir/sock/munge" \
		--pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"

	# MariaDB for slurmdbd (sacct needs accounting), on TCP 127.0.0.1 only.
	mariadb-install-db --no-defaults --user=root --datadir="$dir/db/data" --auth-root-authentication-method=normal \
		--skip-test-db --innodb-log-file-size=8M >"$dir/log/mariadb-install.log" 2>&1 ||
		{ show_log "$dir/log/mariadb-install.log"; up_failed "mariadb-install-db failed"; }
	mariadbd --no-defaults --user=root --datadir="$dir/db/data" --socket="$dir/sock/mariadb" --port="$db_port" \
		--bind-address=127.0.0.1 --pid-file="$dir/run/mariadbd.pid" --log-error="$dir/log/mariadbd.log" \
		--innodb-buffer-pool-size=32M --innodb-log-file-size=8M </dev/null >/dev/null 2>&1 &
	wait_for 60 "mariadbd" mariadb --no-defaults --socket="$dir/sock/mariadb" -u root -e "select 1" ||
		{ show_log "$dir/log/mariadbd.log"; up_failed "mariadbd did not start"; }

	# A symlink to /dev/null per fake GPU: slurmd wants character devices, and sets
	# CUDA_VISIBLE_DEVICES from their indices.
	i=0
	while [ "$i" -lt "$gpus" ]; do ln -sf /dev/null "$dir/dev/gpu$i"; i=$((i + 1)); done

	cat >"$dir/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$dir/sock/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=root
StorageLoc=slurm_acct
EOF
	chmod 600 "$dir/etc/slurmdbd.conf"

	gres=
	[ "$gpus" -gt 0 ] && gres="Gres=gpu:$gpus"
	# proctrack/linuxproc and task/none: no cgroups needed (this machine has a v1/v2 hybrid
	# without delegation). config_overrides: trust the CPUs given here over the hardware's.
	# cred_expire=5 (default 120): a job killed on the node may run there again 5 s later, not 2 min.
	cat >"$conf" <<EOF
ClusterName=kptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/sock/munge,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/linux
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
GresTypes=gpu
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$dir/sock/munge
JobRequeue=1
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=2
NodeName=kpn1 NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000 $gres State=UNKNOWN
PartitionName=debug Nodes=kpn1 Default=YES MaxTime=INFINITE State=UP
EOF
	{
		echo "AutoDetect=off"
		[ "$gpus" -gt 0 ] && echo "NodeName=kpn1 Name=gpu File=$dir/dev/gpu[0-$((gpus - 1))]"
	} >"$dir/etc/gres.conf"

	start slurmdbd slurmdbd
	wait_for 60 "slurmdbd" sacctmgr --noheader list cluster ||
		{ show_log "$dir/log/slurmdbd.log"; up_failed "slurmdbd does not answer"; }
	start slurmctld slurmctld
	wait_for 60 "slurmctld" scontrol ping ||
		{ show_log "$dir/log/slurmctld.log"; up_failed "slurmctld does not answer"; }
	start slurmd slurmd -N kpn1
	wait_for 60 "node kpn1 to be idle" node_idle ||
		{ show_log "$dir/log/slurmd.log"; show_log "$dir/log/slurmctld.log"; up_failed "slurmd did not register"; }
	echo "SLURM_CONF=$conf"
}

node_idle() { [ "$(sinfo --noheader --nodes=kpn1 --format=%T)" = idle ]; }

# stop_daemon PIDFILE: SIGTERM, up to 15 s, then SIGKILL.
stop_daemon() {
	pid_alive "$1" || return 0
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null
	n=75
	while [ "$n" -gt 0 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.2; n=$((n - 1)); done
	kill -9 "$pid" 2>/dev/null
	return 0
}

# leftovers: pids of processes that carry this cluster's SLURM_CONF in their environment (the
# daemons, slurmstepd, job scripts): started by this cluster, and only those.
leftovers() {
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}; p=${p%/environ}
		[ "$p" = "$$" ] && continue
		{ tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "SLURM_CONF=$1" && echo "$p"
	done
}

down() {
	dir=$(cd "$1" 2>/dev/null && pwd) || return 0
	[ -d "$dir/run" ] || return 0
	conf=$dir/etc/slurm.conf
	export SLURM_CONF="$conf"
	PATH=$PATH:/usr/sbin
	if [ -f "$conf" ] && pid_alive "$dir/run/slurmctld.pid"; then
		scancel --user="$(id -un)" >/dev/null 2>&1
		wait_for 20 "jobs to end" no_jobs || true
	fi
	stop_daemon "$dir/run/slurmd.pid"
	stop_daemon "$dir/run/slurmctld.pid"
	stop_daemon "$dir/run/slurmdbd.pid"
	stop_daemon "$dir/run/mariadbd.pid"
	stop_daemon "$dir/run/munged.pid"
	for p in $(leftovers "$conf"); do kill -9 "$p" 2>/dev/null; done
	# Marks the directory as free again (the data stays for a post-mortem).
	[ ! -f "$conf" ] || mv "$conf" "$conf.down"
	return 0
}

no_jobs() { [ -z "$(squeue --noheader --format=%i 2>/dev/null)" ]; }

# job_processes DIR: this cluster's slurmstepd processes (each has its working directory or an open
# file under DIR: another cluster's jobs on this machine have the same job ids) and every process
# under them: what a job runs on the node.
job_processes() {
	python3 - "$1" <<'PY'
import os, sys
top = sys.argv[1].rstrip("/") + "/"
def under(p):
    try:
        paths = [os.readlink(f"/proc/{p}/cwd") + "/"]
        paths += [os.readlink(f"/proc/{p}/fd/{f}") for f in os.listdir(f"/proc/{p}/fd")]
    except OSError:
        return False
    return any(x.startswith(top) for x in paths)
parent, steps = {}, []
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        stat = open(f"/proc/{p}/stat", "rb").read()
    except OSError:
        continue
    parent[int(p)] = int(stat[stat.rindex(b")") + 2:].split()[1])
    if stat[stat.index(b"(") + 1:].startswith(b"slurmstepd") and under(p):
        steps.append(int(p))
found, todo = set(steps), list(steps)
while todo:
    p = todo.pop()
    for c, pp in parent.items():
        if pp == p and c not in found:
            found.add(c)
            todo.append(c)
print(" ".join(map(str, sorted(found))))
PY
}

crash() {
	dir=$(cd "$1" 2>/dev/null && pwd) || die "no cluster in '$1'"
	conf=$dir/etc/slurm.conf
	[ -f "$conf" ] || die "no cluster up in '$dir'"
	export SLURM_CONF="$conf"
	PATH=$PATH:/usr/sbin
	pid_alive "$dir/run/slurmd.pid" || die "slurmd is not running"
	# One kill for all: nothing on the node gets to see another go first.
	kill -9 "$(cat "$dir/run/slurmd.pid")" $(job_processes "$dir") 2>/dev/null
	scontrol update nodename=kpn1 state=down reason=crash || die "scontrol could not mark kpn1 down"
}

revive() {
	dir=$(cd "$1" 2>/dev/null && pwd) || die "no cluster in '$1'"
	conf=$dir/etc/slurm.conf
	export SLURM_CONF="$conf"
	PATH=$PATH:/usr/sbin
	! pid_alive "$dir/run/slurmd.pid" || die "slurmd is running already"
	start slurmd slurmd -N kpn1
	scontrol update nodename=kpn1 state=resume >/dev/null 2>&1 # ReturnToService=2 may do it first
	wait_for 60 "node kpn1 to be idle" node_idle || { show_log "$dir/log/slurmd.log"; die "kpn1 did not come back"; }
	# slurmctld still owes the node the kills of the jobs it lost, and delivers them now: a
	# requeued job started before they arrive (its begin time moved up) would be killed by them.
	wait_for 120 "slurmctld's messages to kpn1" no_pending_rpcs || die "slurmctld's messages to kpn1 are stuck"
}

no_pending_rpcs() { sdiag | grep -q "No pending RPCs"; }

case ${1:-} in
up) [ $# -ge 2 ] || die "usage: cluster.sh up DIR [CPUS [GPUS]]"; shift; up "$@" ;;
down) [ $# -eq 2 ] || die "usage: cluster.sh down DIR"; down "$2" ;;
crash) [ $# -eq 2 ] || die "usage: cluster.sh crash DIR"; crash "$2" ;;
revive) [ $# -eq 2 ] || die "usage: cluster.sh revive DIR"; revive "$2" ;;
*) die "usage: cluster.sh up DIR [CPUS [GPUS]] | down DIR | crash DIR | revive DIR" ;;
esac
