# Energy grows with launch count: 4x the launches per window take ~4x the energy (30% band), and the
# energy per launch stays the same (15% band).
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"

# How long one launch takes, to make the short windows last about half a second.
expect_exit 0 "$KP" energy --builtin fma --windows 1 --window-s 0.3 --idle-s 0 --json
n=$(python3 -c "import json,math; m=json.load(open('out'))['measurements'][0]; print(max(10, math.ceil(0.5 / m['time_s'])))")
expect_exit 0 "$KP" energy --builtin fma --launches "$n" --windows 3 --json
cp out short.json
expect_exit 0 "$KP" energy --builtin fma --launches $((4 * n)) --windows 3 --json
cp out long.json
python3 - <<'PY' || fail "energy does not scale with the launch count"
import json, statistics
a = json.load(open("short.json"))["measurements"][0]
b = json.load(open("long.json"))["measurements"][0]
ea = statistics.median(w["energy_j"] for w in a["windows"])
eb = statistics.median(w["energy_j"] for w in b["windows"])
print("launches %d -> %.2f J, %d -> %.2f J, ratio %.2f" % (a["windows"][0]["launches"], ea, b["windows"][0]["launches"], eb, eb / ea))
assert 2.8 <= eb / ea <= 5.2, eb / ea
assert abs(b["energy_j"] / a["energy_j"] - 1) <= 0.15, (a["energy_j"], b["energy_j"])
PY
