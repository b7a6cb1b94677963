#!/bin/sh
# Timing stability: the same kernel timed in N separate evaluations (fresh processes, cached build).
# For each evaluation, spread = |median - median of all medians| / median of all medians; the figure
# is the median of the N spreads (target < 2%), with min/max of the medians beside it.
#   bench/eval-stability.sh [N]    (default 10; about 1 minute on the H200)
# Runs the KernelBench fast-path example and the native matmul candidate.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
KP=${KP:-$root/build/bin/kernelpro}
[ -x "$KP" ] || KP="$root/dist/gpu/bin/kernelpro"
n=${1:-10}
work=$(mktemp -d "${TMPDIR:-/tmp}/kp-stab-XXXXXX")
out=${OUT:-$work}
mkdir -p "$out"
log="$out/eval-stability.txt"
: >"$log"
one() { # LABEL TASK CANDIDATE
	i=1
	while [ $i -le "$n" ]; do
		"$KP" eval --json --cache "$work/cache" "$2" "$3" >"$out/stab-$1-$i.json" 2>/dev/null
		i=$((i + 1))
	done
	python3 - "$1" "$out" "$n" <<'PY' | tee -a "$log"
import json, statistics, sys
label, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
meds, refs = [], []
for i in range(1, n + 1):
    v = json.load(open("%s/stab-%s-%d.json" % (out, label, i)))
    if v["status"] != "correct":
        print("%s: evaluation %d is %s: %s" % (label, i, v["status"], v["message"]))
        continue
    meds.append(v["runtime"]["median_ms"])
    refs.append(v["ref_runtime"]["median_ms"])
if len(meds) < 2:
    sys.exit(1)
m = statistics.median(meds)
spreads = [abs(x - m) / m for x in meds]
print("%-10s %d evaluations: medians %.4g .. %.4g ms (median %.4g ms); median spread %.2f%%, max %.2f%% "
      "(target < 2%%); reference %.4g .. %.4g ms" % (label, len(meds), min(meds), max(meds), m,
      100 * statistics.median(spreads), 100 * max(spreads), min(refs), max(refs)))
PY
}
echo "kernelpro timing stability, $(date -u +%FT%TZ)" | tee -a "$log"
one fastpath "$root/examples/kernelbench/swish_scale.py" "$root/examples/kernelbench/swish_scale_fast.py"
one native "$root/examples/native/matmul" "$root/examples/native/matmul/candidates/reg_tile.cu"
[ "$out" = "$work" ] || rm -rf "$work"
