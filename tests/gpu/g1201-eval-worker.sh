#!/bin/sh
# The warm worker and GPU-made inputs on a real GPU (issue 12): the fast-path candidate is correct with
# and without --worker, with the same trials and checks; the worker imported torch without touching
# CUDA and its forked children use the GPU; cheats are caught through the worker as they are cold
# (inputs_modified, output_poison, output_alias, stale results); --cpu-inputs draws KernelBench's
# exact inputs; the 6 GiB task passes every check with its fast-path candidate through the worker.
# Where the correctness phase's seconds go (seconds.correctness_parts, eval -v), cold and warm, and the
# adapter's CPU unit tests with real torch (the parts, the comparison's and statistics' host reads).
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
KERNELPRO_WORKER_DIR="$KP_TMP/workers"
export KERNELPRO_HOME KERNELPRO_WORKER_DIR
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
ex="$KP_ROOT/examples/kernelbench"
adv="$KP_ROOT/tests/adversarial/kernelbench"
cache="$KP_TMP/cache"
stop_workers() {
	for s in "$KERNELPRO_WORKER_DIR"/*.sock; do
		[ -S "$s" ] && python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\"op\": \"shutdown\"}\n")' "$s"
	done
}
trap stop_workers EXIT

same_verdict() { # COLD WARM: the same status, trials and refusing/failing checks; the warm one ran in a fork
	python3 - "$1" "$2" <<'PY' || fail "cold and worker verdicts differ: $1 $2"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
key = lambda v: (v["status"], v["correctness"]["trials_run"], v["correctness"]["trials_passed"],
                 sorted(f["check"] for f in v["flags"] if f["severity"] != "warn"), (v.get("scaled_trial") or {}).get("status"),
                 v.get("flops"))
assert key(a) == key(b), (key(a), key(b))
start = lambda v: float(v["timeline"].split(",")[0].split()[1]) if v.get("timeline") else None
print("%s: %s; harness start %.2f s cold, %.2f s in the worker" % (sys.argv[1], a["status"], start(a), start(b)))
PY
}

parts() { # VERDICT LABEL: the parts are there, sum to the correctness phase; print them largest first
	python3 - "$1" "$2" <<'PY' || fail "$2: correctness_parts missing or wrong"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["status"] == "correct", v["status"]
cp = v["seconds"]["correctness_parts"]
phase = dict((k, float(x)) for k, x in (i.rsplit(" ", 1) for i in v["timeline"].split(", ")))["correctness"]
total = sum(p["seconds"] for p in cp.values())
assert abs(total - phase) <= 0.006, (total, phase, cp)
for name in ("inputs", "reference", "candidate", "poison", "input_checks", "flops", "compare", "degenerate",
             "intact", "triton", "other"):
    assert name in cp, (name, cp)
assert cp["reference"]["calls"] == 7 and cp["candidate"]["calls"] == 10, cp
print("%s: correctness %.2f s = %s" % (sys.argv[2], phase, ", ".join(
    "%s %.3f (%dx, max %.3f)" % (k, p["seconds"], p["calls"], p["longest"])
    for k, p in sorted(cp.items(), key=lambda kv: -kv[1]["seconds"]))))
PY
}

expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
cp out cold.json
parts cold.json "cold"
expect_exit 0 "$KP" eval --json --worker --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
cp out warm1.json
parts warm1.json "worker, first call"
expect_exit 0 "$KP" eval --json --worker --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
cp out warm2.json
parts warm2.json "worker, build cached"
expect_exit 0 "$KP" eval -v --worker --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
contains out "correctness: inputs"
grep -E "harness:|correctness:" out
# Through the worker, not a cold fallback: no refusal, no rerun (the H200 run of 2026-12-01 had every
# forked child refuse CUDA: torch.utils.cpp_extension's import had poisoned the worker's forks).
lacks err "warm worker"
lacks err "bad fork"
same_verdict cold.json warm2.json
log=$(ls "$KERNELPRO_WORKER_DIR"/*.log | head -1)
contains "$log" "serving"
lacks "$log" "preload called torch._C"   # the worker's record of calls that register torch's fork handler
# The FLOP counter warmed once in the worker on the CPU (kp_torch.warm), without touching CUDA; the
# verdicts above count the same FLOPs cold and warm (same_verdict).
contains "$log" "of which warm-up flop_counter"
lacks "$log" "(failed:"
lacks "$log" "starting over without it"
grep -q "torch None" "$log" && fail "the worker could not import torch: $(cat "$log")"
cat "$log"

# KernelBench's exact CPU draw still works, and so does a task whose get_inputs needs the CPU.
expect_exit 0 "$KP" eval --json --worker --cpu-inputs --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
contains out '"status": "correct"'

# Cheats through the worker: the same verdicts as cold.
for c in kb_input_modify kb_result_reuse kb_return_cached kb_partial_write kb_memo_pointer; do
	want=$(sed -n 's/^# kp-expect-verdict: //p' "$adv/$c.py")
	expect_exit 1 "$KP" eval --json --cache "$cache" "$KP_ROOT/$(sed -n 's/^# kp-task: //p' "$adv/$c.py")" "$adv/$c.py"
	cp out "cold-$c.json"
	expect_exit 1 "$KP" eval --json --worker --cache "$cache" "$KP_ROOT/$(sed -n 's/^# kp-task: //p' "$adv/$c.py")" "$adv/$c.py"
	cp out "warm-$c.json"
	# (kb_memo_pointer's verdict depends on which addresses the allocator reuses: only its kind is fixed)
	[ "$c" = kb_memo_pointer ] || same_verdict "cold-$c.json" "warm-$c.json"
	python3 - "warm-$c.json" "$want" <<'PY' || fail "$c: not the expected verdict"
import json, sys
v = json.load(open(sys.argv[1]))
want = sys.argv[2].split()
assert v["status"] in want[0].split("|"), (v["status"], want)
if len(want) > 1:
    assert want[1] in [f["check"] for f in v["flags"]], (want, v["flags"])
PY
done

# The 6 GiB task: every check on, correct, through the worker.
expect_exit 0 "$KP" eval --json --worker --cache "$cache" "$ex/large_swish.py" "$ex/large_swish_fast.py"
python3 - <<'PY' || { cat out; fail "large task"; }
import json
v = json.load(open("out"))
assert v["status"] == "correct", v["status"]
assert v["correctness"]["trials_passed"] == 5 and v["scaled_trial"]["status"] == "passed", v
assert v["floor"]["in_bytes"] == 4096 * 393216 * 4, v["floor"]
print("large: %.4g ms, floor %.4g ms, total %.2f s [%s]" % (v["runtime"]["median_ms"], v["floor"]["time_s"] * 1e3,
      v["seconds"]["total"], v["timeline"]))
PY

# The adapter's unit tests with real torch (skipped where python3 has none).
py=${KERNELPRO_PYTHON:-python3}
[ -x /opt/torch/.venv/bin/python3 ] && py=${KERNELPRO_PYTHON:-/opt/torch/.venv/bin/python3}
"$py" -c "import torch" 2>/dev/null || fail "no python3 with torch for tests/python"
(cd "$KP_ROOT" && "$py" -B -m unittest tests/python/test_correctness.py tests/python/test_outcheck.py \
	tests/python/test_parts.py -v) >pyt.txt 2>&1
tail -3 pyt.txt
grep -q '^OK' pyt.txt || { cat pyt.txt; fail "tests/python with torch"; }
