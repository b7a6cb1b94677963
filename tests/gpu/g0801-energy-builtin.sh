# NVML energy of a compute-bound built-in kernel: figures present and plausible, idle subtraction non-negative.
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"

expect_exit 0 "$KP" energy --builtin fma --windows 3 --json
python3 - <<'PY' || fail "implausible measurement (see out)"
import json
m = json.load(open("out"))["measurements"][0]
print(json.dumps({k: m[k] for k in ("device", "time_s", "energy_j", "dynamic_j", "power_w", "idle_power_w",
                                    "energy_spread", "sm_clock_mhz", "temp_max_c", "notes")}, indent=1))
assert len(m["windows"]) == 3
assert m["time_s"] > 0 and m["energy_j"] > 0
assert 20 < m["idle_power_w"] < m["power_w"], "a busy GPU draws more than an idle one"
assert m["dynamic_j"] >= 0, "idle subtraction went negative"
for w in m["windows"]:
    assert w["dynamic_per_launch_j"] >= 0, w
    assert w["seconds"] >= 0.9, w           # windows of at least the asked second (minus rounding)
    assert w["sm_clock_mhz"] > 0 and w["temp_end_c"] > 0, w
assert m["energy_spread"] < 0.10, "windows disagree by more than 10%"
PY
expect_exit 0 "$KP" energy --builtin fma --windows 2
contains out "time/launch"
contains out "fma"
