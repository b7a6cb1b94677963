#!/bin/sh
# --objective speed+energy on the GPU: the harness evaluator measures each correct version's energy
# per launch (kp-energy driver, NVML) and the run records it; the tie-break itself is unit-tested.
. "$KP_ROOT/tests/integration/lib.sh"
export KERNELPRO_HOME="$KP_ROOT"
E="$KP_ROOT/examples/optimize/softmax"
"$KP" optimize "$E" --llm "replay:$E/replies" --evals 3 --objective speed+energy --no-profile \
	--runs-dir runs --name energy >out 2>err
rc=$?
cat out err
[ $rc -eq 0 ] || fail "optimize exited $rc"
"$KP" show runs/energy --tree --json >t.json || fail "show"
python3 - t.json <<'PY' || fail "energy was not recorded"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["search"]["objective"] == "speed+energy", d["search"]
correct = [n for n in d["tree"] if n["outcome"] == "correct"]
assert correct, d["tree"]
rows = [(n["node"], n["energy_j"]) for n in correct]
assert all(e is not None and e > 0 for _, e in rows), rows
print("energy per launch (J):", ", ".join("#%d %.4g" % r for r in rows))
PY
exit 0
