# `kernelpro bench --slurm` without a cluster: sbatch, squeue, sacct and scontrol are stand-ins on
# PATH. Option errors before anything is made; the scripts a dry run writes (the settings layered:
# the user's file, --slurm-config, the options; the session's options on each element's line); a
# submission refused while the earlier one is live; only the shards with work left resubmitted;
# --status and --merge naming the shards; an element's --slurm-requeue at the time limit (requeued
# after progress, not after none); a task whose evaluator dies of the job's SIGTERM before kernelpro
# does is stopped, not failed, and resumes to the same results. t1503 does it on a real Slurm.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"

PROG="exec:sh $B/programmer.sh"
same() { python3 "$B/same-results.py" "$1" "$2" || fail "suites $1 and $2 differ"; }
make_tasks tasks 3 11 7 5 2 4
export KP_FAKE_SLEEP=0
unset KERNELPRO_SLURM_CONFIG SLURM_ARRAY_JOB_ID SLURM_ARRAY_TASK_ID SLURM_RESTART_COUNT SLURM_JOB_ID

# Stand-ins: sbatch answers 101, 102, ...; squeue and sacct print squeue.txt and sacct.txt.
mkdir bin
printf '#!/bin/sh\necho "$*" >>"%s/sbatch.log"\necho $((100 + $(wc -l <"%s/sbatch.log")))\n' "$PWD" "$PWD" >bin/sbatch
printf '#!/bin/sh\ncat "%s/squeue.txt" 2>/dev/null; exit 0\n' "$PWD" >bin/squeue
printf '#!/bin/sh\ncat "%s/sacct.txt" 2>/dev/null; exit 0\n' "$PWD" >bin/sacct
printf '#!/bin/sh\necho "$*" >>"%s/scontrol.log"\n' "$PWD" >bin/scontrol
chmod +x bin/sbatch bin/squeue bin/sacct bin/scontrol
export PATH="$PWD/bin:$PATH"

# The same suite run locally: what every other run of it must give.
expect_exit 0 "$KP" bench tasks --suites-dir suites --name local --gpus 0 --evals 3 --evaluator "$FAKE_GPU" --llm "$PROG"
contains out "suite local: 6 tasks, 6 finished, 0 failed, 0 not done"

# Errors say what to do, and nothing is made.
expect_exit 2 "$KP" bench tasks --nodes 3
contains err "--nodes goes with --slurm"
expect_exit 2 "$KP" bench tasks --slurm --time 4:00:00
contains err "each element's Slurm time limit is --slurm-time"
expect_exit 2 "$KP" bench tasks --slurm --gpus 0,1
contains err "(--gpus-per-node N)"
expect_exit 2 "$KP" bench tasks --slurm --shard 0/2
contains err "leave out --shard"
expect_exit 2 "$KP" bench tasks --suites-dir suites --name bad --slurm --partition 'gpu;x'
contains err "--partition: partition 'gpu;x': use 1 to 64 letters"
expect_exit 2 "$KP" bench tasks --suites-dir suites --name bad --slurm --sbatch-arg=--time=10
contains err "use the 'time' setting"
echo '{"slurm": {"partiton": "gpu"}}' >typo.json
expect_exit 1 "$KP" bench tasks --suites-dir suites --name bad --slurm --slurm-config typo.json
contains err "typo.json: unknown Slurm setting 'partiton'"
[ ! -e suites/bad ] || fail "a refused --slurm made its suite"

# A dry run: the settings layered, the scripts printed, nothing submitted.
echo '{"slurm": {"partition": "gpu", "account": "acct", "modules": ["cuda/12.4"],
	"python": "/opt/torch/bin/python3", "gpus_per_node": 2, "signal_s": 120}}' >user.json
echo '{"slurm": {"qos": "high", "partition": "big"}}' >site.json
KERNELPRO_SLURM_CONFIG=user.json expect_exit 0 "$KP" bench tasks --suites-dir suites --name d --slurm \
	--slurm-config site.json --nodes 3 --slurm-time 2:00:00 --sbatch-arg --exclusive --dry-run \
	--evals 3 --evaluator "$FAKE_GPU" --llm "$PROG" --no-worker
for line in "#SBATCH --array=0-2" "#SBATCH --partition=big" "#SBATCH --account=acct" "#SBATCH --qos=high" \
	"#SBATCH --time=2:00:00" "#SBATCH --gpus-per-node=2" "#SBATCH --exclusive" "#SBATCH --signal=B:USR1@120" \
	"module load 'cuda/12.4'" "export KERNELPRO_PYTHON='/opt/torch/bin/python3'" "cd '$PWD' || exit 1" \
	"--shard \"\$shard/3\" --resume --slurm-requeue '--no-worker' '--evaluator' '$FAKE_GPU' '--llm' '$PROG'" \
	"# ---- $PWD/suites/d/slurm/merge.sbatch" "bench '$PWD/suites/d' --merge"; do
	contains out "$line"
done
lacks out "'--evals'" # a new suite keeps its budget itself
[ ! -e sbatch.log ] || fail "a dry run submitted"
# The suite's own settings file is what a later --slurm starts from, not the user's file.
KERNELPRO_SLURM_CONFIG=/nonexistent expect_exit 0 "$KP" bench suites/d --slurm --dry-run --evals 4
contains out "#SBATCH --partition=big"
contains out "'--evals' '4'" # an existing suite takes per-task limits per session
python3 - suites/d/slurm/settings.json <<'PY' || fail "the suite's settings file"
import json, sys
s = json.load(open(sys.argv[1]))["slurm"]
assert (s["partition"], s["qos"], s["account"], s["nodes"], s["time"], s["sbatch_args"]) == \
       ("big", "high", "acct", 3, "2:00:00", ["--exclusive"]), s
PY

# Submitted: the array, then the merge after it; ids recorded.
expect_exit 0 "$KP" bench suites/d --slurm
contains out "submitted suite $PWD/suites/d: job array 101 (3 shards), merge job 102"
[ "$(sed -n 1p sbatch.log)" = "--parsable $PWD/suites/d/slurm/bench.sbatch" ] || fail "sbatch: $(cat sbatch.log)"
[ "$(sed -n 2p sbatch.log)" = "--parsable --dependency=afterany:101 $PWD/suites/d/slurm/merge.sbatch" ] ||
	fail "the merge job: $(cat sbatch.log)"

# While it is live: --status shows the elements, a second submission is refused.
printf '101|0|RUNNING|None|kpn1\n101|1|PENDING|Resources|\n102|N/A|PENDING|Dependency|\n' >squeue.txt
printf '101_0|RUNNING|0:0|kpn1\n101_2|NODE_FAIL|0:0|kpn2\n101_2|PENDING|0:0|None assigned\n' >sacct.txt
expect_exit 0 "$KP" bench suites/d --status
contains out "slurm: job array 101 (3 shards), merge job 102 PENDING (Dependency)"
grep -Eq '^0 +RUNNING +1 +kpn1 +2 +0 +0 +0 +2 *$' out || fail "shard 0's line: $(cat out)"
grep -Eq '^1 +PENDING +0 +- .* Resources$' out || fail "shard 1's line: $(cat out)"
grep -Eq '^2 +PENDING +1 +- ' out || fail "shard 2's line (requeued after a node failure): $(cat out)"
expect_exit 0 "$KP" bench suites/d --status --json
[ "$(json out 'd["slurm"]["elements"][0]["state"]')" = RUNNING ] || fail "--status --json: $(cat out)"
[ "$(json out 'd["slurm"]["merge"]["reason"]')" = Dependency ] || fail "--status --json: $(cat out)"
expect_exit 75 "$KP" bench suites/d --slurm
contains err "is still on Slurm: job array 101 (2 PENDING, 1 RUNNING), merge job 102 (1 PENDING)"
contains err "scancel 101 102"
[ "$(wc -l <sbatch.log)" -eq 2 ] || fail "a refused submission reached sbatch"

# The array ended with shard 1 undone (its element cancelled): merge names it; a resubmission runs only it.
: >squeue.txt
printf '101_0|COMPLETED|0:0|kpn1\n101_1|CANCELLED by 0|0:15|kpn1\n101_2|COMPLETED|0:0|kpn1\n102|COMPLETED|0:0|kpn1\n' >sacct.txt
expect_exit 0 "$KP" bench suites/d --shard 0/3 --resume --gpus 0
expect_exit 0 "$KP" bench suites/d --shard 2/3 --resume --gpus 0
expect_exit 2 "$KP" bench suites/d --merge
contains err "shard 1/3: 2 tasks not done; its Slurm element is CANCELLED (runs: 1, last on kpn1)"
contains err "kernelpro bench suites/d --slurm (it submits only those shards)"
expect_exit 1 "$KP" bench suites/d --slurm --nodes 4
contains err "runs as 3 shards since its first submission (job array 101)"
expect_exit 0 "$KP" bench suites/d --slurm
contains out "job array 103 (shards 1 of 3), merge job 104"
contains suites/d/slurm/bench.sbatch "#SBATCH --array=1"
expect_exit 0 "$KP" bench suites/d --shard 1/3 --resume --gpus 0
expect_exit 0 "$KP" bench suites/d --merge
same suites/local suites/d
: >sacct.txt
expect_exit 1 "$KP" bench suites/d --slurm
contains err "nothing left to run in suite '$PWD/suites/d'"

# An element at its time limit (SIGUSR1) with work left requeues itself when its run made progress ...
wait_log() { # wait_log LOG PATTERN: until a line of LOG matches
	i=0
	until grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 300 ] || fail "no '$2' in $1"
		sleep 0.1
	done
}
# signalled JOB SUITE PATTERN: shard 0/1 of SUITE run as Slurm array element JOB_0 gets SIGUSR1 once
# its evaluator's log has a line matching PATTERN; $rc is how it exited (out, err: what it said).
signalled() {
	SLURM_ARRAY_JOB_ID=$1 SLURM_ARRAY_TASK_ID=0 KP_BENCH_LOG=$1.log "$KP" bench "$2" --shard 0/1 --resume \
		--slurm-requeue --gpus 0 >out 2>err &
	pid=$!
	wait_log "$1.log" "$3"
	kill -USR1 $pid
	wait $pid
	rc=$?
}
expect_exit 0 "$KP" bench tasks --suites-dir suites --name r --slurm --dry-run --evals 3 --evaluator "$FAKE_GPU" --llm "$PROG"
KP_FAKE_SLEEP=0.5 signalled 77 suites/r "^start 0 .* candidate "
[ $rc -eq 0 ] || { cat out err; fail "the element exited $rc"; }
contains out "requeueing Slurm job 77_0"
[ "$(cat scontrol.log)" = "requeue 77_0" ] || fail "scontrol: $(cat scontrol.log)"
# ... and not when it made none (a task that does not fit in the limit would loop).
expect_exit 0 "$KP" bench tasks --suites-dir suites --name q --slurm --dry-run --no-baselines --evals 3 \
	--evaluator "$FAKE_GPU" --llm "$PROG"
KP_FAKE_SLEEP=1 signalled 78 suites/q "^start 0 .* reference "
[ $rc -eq 1 ] || { cat out err; fail "the element without progress exited $rc"; }
contains err "without finishing a task, an evaluation or a baseline, so it is not requeued"
lacks scontrol.log "78_0"
expect_exit 2 "$KP" bench suites/r --resume --slurm-requeue
contains err "--slurm-requeue is for a Slurm array element"

# Slurm ends a job by signalling all its processes: the evaluator may die of SIGTERM before kernelpro
# gets its own. The task is stopped (it resumes), not failed.
expect_exit 0 "$KP" bench tasks --suites-dir suites --name x --slurm --dry-run --evals 3 --evaluator "$FAKE_GPU" --llm "$PROG"
# This session's evaluator takes 5 s over each candidate: time to find it and signal it first.
printf '#!/bin/sh\n[ "$KP_EVAL_ROLE" = candidate ] && sleep 5\nexec sh "%s/fake-gpu-eval.sh" "$@"\n' "$B" >slow.sh
KP_BENCH_LOG=x.log "$KP" bench suites/x --resume --gpus 0 --evaluator "exec:sh $PWD/slow.sh" >out 2>err &
pid=$!
wait_log x.log "^end 0 t02 reference "
i=0
until child=$(ps -o pid=,args= --ppid $pid | awk '/slow.sh/ { print $1; exit }') && [ -n "$child" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "no candidate evaluation under kernelpro $pid"
	sleep 0.1
done
kill -TERM "$child"
kill -TERM $pid
wait $pid
expect_exit 0 "$KP" bench suites/x --status
lacks out "failed "
contains out "0 failed"
grep -q "^t02 .*stopped" out || fail "the task under way: $(cat out)"
expect_exit 0 "$KP" bench suites/x --resume --gpus 0
same suites/local suites/x
exit 0
