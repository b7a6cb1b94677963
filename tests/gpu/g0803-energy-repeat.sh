# Two runs of the same kernel agree: energy per launch within 5%, time per launch within 3%.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"

expect_exit 0 "$KP" energy --builtin swish_ieee --windows 5 --json
cp out one.json
expect_exit 0 "$KP" energy --builtin swish_ieee --windows 5 --json
cp out two.json
python3 - <<'PY' || fail "two runs of the same kernel disagree"
import json
a = json.load(open("one.json"))["measurements"][0]
b = json.load(open("two.json"))["measurements"][0]
de = abs(b["energy_j"] / a["energy_j"] - 1)
dt = abs(b["time_s"] / a["time_s"] - 1)
print("energy %.4f vs %.4f mJ (%.1f%%), time %.4f vs %.4f ms (%.1f%%), spreads %.1f%% %.1f%%" % (
    a["energy_j"] * 1e3, b["energy_j"] * 1e3, 100 * de, a["time_s"] * 1e3, b["time_s"] * 1e3, 100 * dt,
    100 * a["energy_spread"], 100 * b["energy_spread"]))
assert de <= 0.05, de
assert dt <= 0.03, dt
PY
