# kernelpro energy TASK CANDIDATE --reference on the bundled Swish task: both built, measured in
# interleaved windows, at matched speed (within 15%).
. "$KP_ROOT/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || skip "python3 is needed to read the JSON"
task=$KP_ROOT/examples/native/swish

expect_exit 0 "$KP" energy "$task" "$task/candidates/fast.cu" --reference --windows 3 --json
python3 - <<'PY' || fail "bad A/B measurement"
import json
ms = json.load(open("out"))["measurements"]
assert [m["name"] for m in ms] == ["reference", "fast"], [m["name"] for m in ms]
for m in ms:
    assert m["energy_j"] > 0 and m["time_s"] > 0 and len(m["windows"]) == 3, m
assert abs(ms[1]["time_s"] / ms[0]["time_s"] - 1) < 0.15, "Swish variants should run at about the same speed"
print("reference %.3f mJ, fast %.3f mJ (%+.1f%%)" % (ms[0]["energy_j"] * 1e3, ms[1]["energy_j"] * 1e3,
      100 * (ms[1]["energy_j"] / ms[0]["energy_j"] - 1)))
PY
expect_exit 0 "$KP" energy "$task" "$task/candidates/fast.cu" --reference --windows 2
contains out "fast vs reference: time"

# A candidate that does not build is reported, with nvcc's message, and nothing is measured.
printf 'this is not CUDA\n' >broken.cu
expect_exit 1 "$KP" energy "$task" broken.cu
contains err "was not built"
