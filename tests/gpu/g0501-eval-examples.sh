#!/bin/sh
# The examples on a real GPU: every native candidate and the KernelBench fast-path and load_inline
# candidates are correct and timed; baselines time eager and torch.compile; a profile run calls the
# candidate N times; --loop reports an energy window; the reordered-sum candidate passes. Between them
# they go through every phase of the native harness (load, correctness with the scaled trial and the
# repeat and input_memo checks, timing, loop, run, baseline).
. "$KP_ROOT/tests/integration/lib.sh"
# The harness files come from the source tree whatever build directory $KP is in.
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
ex="$KP_ROOT/examples"
cache="$KP_TMP/cache"

check_correct() { # FILE: a verdict JSON that must be correct and timed
	python3 - "$1" <<'PY' || { cat "$1"; fail "not correct: $1"; }
import json, sys
v = json.load(open(sys.argv[1]))
assert v["status"] == "correct" and v["correct"] and v["compiled"], v["status"]
assert v["correctness"]["trials_passed"] == 5 == v["correctness"]["trials_run"], v["correctness"]
rt, ref = v["runtime"], v["ref_runtime"]
assert rt["trials"] == 100 and 0 < rt["min_ms"] <= rt["median_ms"] <= rt["max_ms"], rt
assert ref["trials"] == 100 and ref["median_ms"] > 0, ref
assert abs(v["speedup"] - ref["median_ms"] / rt["median_ms"]) < 1e-6 * v["speedup"], v["speedup"]
assert not [f for f in v["flags"] if f["severity"] in ("refuse", "fail")], v["flags"]
assert v["gpu"]["name"], v["gpu"]
# Every phase of both harnesses ran: the scaled trial, a measured floor under the runtime, TF32 off.
assert v["scaled_trial"]["status"] == "passed", v["scaled_trial"]
assert v["floor"]["source"] == "measured" and v["floor"]["time_s"] < rt["median_ms"] * 1e-3, v["floor"]
assert v["conditions"]["tf32"] == {"reference": False, "candidate": False}, v["conditions"]
print("%-40s %s %.4g ms (ref %.4g ms) %.2fx total %.2f s" % (sys.argv[1], v["status"], rt["median_ms"],
      ref["median_ms"], v["speedup"], v["seconds"]["total"]))
PY
}

for t in gelu row_sum matmul; do
	for c in "$ex/native/$t"/candidates/*.cu "$ex/native/$t/reference.cu"; do
		n=$(basename "$c" .cu)
		expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/native/$t" "$c"
		cp out "v-$t-$n.json"
		check_correct "v-$t-$n.json"
	done
	expect_exit 0 "$KP" baseline --json --cache "$cache" "$ex/native/$t"
	contains out '"eager": {'
done

expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/kernelbench/swish_scale.py" "$ex/kernelbench/swish_scale_fast.py"
cp out v-fast.json
check_correct v-fast.json
# The same source again: the fast-path library comes from the cache.
expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/kernelbench/swish_scale.py" "$ex/kernelbench/swish_scale_fast.py"
contains out '"build_cached": true'

expect_exit 0 "$KP" eval --json --cache "$cache" "$ex/kernelbench/swish_scale.py" "$ex/kernelbench/swish_scale_inline.py"
cp out v-inline.json
check_correct v-inline.json

expect_exit 0 "$KP" baseline --json --cache "$cache" "$ex/kernelbench/swish_scale.py"
python3 - <<'PY' || { cat out; fail "baseline"; }
import json
b = json.load(open("out"))
assert b["eager"]["trials"] == 100 and b["eager"]["median_ms"] > 0, b
assert b["torch_compile"] is not None or b["compile_error"], b
print("baseline eager %.4g ms, torch.compile %s" % (b["eager"]["median_ms"],
      b["torch_compile"] and "%.4g ms" % b["torch_compile"]["median_ms"] or b["compile_error"]))
PY

# Prepared runs (what ncu wraps): one compared trial, then N calls; none of the evaluation's further work
# (FLOP count, degenerate-output statistics, repeats, input_memo, scaled trial).
prepared_is_one_trial() {
	python3 - <<'PY' || { cat out; fail "prepared run: more than one compared trial"; }
import json
v = json.load(open("out"))
assert v["correctness"]["trials_passed"] == 1, v["correctness"]
assert v["scaled_trial"] is None and v["flops"] is None, (v["scaled_trial"], v["flops"])
parts = v["seconds"]["correctness_parts"] or {}
assert not {"flops", "degenerate"} & set(parts), parts
PY
}
expect_exit 0 "$KP" eval --json --cache "$cache" --profile-run 7 "$ex/native/matmul" "$ex/native/matmul/candidates/reg_tile.cu"
contains out '"message": "ran 7 iterations"'
prepared_is_one_trial
expect_exit 0 "$KP" eval --json --cache "$cache" --profile-run 3 "$ex/kernelbench/swish_scale.py" "$ex/kernelbench/swish_scale_fast.py"
contains out '"message": "ran 3 iterations"'
prepared_is_one_trial

# Energy windows.
expect_exit 0 "$KP" eval --json --cache "$cache" --loop 1 "$ex/native/gelu" "$ex/native/gelu/candidates/vec4.cu"
python3 - <<'PY' || { cat out; fail "loop window"; }
import json
v = json.load(open("out"))
for k in ("loop", "ref_loop"):
    l = v[k]
    assert l and l["iterations"] > 0 and l["t1"] - l["t0"] >= 1.0, (k, l)
PY
# KernelBench v0.1 tolerance mode is accepted and recorded.
expect_exit 0 "$KP" eval --json --cache "$cache" --no-timing --tolerance-mode kernelbench-v0.1 \
	"$ex/kernelbench/swish_scale.py" "$ex/kernelbench/swish_scale_fast.py"
contains out '"atol": 0.01'
contains out '"runtime": null'
echo ok
