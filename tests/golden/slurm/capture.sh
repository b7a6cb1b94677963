#!/bin/sh
# Regenerates the squeue/sacct captures in this directory from a real private cluster
# (tests/support/slurm/cluster.sh), with exactly the commands kp_slurm_query runs. Takes ~3 minutes
# (one element has to reach its 1-minute time limit). Then `KP_REGEN_GOLDEN=1 build/tests/t_slurm`
# rewrites the parsed .json beside them; review both diffs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
CL=$root/tests/support/slurm/cluster.sh
W=$(mktemp -d /tmp/kp-capture-XXXXXX)
trap 'sh "$CL" down "$W/c" >/dev/null 2>&1; rm -rf "$W"' EXIT
trap 'exit 1' INT TERM
sh "$CL" up "$W/c" 8 2 >"$W/up.out" 2>&1 || { cat "$W/up.out"; exit 1; }
export SLURM_CONF="$W/c/etc/slurm.conf"
PATH=$PATH:/usr/sbin

die() { echo "capture: $*" >&2; exit 1; }
wait_until() {
	t=$(($1 * 5)); shift
	while ! "$@" >/dev/null 2>&1; do t=$((t - 1)); [ $t -gt 0 ] || die "timed out: $*"; sleep 0.2; done
}
state() { squeue --noheader --states=all --array --jobs="$1" --format=%T 2>/dev/null; }
is_state() { [ "$(state "$1")" = "$2" ]; }
# snap NAME JOB: what kp_slurm_query reads for JOB.
snap() {
	squeue --noheader --array --states=all --jobs="$2" --format='%F|%K|%T|%r|%N' >"$here/squeue-$1.txt"
	sacct --noheader --parsable2 --allocations --duplicates --jobs="$2" --format=JobID,State,ExitCode,NodeList \
		>"$here/sacct-$1.txt"
}

# Element K waits for go-K, then exits with the number in it.
cat >"$W/elem.sh" <<EOF
#!/bin/sh
echo \$\$ >"$W/pid-\$SLURM_ARRAY_TASK_ID-\${SLURM_RESTART_COUNT:-0}"
while [ ! -e "$W/go-\$SLURM_ARRAY_TASK_ID" ]; do sleep 0.2; done
exit \$(cat "$W/go-\$SLURM_ARRAY_TASK_ID")
EOF

# 1. Two of four elements run (two GPUs), two wait; a dependent job waits for the array.
A=$(sbatch --parsable --array=0-3 --gpus-per-node=1 --requeue -o /dev/null "$W/elem.sh") || die "sbatch"
D=$(sbatch --parsable --dependency=afterany:"$A" -o /dev/null --wrap true) || die "sbatch"
wait_until 30 test -s "$W/pid-0-0" -a -s "$W/pid-1-0"
sleep 1
snap running "$A"
squeue --noheader --array --states=all --jobs="$D" --format='%F|%K|%T|%r|%N' >"$here/squeue-dependency.txt"

# 2. Element 0 is killed and requeued; element 1 fails with status 3; 2 and 3 start.
kill -9 "$(cat "$W/pid-0-0")"
wait_until 30 is_state "${A}_0" FAILED
scontrol requeue "${A}_0" || die "requeue"
echo 3 >"$W/go-1"
wait_until 30 test -s "$W/pid-2-0" -a -s "$W/pid-3-0"
sleep 2
snap requeued "$A"

# 3. Element 3 is cancelled, the rest end; element 0 reruns and completes.
scancel "${A}_3"
echo 0 >"$W/go-2"
echo 0 >"$W/go-0"
scontrol update jobid="${A}_0" StartTime=now
wait_until 60 is_state "$D" COMPLETED
sleep 2
snap done "$A"

# 4. The node goes down under a running array: NODE_FAIL, requeued.
B=$(sbatch --parsable --array=0-1 --requeue -o /dev/null --wrap "sleep 600") || die "sbatch"
wait_until 30 is_state "${B}_1" RUNNING
wait_until 30 is_state "${B}_0" RUNNING
scontrol update nodename=kpn1 state=down reason=capture || die "node down"
sleep 3
snap nodefail "$B"
scontrol update nodename=kpn1 state=resume 2>/dev/null || true  # ReturnToService=2 may have done it
scancel "$B"

# 5. An element that reaches its time limit.
C=$(sbatch --parsable --array=0 --time=1 -o /dev/null --wrap 'sleep 600') || die "sbatch"
wait_until 200 is_state "${C}_0" TIMEOUT
sleep 2
snap timeout "$C"

# Job ids differ between captures; the parser tests read them from each file.
echo "captured into $here"
