#!/bin/sh
# Outputs that pass a tolerance without being right (issue 13), on a real GPU: every candidate in
# tests/adversarial/degenerate gets the verdict its header names (zeros, a constant, every 4th element,
# a scaled copy of the input, a wrong but tiny result and dropped small rows are wrong_output with the
# check that caught them; honest kernels with other summation orders, fast-math and fp16 with fp32
# accumulation stay correct); verdicts state precision, TF32, tolerance, the floor and the scaled
# trial; --vs-compile gives the second speedup; the adapter's statistics and correctness phase pass
# their tests on torch.
. "$KP_ROOT/tests/integration/lib.sh"
KERNELPRO_HOME=${KERNELPRO_HOME:-$KP_ROOT}
export KERNELPRO_HOME
cache="$KP_TMP/cache"
. "$KP_ROOT/tests/gpu/corpus.sh"

for f in "$KP_ROOT"/tests/adversarial/degenerate/*.py "$KP_ROOT"/tests/adversarial/degenerate/*.cu; do
	corpus_file "$f"
done

# What a correct verdict says about itself: conditions, floor, scaled trial, the claim.
for v in kb_honest_softmax.py.json nat_honest_softmax.cu.json nat_honest_matvec_f16.cu.json kb_honest_row_scales.py.json; do
	python3 - "$v" <<'PY' || { echo "    $v: conditions"; bad=$((bad + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))
c = v["conditions"]
assert v["status"] == "correct", v["status"]
assert c["tf32"] == {"reference": False, "candidate": False}, c
assert c["precision"] in ("f32", "f16") and c["reference_precision"] == c["candidate_precision"] == c["precision"], c
assert c["tolerance"] == "default" and c["atol"] > 0, c
assert v["scaled_trial"]["status"] == "passed", v["scaled_trial"]
f = v["floor"]
assert f["source"] == "measured" and f["gpu"] and 0 < f["time_s"] <= v["runtime"]["median_ms"] * 1e-3, f
assert "over" in v["claim"] and "TF32 off on both" in v["claim"] and "scaled x" in v["claim"], v["claim"]
print("%-34s floor %.3g ms, runtime %.3g ms; %s" % (sys.argv[1], f["time_s"] * 1e3, v["runtime"]["median_ms"], v["claim"]))
PY
done
# A failing check says what was wrong and why the tolerance let it through.
python3 - kb_out_zeros.py.json <<'PY' || { echo "    kb_out_zeros: message"; bad=$((bad + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))
assert "is constant (every element 0)" in v["message"] and "atol" in v["message"], v["message"]
assert [f for f in v["flags"] if f["check"] == "constant_output" and f["severity"] == "fail"], v["flags"]
PY

# The second speedup, over torch.compile, when asked for; baselines say what they ran at.
n=$((n + 1))
"$KP" eval --json --cache "$cache" --vs-compile "$KP_ROOT/examples/kernelbench/swish_scale.py" \
	"$KP_ROOT/examples/kernelbench/swish_scale_fast.py" >vs.json 2>vs.err
python3 - vs.json <<'PY' || { cat vs.json vs.err; bad=$((bad + 1)); }
import json, sys
v = json.load(open(sys.argv[1]))
assert v["status"] == "correct", v["status"]
if v["compiled_ref_runtime"] is None:
    print("torch.compile did not run here: %s" % v["message"])
else:
    assert v["speedup_compile"] > 0 and "over torch.compile" in v["claim"], v
print("vs-compile: %s" % v["claim"])
PY
n=$((n + 1))
"$KP" baseline --json --cache "$cache" --no-compile "$KP_ROOT/tests/adversarial/tasks/small_norm.py" >base.json 2>base.err
python3 - base.json <<'PY' || { cat base.json base.err; bad=$((bad + 1)); }
import json, sys
b = json.load(open(sys.argv[1]))
assert b["precision"] == "f32" and b["tf32"] is False and b["io_bytes"] == 2 * 512 * 2048 * 4, b
print("baseline small_norm: %s, TF32 %s, %.4g MB" % (b["precision"], b["tf32"], b["io_bytes"] / 1e6))
PY

# The adapter's statistics and its correctness phase on CPU tensors (skipped where python3 has no
# torch, run here): the scaled trial's atol for honest reordered sums and zero softmax outputs, the
# repeats before the scaled trial.
py=${KERNELPRO_PYTHON:-python3}
[ -x /opt/torch/.venv/bin/python3 ] && py=${KERNELPRO_PYTHON:-/opt/torch/.venv/bin/python3}
if "$py" -c "import torch" 2>/dev/null; then
	for t in test_outcheck test_correctness; do
		n=$((n + 1))
		(cd "$KP_ROOT" && "$py" -B -m unittest "tests/python/$t.py" -v) >"$t.txt" 2>&1
		if ! grep -q '^OK$' "$t.txt" || grep -q skipped "$t.txt"; then
			cat "$t.txt"
			bad=$((bad + 1))
		fi
		tail -3 "$t.txt"
	done
else
	echo "no python3 with torch for tests/python/test_outcheck.py"
	bad=$((bad + 1))
fi
echo "$n cases, $bad wrong"
[ "$bad" -eq 0 ]
