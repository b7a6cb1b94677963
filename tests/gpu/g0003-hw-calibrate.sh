#!/bin/sh
# On the GPU: the device matches the table, and kp-calibrate measures plausible ceilings (stored in a test cache).
. "$KP_ROOT/tests/integration/lib.sh"
export XDG_CACHE_HOME="$PWD/cache"
expect_exit 0 "$KP" hw show --json
python3 -c "
import json; o = json.load(open('out')); print(o['key'], o['device'], o['source'])
assert o['device'] and o['key'] != 'unknown'
" || fail "device not matched to the table"
expect_exit 0 "$KP" hw calibrate --json
cat out
python3 - <<'PY' || fail "implausible calibration"
import json
o = json.load(open("out")); d = o["datasheet"]
for k in ("dram_bw", "fp32", "fp64", "tf32_tc", "bf16_tc", "fp16_tc"):
    r = o[k] / d["datasheet_" + k] if "datasheet_" + k in d else o[k] / d[k]
    print("%-8s %.3g measured, %.0f%% of datasheet" % (k, o[k], 100 * r))
    assert 0.3 < r < 1.2, k
PY
test -s cache/kernelpro/hw/*.json || fail "calibration not stored"
expect_exit 0 "$KP" hw show
contains out "measured"
echo ok
