#!/bin/sh
# Where the optimize loop's profile step spends its time on a task (issue 12, item 4): the prepared
# run alone (the harness's "run" mode: one checked call, then the profiled iterations), the same run
# under ncu collecting one metric, and under ncu with kernelpro's whole metric list (`kernelpro
# profile`); then a cold FlopCounterMode probe (bench/flop_count_cost.py). Wall seconds, each twice.
#   sh bench/profile-cost.sh [TASK CANDIDATE]   (default: the 6 GiB examples/kernelbench/large_swish.py)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/env.sh"
task=${1:-$root/examples/kernelbench/large_swish.py}
cand=${2:-$root/examples/kernelbench/large_swish_fast.py}
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "profile-cost: skipped: no GPU here (nvidia-smi -L failed)"
	exit 0
fi
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/kp-pcost-XXXXXX")}
export KERNELPRO_CACHE="$out/cache"
secs() { # LABEL CMD...: wall seconds of CMD, its output in $out/LABEL.log
	l=$1; shift
	t0=$(date +%s.%N)
	"$@" >"$out/$l.log" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	awk -v l="$l" -v rc="$rc" -v a="$t0" -v b="$t1" 'BEGIN { printf "%-58s exit %s  %6.2f s\n", l, rc, b - a }'
}
echo "profile step cost on $(basename "$task") with $(basename "$cand"), $(date -u +%FT%TZ)"
"$KP" eval --build-only "$task" "$cand" >/dev/null 2>&1 # the build cache, so no line below builds
for i in 1 2; do
	secs "prepared run alone ($i)" "$KP" eval -v --json --profile-run 1 "$task" "$cand"
done
python3 - "$out/prepared run alone (2).log" <<'PY'
import json, sys
t = open(sys.argv[1]).read()
try:
    v = json.loads(t[t.index("{"):])
except Exception as e:
    print("  (no verdict: %s)" % e); sys.exit()
s = v.get("seconds", {})
flat = lambda d: ", ".join("%s %s" % (k, ("%.2f" % x) if isinstance(x, (int, float)) else x) for k, x in d.items())
print("  its timeline: " + flat(s))
PY
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for i in 1 2; do
	secs "ncu, one metric ($i)" "$ncu" --target-processes all --clock-control none --cache-control all \
		--replay-mode kernel --metrics gpu__time_duration.sum --nvtx --nvtx-include "kp_candidate/" \
		--launch-count 64 "$KP" eval --profile-run 1 "$task" "$cand"
done
for i in 1 2; do
	secs "kernelpro profile --tools all --details --sass ($i)" "$KP" profile -o "$out/prof$i" --tools all \
		--details --sass -k "${KP_PCOST_KERNEL:-swish_kernel}" -c 64 -- "$KP" eval --profile-run 1 "$task" "$cand"
done
grep -h "passes\|Profiling" "$out"/ncu*.log 2>/dev/null | sort | uniq -c | head -5
echo "FlopCounterMode:"
"$py" "$root/bench/flop_count_cost.py" "$root/examples/kernelbench/swish_scale.py"
