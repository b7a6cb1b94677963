# The benchmark's offline half on a synthetic corpus with known coefficients: validate joins ncu rows to
# measurements by marker launches, calibrate finds the coefficients again, the proxy then uses them.
. "$KP_ROOT/tests/integration/lib.sh"
G=$KP_ROOT/tests/golden/energy
export XDG_CACHE_HOME="$PWD/cache"

expect_exit 0 "$KP" energy validate --measured "$G/corpus-measured.jsonl" --ncu-csv "$G/corpus-ncu.csv" --out corpus.jsonl --prior 0
contains err "stray_kernel) comes before any marker"
contains err "'not_profiled' (entry 40) has no ncu launches"
contains out "16 kernels on Synthetic H200"
contains out "calibrated, leave-one-out Spearman  1.000   MAPE    0.0%"
[ "$(grep -c . corpus.jsonl)" -eq 16 ] || fail "corpus.jsonl should hold 16 samples"

# Calibration saves per GPU in the cache directory; the coefficients are the true ones.
expect_exit 0 "$KP" energy calibrate corpus.jsonl --prior 0
contains out "saved $PWD/cache/kernelpro/energy/coeffs-synthetic-h200.json"
python3 - "$G/corpus-true-coefficients.json" cache/kernelpro/energy/coeffs-synthetic-h200.json <<'PY' || fail "calibrated coefficients differ from the true ones"
import json, sys
true = json.load(open(sys.argv[1]))
got = json.load(open(sys.argv[2]))
for k, v in true.items():
    c = got["coefficients"][k]
    assert abs(c - v) <= 1e-4 * v, (k, c, v)  # counts are rounded to integers in the CSV
assert len(got["fitted"]) == 13
PY
expect_exit 0 "$KP" energy coeffs --device "Synthetic H200"
contains out "calibrated"
contains out "(fitted)"

# JSON of validate, and a dry run that saves nothing.
expect_exit 0 "$KP" energy validate --measured "$G/corpus-measured.jsonl" --ncu-csv "$G/corpus-ncu.csv" --json
python3 -c "import json; d = json.load(open('out')); assert len(d['kernels']) == 16 and d['leave_one_out']['spearman'] == 1" || fail "validate --json"
rm -rf cache
expect_exit 0 "$KP" energy calibrate corpus.jsonl --dry-run
contains out "dry run: nothing saved"
[ ! -e cache ] || fail "a dry run wrote into the cache"

# Bad input.
echo '{"index": 0, "name": "x"}' >m.jsonl
expect_exit 1 "$KP" energy validate --measured m.jsonl --ncu-csv "$G/corpus-ncu.csv"
contains err "m.jsonl:1"
expect_exit 1 "$KP" energy validate --measured "$G/corpus-measured.jsonl" --ncu-csv "$KP_ROOT/tests/golden/h200-probe/ncu_raw.csv"
contains err "no kp_corpus_marker launches"
expect_exit 1 "$KP" energy calibrate m.jsonl
contains err "m.jsonl:1"
