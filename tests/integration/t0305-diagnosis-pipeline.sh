#!/bin/sh
# The diagnosis pipeline from the command line: the GPU-model rule with a device present (a fake
# libcuda with one H200: --gpu, then the GPU the profile was taken on, modelled from the device when
# it is that GPU, then the device), and the energy paragraph in the feedback with --energy only.
. "$KP_ROOT/tests/integration/lib.sh"
G="$KP_ROOT/tests/golden/h200-probe"
FAKE="$KP_BUILD/tests/libfakecuda.so"
[ -f "$FAKE" ] || fail "missing $FAKE (make integration builds it)"
export XDG_CACHE_HOME="$PWD/cache"

# gpu KEY DEVICE: the model the last --json report used.
gpu() {
	python3 - "$1" "$2" <<'PY' || fail "GPU model: expected $1 on '$2'"
import json, sys
g = json.load(open("out"))["gpu"]
want_dev = None if sys.argv[2] == "-" else sys.argv[2]
assert (g["key"], g["device"]) == (sys.argv[1], want_dev), g
PY
}

# A copy of the probe's raw page with the device name replaced (or dropped: "").
rename() {
	python3 - "$G/ncu_raw.csv" "$1" "$2" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
col = rows[0].index("device__attribute_display_name")
for r in rows[2:]:
    r[col] = sys.argv[3]
with open(sys.argv[2], "w", newline="") as f:
    csv.writer(f, quoting=csv.QUOTE_ALL).writerows(rows)
PY
}

export KP_LIBCUDA="$FAKE"
# The profile was taken on an H200 and an H200 is present: modelled from the device.
expect_exit 0 "$KP" diagnose --json --launch 0 --ncu-csv "$G/ncu_raw.csv"
gpu h200-sxm "NVIDIA H200 (fake)"
# --gpu wins over both.
expect_exit 0 "$KP" diagnose --json --launch 0 --ncu-csv "$G/ncu_raw.csv" --gpu-model b200
gpu b200 -
# Taken on an A100, analysed next to an H200: the A100's roofline, not the machine's.
rename a100.csv "NVIDIA A100-SXM4-80GB"
expect_exit 0 "$KP" diagnose --json --launch 0 --ncu-csv a100.csv
gpu a100-80 -
# The report names no GPU: profile.json's, else the device present.
mkdir named
rename named/ncu_raw.csv ""
echo '{"schema": 1, "device": "NVIDIA H100 PCIe"}' > named/profile.json
expect_exit 0 "$KP" analyze --json --launch 0 named
gpu h100-pcie -
expect_exit 0 "$KP" diagnose --json --launch 0 --ncu-csv named/ncu_raw.csv
gpu h200-sxm "NVIDIA H200 (fake)"
# A recorded GPU the table does not know: the device present, and without one a clear error.
echo '{"schema": 1, "device": "NVIDIA X9000"}' > named/profile.json
expect_exit 0 "$KP" analyze --json --launch 0 named
gpu h200-sxm "NVIDIA H200 (fake)"
KP_LIBCUDA=/nonexistent/libcuda.so.1 expect_exit 3 "$KP" analyze --launch 0 named
contains err "taken on 'NVIDIA X9000', which the GPU table does not know"
contains err "pass --gpu-model KEY"

# The energy paragraph (docs/energy.md) is part of the feedback text with --energy, and only then.
export KP_LIBCUDA=/nonexistent/libcuda.so.1
expect_exit 0 "$KP" diagnose --feedback-text --launch 0 --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt"
contains out "# Feedback for vec_add_naive"
lacks out "Energy ("
expect_exit 0 "$KP" diagnose --energy --feedback-text --launch 0 --ncu-csv "$G/ncu_raw.csv" --sass "$G/sass.txt"
contains out "# Feedback for vec_add_naive"
contains out "Energy (estimate from counters): 125 mJ per launch"
contains out "Move fewer DRAM bytes"
expect_exit 0 "$KP" diagnose --energy --json --launch 0 --ncu-csv "$G/ncu_raw.csv"
python3 -c "
import json; l = json.load(open('out'))['launches'][0]
assert 'Energy (estimate from counters)' in l['feedback_text'], l['feedback_text']
assert any(r['tool'] == 'instruction_mix' for r in l['tool_runs']), l['tool_runs']
" || fail "the JSON feedback_text lacks the energy paragraph"
echo ok
