#!/bin/sh
# kernelpro eval --explain-checks lists every check (text and JSON) and usage errors are clear.
. "$KP_ROOT/tests/integration/lib.sh"

expect_exit 0 "$KP" eval --explain-checks
for id in torch_fallback try_fallback streams threads timer_patch lazy_tensor precision reads_reference \
	output_poison output_alias repeat_mismatch input_memo timed_output inputs_modified host_time below_floor \
	constant_output partial_match relative_error scaled_inputs flop_floor; do
	contains out "$id  ("
done
contains out "Switch one off with --allow ID"
contains out "constant_output  (dynamic, fail, all tasks)"
contains out "failing checks make it wrong_output"

expect_exit 0 "$KP" eval --explain-checks --json
python3 - <<'PY' || fail "explain-checks JSON"
import json
checks = json.load(open("out"))
ids = [c["id"] for c in checks]
assert len(ids) == len(set(ids)) >= 20, ids
for c in checks:
    assert c["stage"] in ("static", "dynamic") and c["severity"] in ("warn", "refuse", "fail"), c
    assert c["applies"] in ("both", "kernelbench", "native") and len(c["explain"]) > 60, c
fails = sorted(c["id"] for c in checks if c["severity"] == "fail")
assert fails == ["constant_output", "partial_match", "relative_error", "scaled_inputs"], fails
PY

# Usage errors.
expect_exit 2 "$KP" eval "$KP_ROOT/examples/kernelbench/swish_scale.py"
contains err "give a TASK and a CANDIDATE"
expect_exit 2 "$KP" eval --allow no_such_check "$KP_ROOT/examples/kernelbench/swish_scale.py" x.py
contains err "'no_such_check': no such check"
expect_exit 2 "$KP" eval --trials 0 "$KP_ROOT/examples/kernelbench/swish_scale.py" x.py
expect_exit 1 "$KP" eval "$KP_ROOT/examples/kernelbench/swish_scale.py" "$KP_ROOT/examples/native/gelu/reference.cu"
contains err "KernelBench tasks take a Python candidate"
expect_exit 1 "$KP" eval "$KP_ROOT/examples/native/gelu" "$KP_ROOT/examples/kernelbench/swish_scale_fast.py"
contains err "native tasks take a .cu file"
expect_exit 1 "$KP" eval "$KP_ROOT/examples/kernelbench/swish_scale_fast.py" x.py
contains err "not a KernelBench task"
expect_exit 1 "$KP" eval /nonexistent.py x.py
contains err "cannot open task"
echo ok
