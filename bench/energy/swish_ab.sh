#!/bin/sh
# The Swish A/B on the GPU: IEEE x/(1+expf(-x)) against the __fdividef/__expf variants at matched
# speed, energy per launch with its spread over repeated windows. Two independent routes:
#   1. the bundled native task (examples/native/swish) through 'kernelpro eval' (correct? how fast?)
#      and 'kernelpro energy --reference' (reference and candidate in interleaved windows);
#   2. the same kernels in the corpus program, all four interleaved in one measurement.
#
# Usage, from the repository root on the GPU machine:  sh bench/energy/swish_ab.sh
# About 2.5 minutes on the H200 (3 x (1 s idle + 2 x 8 windows of 1 s) for the fast candidate, one
# run each for the other two, 4 x 8 interleaved windows in the corpus program, three evals).
set -u
root=$(pwd)
OUT=${OUT:-$root/swish-ab-out}
KP=${KP:-$root/dist/gpu/bin/kernelpro}
LIBEXEC=${KERNELPRO_LIBEXEC:-$(dirname "$KP")/../libexec/kernelpro}
TASK=$root/examples/native/swish
WINDOWS=${KP_ENERGY_WINDOWS:-8}
mkdir -p "$OUT"
[ -x "$KP" ] || { echo "swish A/B: no kernelpro at $KP (make gpu-bundle)"; exit 1; }
t0=$(date +%s)
fail=0

echo "== correctness and speed (kernelpro eval, 100 timed trials each)"
for c in fast expf_fast div_fast; do
	"$KP" eval "$TASK" "$TASK/candidates/$c.cu" >"$OUT/eval_$c.txt" 2>&1 || fail=1
	echo "-- $c"; head -8 "$OUT/eval_$c.txt"
done

echo "== energy: each candidate against the IEEE reference, windows interleaved"
for run in 1 2; do
	echo "-- fast, run $run"
	"$KP" energy "$TASK" "$TASK/candidates/fast.cu" --reference --windows "$WINDOWS" | tee "$OUT/energy_fast_$run.txt" || fail=1
done
echo "-- fast, run 3 (JSON: every window in energy_fast.json)"
"$KP" energy "$TASK" "$TASK/candidates/fast.cu" --reference --windows "$WINDOWS" --json >"$OUT/energy_fast.json" || fail=1
python3 - "$OUT/energy_fast.json" <<'PY' || fail=1
import json, sys
ms = json.load(open(sys.argv[1]))["measurements"]
ref = ms[0]
for m in ms:
    print("%-10s %9.4f ms %9.3f mJ  dynamic %8.3f mJ  spread %4.1f%%  vs reference %+5.1f%%  windows (mJ): %s" % (
        m["name"], m["time_s"] * 1e3, m["energy_j"] * 1e3, (m["dynamic_j"] or 0) * 1e3, 100 * m["energy_spread"],
        100 * (m["energy_j"] / ref["energy_j"] - 1), " ".join("%.2f" % (w["energy_per_launch_j"] * 1e3) for w in m["windows"])))
PY
for c in expf_fast div_fast; do
	echo "-- $c"
	"$KP" energy "$TASK" "$TASK/candidates/$c.cu" --reference --windows "$WINDOWS" | tee "$OUT/energy_$c.txt" || fail=1
done

echo "== the same kernels in the corpus program, all four interleaved"
"$LIBEXEC/kp-energy-corpus" measure --only swish_ieee,swish_fast,swish_expf_fast,swish_div_fast --interleave \
	--windows "$WINDOWS" >"$OUT/corpus_swish.jsonl" 2>"$OUT/corpus_swish.log" || fail=1
cat "$OUT/corpus_swish.log"
[ -s "$OUT/corpus_swish.jsonl" ] && python3 - "$OUT/corpus_swish.jsonl" <<'PY' || fail=1
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
m = {r["name"]: r["measurement"] for r in rows}
ref = m["swish_ieee"]
print("%-16s %10s %12s %12s %8s %8s" % ("kernel", "time ms", "energy mJ", "dynamic mJ", "spread", "vs IEEE"))
for name in ("swish_ieee", "swish_fast", "swish_expf_fast", "swish_div_fast"):
    x = m[name]
    print("%-16s %10.4f %12.3f %12.3f %7.1f%% %+7.1f%%" % (name, x["time_s"] * 1e3, x["energy_j"] * 1e3,
          (x["dynamic_j"] or 0) * 1e3, 100 * x["energy_spread"], 100 * (x["energy_j"] / ref["energy_j"] - 1)))
    ws = [w["energy_per_launch_j"] * 1e3 for w in x["windows"]]
    print("   windows (mJ): " + " ".join("%.2f" % w for w in ws))
PY
echo "total $(( $(date +%s) - t0 )) s"
exit $fail
