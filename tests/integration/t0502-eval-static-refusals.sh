#!/bin/sh
# Static refusals need no GPU: a cheating candidate gets a cheat_suspected verdict (exit 1) naming
# the check, with the evidence and a fix in the log; --allow lets it through to the next stage.
. "$KP_ROOT/tests/integration/lib.sh"
# The harness files come from the source tree whatever build directory $KP is in.
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
adv="$KP_ROOT/tests/adversarial/kernelbench"
task="$KP_ROOT/examples/kernelbench/swish_scale.py"

expect_exit 1 "$KP" eval "$task" "$adv/kb_try_fallback.py"
contains out "cheat_suspected"
contains out "refuse try_fallback: line"
contains out "fix: remove the try/except"

expect_exit 1 "$KP" eval --json "$task" "$adv/kb_side_stream.py"
python3 - <<'PY' || fail "verdict JSON"
import json
v = json.load(open("out"))
assert v["schema"] == "kernelpro.verdict/1", v
assert v["status"] == "cheat_suspected" and v["phase"] == "static" and not v["correct"], v
checks = {f["check"]: f["severity"] for f in v["flags"]}
assert checks.get("streams") == "refuse", checks
assert len(v["source_sha256"]) == 64 and v["runtime"] is None and v["seconds"]["total"] >= 0, v
PY

expect_exit 1 "$KP" eval "$KP_ROOT/examples/native/gelu" "$KP_ROOT/tests/adversarial/native/nat_precision_half.cu"
contains out "refuse precision"

# Allowed past the static check, the candidate goes on to the harness; here there is no torch or no
# GPU, so the command stops with exit 3 (missing tool/device) instead of a refusal.
"$KP" eval --allow streams "$task" "$adv/kb_side_stream.py" >out 2>err
rc=$?
[ $rc -ne 1 ] || { cat out err; fail "--allow streams still refused"; }
lacks out "refuse streams"
echo ok
