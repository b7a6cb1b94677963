#!/bin/sh
# Where the correctness phase's seconds go (issue 12: the small task spent ~4 s there on the H200 for a
# 0.04 ms kernel): the verdict's seconds.correctness_parts is there, its parts sum to the phase, and
# `eval -v` prints them; cold, and through the warm worker (first call, then build cached). Also the
# adapter's CPU unit tests with real torch (parts and host reads of the comparison and the statistics).
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
KERNELPRO_WORKER_DIR="$KP_TMP/workers"
export KERNELPRO_HOME KERNELPRO_WORKER_DIR
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
ex="$KP_ROOT/examples/kernelbench"
cache="$KP_TMP/cache"
stop_workers() {
	for s in "$KERNELPRO_WORKER_DIR"/*.sock; do
		[ -S "$s" ] && python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\"op\": \"shutdown\"}\n")' "$s"
	done
}
trap stop_workers EXIT

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
parts out "cold"
expect_exit 0 "$KP" eval --json --worker --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
parts out "worker, first call"
expect_exit 0 "$KP" eval --json --worker --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
parts out "worker, cached"
expect_exit 0 "$KP" eval -v --worker --cache "$cache" "$ex/swish_scale.py" "$ex/swish_scale_fast.py"
contains out "correctness: inputs"
grep -E "harness:|correctness:" out

# The adapter's unit tests with real torch (skipped on machines without it).
py=${KERNELPRO_PYTHON:-python3}
[ -x /opt/torch/.venv/bin/python3 ] && py=${KERNELPRO_PYTHON:-/opt/torch/.venv/bin/python3}
"$py" -c "import torch" 2>/dev/null || fail "no python3 with torch for tests/python"
(cd "$KP_ROOT" && "$py" -B -m unittest tests/python/test_correctness.py tests/python/test_outcheck.py \
	tests/python/test_parts.py -v) >pyt.txt 2>&1
tail -3 pyt.txt
grep -q '^OK' pyt.txt || { cat pyt.txt; fail "tests/python with torch"; }
