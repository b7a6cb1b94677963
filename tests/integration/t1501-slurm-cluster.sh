# A real single-node Slurm (tests/support/slurm/cluster.sh) runs a 3-element job array: each element
# sees its SLURM_ARRAY_TASK_ID, a GPU of its own and the submitter's environment; one element's
# process is killed mid-run, requeued and runs again; an afterany-dependent job runs only after all.
. "$KP_ROOT/tests/integration/lib.sh"
plain_pass_only

. "$KP_ROOT/tests/support/slurm/test-lib.sh"
slurm_test_cluster 8 4

W=$KP_TMP/work
mkdir -p "$W"
# Each element: log its view of the world, leave its pid, wait for the go file.
cat >elem.sh <<EOF
#!/bin/sh
#SBATCH --job-name=t1501
#SBATCH --gpus-per-node=1
#SBATCH --open-mode=append
#SBATCH --output=$W/elem-%a.out
n=\${SLURM_RESTART_COUNT:-0}
echo "start task=\$SLURM_ARRAY_TASK_ID restart=\$n job=\$SLURM_ARRAY_JOB_ID gpu=\$CUDA_VISIBLE_DEVICES var=\$KP_T15_VAR" >>"$W/log-\$SLURM_ARRAY_TASK_ID"
echo \$\$ >"$W/pid-\$SLURM_ARRAY_TASK_ID-\$n"
i=0
while [ ! -e "$W/go" ]; do
	sleep 0.2; i=\$((i + 1))
	[ \$i -lt 1500 ] || exit 3
done
echo "done task=\$SLURM_ARRAY_TASK_ID restart=\$n" >>"$W/log-\$SLURM_ARRAY_TASK_ID"
touch "$W/done-\$SLURM_ARRAY_TASK_ID"
EOF
cat >final.sh <<EOF
#!/bin/sh
#SBATCH --job-name=t1501-final
#SBATCH --output=$W/final.out
echo "final sees: \$(cd "$W" && ls done-* | tr '\n' ' ')" >"$W/final"
EOF

KP_T15_VAR="a b 'c' \$d" sbatch --parsable --array=0-2 elem.sh >j.out 2>j.err || { cat j.err; fail "sbatch of the array"; }
J=$(cat j.out)
sbatch --parsable --dependency=afterany:"$J" final.sh >f.out 2>f.err || { cat f.err; fail "sbatch of the final job"; }
F=$(cat f.out)
case $J$F in *[!0-9]*) fail "job ids '$J' '$F' are not numbers" ;; esac

# wait_until SECONDS WHAT CMD...
wait_until() {
	t=$(($1 * 5)); what=$2; shift 2
	while ! "$@" >/dev/null 2>&1; do
		t=$((t - 1))
		[ $t -gt 0 ] || { squeue --states=all; tail -20 "$C/log/slurmctld.log"; fail "timed out waiting for $what"; }
		sleep 0.2
	done
}
# state ID: the job's (or array element's) state, also after it ended.
state() { squeue --noheader --states=all --array --jobs="$1" --format=%T 2>/dev/null; }
is_state() { [ "$(state "$1")" = "$2" ]; }

wait_until 60 "all three elements to run" test -s "$W/pid-0-0" -a -s "$W/pid-1-0" -a -s "$W/pid-2-0"
[ "$(squeue --noheader --jobs="$F" --format=%T/%r)" = PENDING/Dependency ] || fail "the final job did not wait: $(squeue --jobs="$F")"

# Kill element 1's process mid-run: it fails; requeue it (without Slurm's requeue delay) and it reruns.
kill -9 "$(cat "$W/pid-1-0")"
wait_until 30 "element 1 to end after kill -9" is_state "${J}_1" FAILED
scontrol requeue "${J}_1" || fail "scontrol requeue"
scontrol update jobid="${J}_1" StartTime=now || fail "scontrol update StartTime"
wait_until 60 "element 1 to run again" test -s "$W/pid-1-1"
is_state "$F" PENDING || fail "the final job ran before the requeued element ended"
[ ! -e "$W/final" ] || fail "the final job ran early"

touch "$W/go"
wait_until 60 "the final job" is_state "$F" COMPLETED
for k in 0 1 2; do is_state "${J}_$k" COMPLETED || fail "element $k: $(state "${J}_$k")"; done

# What each element saw.
want_var="a b 'c' \$d"
gpus=
for k in 0 1 2; do
	g=$(sed -n '1s/.* gpu=\([0-3]\) .*/\1/p' "$W/log-$k")
	[ -n "$g" ] || { cat "$W/log-$k"; fail "element $k had no GPU of 0-3"; }
	[ "$(sed -n 1p "$W/log-$k")" = "start task=$k restart=0 job=$J gpu=$g var=$want_var" ] ||
		{ cat "$W/log-$k"; fail "element $k's first start line"; }
	gpus="$gpus$g"
done
# All three ran at once, so each had a GPU of its own.
[ "$(echo "$gpus" | fold -w1 | sort -u | wc -l)" -eq 3 ] || fail "elements shared GPUs: $gpus"
for k in 0 2; do
	[ "$(grep -c '^start' "$W/log-$k")" -eq 1 ] || { cat "$W/log-$k"; fail "element $k started twice"; }
	grep -qxF "done task=$k restart=0" "$W/log-$k" || fail "element $k did not finish"
done
sed -n 2p "$W/log-1" | grep -q "^start task=1 restart=1 job=$J gpu=[0-3] var=" || { cat "$W/log-1"; fail "element 1's rerun"; }
[ "$(grep -c '^done' "$W/log-1")" -eq 1 ] || { cat "$W/log-1"; fail "element 1 finished other than once"; }
grep -qxF "done task=1 restart=1" "$W/log-1" || { cat "$W/log-1"; fail "element 1's rerun did not finish"; }
contains "$W/final" "final sees: done-0 done-1 done-2 "

# Accounting saw the same history: element 1 once REQUEUED, then COMPLETED.
acct() { sacct --noheader --parsable2 --allocations --duplicates --jobs="$J,$F" --format=JobID,State >acct.out 2>&1; }
acct_done() { acct && [ "$(grep -c '|COMPLETED$' acct.out)" -eq 4 ]; }
wait_until 30 "accounting to record every job" acct_done
contains acct.out "${J}_1|REQUEUED"
for k in 0 1 2; do contains acct.out "${J}_$k|COMPLETED"; done
contains acct.out "$F|COMPLETED"
echo "ok: array $J and final job $F"
