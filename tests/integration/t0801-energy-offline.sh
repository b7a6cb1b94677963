# kernelpro energy without a GPU: the proxy on the real H200 capture, coefficients, metrics, feedback.
. "$KP_ROOT/tests/integration/lib.sh"
G=$KP_ROOT/tests/golden

# 1. The proxy on the 17 probe kernels matches the reviewed golden output.
expect_exit 0 "$KP" energy proxy --ncu-csv "$G/h200-probe/ncu_raw.csv"
diff -u "$G/energy/proxy-h200-probe.txt" out || fail "energy proxy output differs from tests/golden/energy/proxy-h200-probe.txt"

# 2. JSON: one entry per launch, terms in joules, the missing counts named, never zero-filled.
expect_exit 0 "$KP" energy proxy --ncu-csv "$G/h200-probe/ncu_raw.csv" --json
python3 - <<'PY' || fail "energy proxy --json is not the documented shape"
import json
d = json.load(open("out"))
ls = d["launches"]
assert len(ls) == 17, len(ls)
by = {l["kernel"]: l for l in ls}
f4 = by["vec_add_f4"]
assert f4["counts"]["dram"] == 536887552 + 250120448, f4["counts"]["dram"]
assert f4["counts"]["fp32"] is None and "fp32" in f4["breakdown"]["missing"]
assert by["spill_local"]["breakdown"]["terms_j"]["local"] > 0
assert by["copy_strided"]["counts"]["excess_sectors"] > 0
# The four kernels the H200 measured with NVML (fixtures energy.txt) come out in the measured order:
# vec_add_naive > swish_ieee ~ vec_add_f4 > swish_fast.
e = {k: by[k]["breakdown"]["total_j"] for k in ("vec_add_naive", "swish_ieee", "vec_add_f4", "swish_fast")}
assert e["vec_add_naive"] > e["swish_ieee"] > e["swish_fast"], e
assert e["vec_add_naive"] > e["vec_add_f4"] > e["swish_fast"], e
PY

# 3. The feedback names the IEEE division slow path of swish_ieee (from the SASS), not of swish_fast.
expect_exit 0 "$KP" energy proxy --ncu-csv "$G/h200-probe/ncu_raw.csv" --sass "$G/h200-probe/sass.txt" --kernel swish_ieee --feedback
contains out "What would lower it:"
contains out "__fdividef"
expect_exit 0 "$KP" energy proxy --ncu-csv "$G/h200-probe/ncu_raw.csv" --sass "$G/h200-probe/sass.txt" --kernel swish_fast --feedback
lacks out "__fdividef"

# 4. Metrics for ncu, and the coefficients in use.
expect_exit 0 "$KP" energy metrics
contains out "dram__bytes_read.sum,"
[ "$(tr ',' '\n' <out | grep -c .)" -eq 16 ] || fail "expected 16 metrics"
expect_exit 0 env XDG_CACHE_HOME="$PWD/cache" "$KP" energy coeffs
contains out "defaults (Hopper"

# 5. Bad input: a clear error naming the file, nothing else.
printf 'not a csv\n' >bad.csv
expect_exit 1 "$KP" energy proxy --ncu-csv bad.csv
contains err "bad.csv"
expect_exit 2 "$KP" energy proxy
contains err "--ncu-csv FILE is required"
expect_exit 1 "$KP" energy proxy --ncu-csv "$G/h200-probe/ncu_raw.csv" --coeffs missing.json
contains err "missing.json"
