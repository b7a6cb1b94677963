# `kernelpro bench --slurm` on a real single-node Slurm (tests/support/slurm/cluster.sh): a 6-task
# suite with the exec programmer (bench/programmer.sh) and a CPU evaluator (bench/fake-gpu-eval.sh)
# as 3 array elements, and through every failure docs/slurm.md promises an outcome for: the node dies
# under all three mid-task (cluster.sh crash: slurmd and every process of the jobs killed at once;
# NODE_FAIL, requeued by Slurm; the node comes back); one element's kernelpro is killed with
# kill -9 mid-task and requeued (scontrol requeue) while its shard's lock is still held, as NFS keeps
# a dead node's lock; one element gets SIGUSR1, as Slurm sends it before the time limit, and
# requeues itself. The merge job then writes results equal to those of the same suite run locally.
# The tasks' first requests wait on files (KP_PROG_HOLD), so every step acts on a task under way.
. "$KP_ROOT/tests/integration/lib.sh"
. "$KP_ROOT/tests/integration/bench/lib.sh"
. "$KP_ROOT/tests/support/slurm/test-lib.sh"
slurm_test_cluster 8 4

PROG="exec:sh $B/programmer.sh"
make_tasks tasks 3 11 7 5 2 4
export KP_FAKE_SLEEP=0
unset KERNELPRO_SLURM_CONFIG
expect_exit 0 "$KP" bench tasks --suites-dir suites --name local --gpus 0 --evals 3 --evaluator "$FAKE_GPU" --llm "$PROG"

# wait_until SECONDS WHAT CMD...
wait_until() {
	tries=$(($1 * 5)) what=$2
	shift 2
	while ! "$@" >/dev/null 2>&1; do
		tries=$((tries - 1))
		if [ $tries -le 0 ]; then
			squeue --states=all --array
			tail -n 15 suites/s/slurm/*.log
			fail "timed out waiting for $what"
		fi
		sleep 0.2
	done
}
state() { squeue --noheader --states=all --array --jobs="$1" --format=%T 2>/dev/null; }
is_state() { [ "$(state "$1")" = "$2" ]; }
held() { for task in "$@"; do [ -d "hold/held-$task" ] || return 1; done; }
owner_pid() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pid"])' "suites/s/shards/$1-of-3.lock"; }

# Shard K of 3 holds tasks K and K+3 and takes its longest first: t04, t02, t03, then t01, t05, t06.
mkdir hold
for t in t01 t02 t03 t04 t05 t06; do touch "hold/hold-$t"; done
export KP_PROG_HOLD="$PWD/hold"
expect_exit 0 "$KP" bench tasks --suites-dir suites --name s --slurm --nodes 3 --gpus-per-node 1 --evals 3 \
	--evaluator "$FAKE_GPU" --llm "$PROG"
J=$(json suites/s/slurm/submission.json 'd["array_job"]')
M=$(json suites/s/slurm/submission.json 'd["merge_job"]')
contains out "submitted suite $PWD/suites/s: job array $J (3 shards), merge job $M"
wait_until 60 "each element at its first task" held t04 t02 t03

# While they run: --status shows them; a second submission and a local run of a shard are refused.
expect_exit 0 "$KP" bench suites/s --status
contains out "slurm: job array $J (3 shards), merge job $M PENDING (Dependency)"
for k in 0 1 2; do grep -Eq "^$k +RUNNING +1 +kpn1 +2 +0 +0 +1 +1 " out || fail "shard $k: $(cat out)"; done
expect_exit 75 "$KP" bench suites/s --slurm
contains err "is still on Slurm: job array $J (3 RUNNING), merge job $M (1 PENDING)"
expect_exit 75 "$KP" bench suites/s --shard 0/3 --resume --gpus 0
contains err "shard 0/3 of suite 'suites/s' is in use by another kernelpro process (Slurm job ${J}_0 is RUNNING"

# The node dies under all three: NODE_FAIL, and Slurm requeues them; the node comes back.
sh "$CL" crash "$C" || fail "cluster.sh crash"
for k in 0 1 2; do wait_until 30 "element $k requeued after the node failure" is_state "${J}_$k" PENDING; done
sh "$CL" revive "$C" || fail "cluster.sh revive"
touch hold/go-t04 hold/go-t02 hold/go-t03
slurm_start_now "${J}_0" "${J}_1" "${J}_2"
wait_until 60 "each element's rerun at its second task" held t01 t05 t06

# Element 1's kernelpro is killed mid-task. Its lock stays held by another process, as a dead node's
# lock on NFS stays for the server's lease; requeued, the element waits until it lapses, then takes over.
kill -9 "$(owner_pid 1)"
wait_until 30 "element 1 to fail after kill -9" is_state "${J}_1" FAILED
flock suites/s/shards/1-of-3.lock sh -c 'touch locked; while [ ! -e unlock ]; do sleep 0.1; done' &
wait_until 10 "the stale lock" test -e locked
scontrol requeue "${J}_1" || fail "scontrol requeue ${J}_1"
slurm_start_now "${J}_1"
wait_until 60 "element 1 to wait for the lock" grep -q "its lock is held, but its holder has ended" suites/s/slurm/shard-1.log
contains suites/s/slurm/shard-1.log "(an earlier run of this element, Slurm job ${J}_1); waiting up to 300 s"
touch unlock hold/go-t05
wait_until 60 "element 1 to take its shard over" grep -q "the lock lapsed after" suites/s/slurm/shard-1.log

# Element 2 gets SIGUSR1, as Slurm sends it signal_s seconds before the time limit: it ends its
# current step and, with work left, requeues itself.
scancel --signal=USR1 --batch "${J}_2" || fail "scancel --signal=USR1"
touch hold/go-t06
wait_until 60 "element 2 to requeue itself" grep -q "requeueing Slurm job ${J}_2" suites/s/slurm/shard-2.log
slurm_start_now "${J}_2"

touch hold/go-t01
wait_until 120 "the merge job" is_state "$M" COMPLETED
for k in 0 1 2; do is_state "${J}_$k" COMPLETED || fail "element $k: $(state "${J}_$k")"; done
contains suites/s/slurm/merge.log "suite s: 6 tasks, 6 finished, 0 failed, 0 not done"
python3 "$B/same-results.py" suites/local suites/s || fail "the suite run on Slurm differs from the local run"
! grep -q "gpu[0-9]*: t0[1-6] failed" suites/s/slurm/shard-*.log || fail "a task failed: $(grep failed suites/s/slurm/shard-*.log)"

# Accounting saw every run: element 0 twice (the node failure), elements 1 and 2 three times.
runs() { "$KP" bench suites/s --status --json >st.json && [ "$(json st.json '[e["attempts"] for e in d["slurm"]["elements"]]')" = "[2, 3, 3]" ]; }
wait_until 30 "accounting to record every run" runs
expect_exit 0 "$KP" bench suites/s --status
contains out "slurm: job array $J (3 shards), merge job $M COMPLETED (exit 0:0)"
grep -Eq "^1 +COMPLETED +3 +kpn1 +2 +2 +0 +0 +0  exit 0:0$" out || fail "shard 1: $(cat out)"
expect_exit 1 "$KP" bench suites/s --slurm
contains err "nothing left to run in suite '$PWD/suites/s'"
echo "ok: array $J, merge job $M"
