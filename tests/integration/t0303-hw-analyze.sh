#!/bin/sh
# kernelpro hw show (offline with --gpu), the table, a stored calibration, and analyze of a timing-only profile.
. "$KP_ROOT/tests/integration/lib.sh"
export XDG_CACHE_HOME="$PWD/cache"

expect_exit 0 "$KP" hw show --gpu-model h200-sxm
contains out "NVIDIA H200 SXM 141GB (h200-sxm)"
contains out "ceilings (datasheet)"
expect_exit 0 "$KP" hw show --list
for k in h100-sxm h100-pcie h200-sxm a100-40 a100-80 l40s rtx-4090 b200; do contains out "$k"; done
expect_exit 0 "$KP" hw show --list --json
python3 -c "import json; assert len(json.load(open('out'))) >= 8" || fail "hw list json"
expect_exit 2 "$KP" hw show --gpu nope
contains err "unknown GPU 'nope'"
if ! [ -e /dev/nvidia0 ]; then
	expect_exit 3 "$KP" hw show
	contains err "pass --gpu-model KEY"
	expect_exit 3 "$KP" hw calibrate
fi

# a calibration stored in the cache replaces the datasheet ceilings
mkdir -p cache/kernelpro/hw
cat > cache/kernelpro/hw/h200-sxm.json <<'J'
{"schema": 1, "key": "h200-sxm", "device": "NVIDIA H200", "measured_at": "2026-11-29T12:00:00Z", "dram_bw": 4.0e12, "fp32": 6.0e13}
J
expect_exit 0 "$KP" hw show --gpu-model h200-sxm --json
python3 -c "
import json; o = json.load(open('out'))
assert o['calibrated'] and o['dram_bw'] == 4.0e12 and o['datasheet_dram_bw'] == 4.8e12, o
" || fail "calibration not used"
expect_exit 0 "$KP" diagnose --json --ncu-csv "$KP_ROOT/tests/golden/h200-probe/ncu_raw.csv" --launch 1
python3 -c "
import json; o = json.load(open('out')); s = o['launches'][0]['stage1']
assert o['gpu']['calibrated'] and s['memory_peak'] == 4.0e12 and s['memory_frac'] > 1.0, s
" || fail "stage 1 ignores the calibration"
rm -r cache

# a targeted profile names no device in its CSV: analyze models the GPU recorded in profile.json
mkdir named
python3 - "$KP_ROOT/tests/golden/h200-probe/ncu_raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
keep = [i for i, n in enumerate(rows[0]) if not n.startswith("device__attribute")]
with open("named/ncu_raw.csv", "w", newline="") as f:
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    for r in rows:
        w.writerow([r[i] for i in keep])
PY
echo '{"schema": 1, "device": "NVIDIA H100 PCIe"}' > named/profile.json
expect_exit 0 "$KP" analyze --launch 0 named
contains out "(h100-pcie)"

# a profile directory with only a trace: timing only
mkdir prof
cp "$KP_ROOT/tests/golden/trace/tracer.json" prof/trace.json
expect_exit 0 "$KP" analyze prof
contains out "timing only (no ncu counters): 3 kernel launches"
contains out "_Z11tiny_kernelPf"
expect_exit 0 "$KP" analyze --json prof
contains out '"timing_only": true'
mkdir empty
expect_exit 1 "$KP" analyze empty
contains err "neither ncu_raw.csv nor trace.json"
expect_exit 1 "$KP" analyze nothing-here
contains err "no such file or directory"
echo ok
