#!/bin/sh
# Per-candidate latency from source to verdict, side by side in one run, on a level-1-sized task
# (examples/kernelbench/swish_scale.py: 4096 x 4096 fp32), every build uncached:
#   fast path   kernelpro eval of a kernelpro.fast candidate (nvcc -shared), fresh build cache each time
#   load_inline kernelpro eval of a load_inline candidate, fresh torch extension dir each time
#   kernelbench KernelBench's eval_kernel_against_ref on the same load_inline candidate, fresh build dir
# All three: 5 correctness trials, 100 timed trials, reference timed too. Also the fast path with a
# warm cache. Needs .kb/ (bench/kb-prepare.sh) for the third; skips it otherwise.
#   bench/eval-latency.sh [REPEATS]      (default 2; about 4 minutes on the H200)
# Writes the figures to stdout and, when $OUT is set, eval-latency.txt and the verdicts under $OUT.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
KP=${KP:-$root/build/bin/kernelpro}
[ -x "$KP" ] || KP="$root/dist/gpu/bin/kernelpro"
reps=${1:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/kp-bench-XXXXXX")
out=${OUT:-$work}
mkdir -p "$out"
task="$root/examples/kernelbench/swish_scale.py"
fast="$root/examples/kernelbench/swish_scale_fast.py"
inline="$root/examples/kernelbench/swish_scale_inline.py"
py=${KERNELPRO_PYTHON:-python3}
log="$out/eval-latency.txt"
: >"$log"
say() { echo "$*" | tee -a "$log"; }
now() { python3 -c 'import time; print(time.monotonic())'; }

run_kp() { # LABEL N CACHE CANDIDATE
	t0=$(now)
	"$KP" eval --json --cache "$3" "$task" "$4" >"$out/$1-$2.json" 2>"$out/$1-$2.err"
	t1=$(now)
	python3 - "$out/$1-$2.json" "$t0" "$t1" "$1" <<'PY' | tee -a "$log"
import json, sys
v = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
print("%-12s %-8s wall %6.2f s  (build %s s, harness %.2f s)  %.4g ms  speedup %s" % (
    sys.argv[4], v["status"], wall, "%.2f" % v["seconds"]["build"] if v["seconds"]["build"] is not None else "-",
    v["seconds"]["run"] or 0, (v["runtime"] or {}).get("median_ms", float("nan")),
    "%.2fx" % v["speedup"] if v["speedup"] else "-"))
print("%-12s harness phases (s): %s" % ("", v.get("timeline") or "-"))
PY
}

say "kernelpro eval latency, $(date -u +%FT%TZ), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
say "task $task, $reps repeats each"
i=1
while [ $i -le "$reps" ]; do
	run_kp fast $i "$work/cache-fast-$i" "$fast"
	i=$((i + 1))
done
run_kp fast-cached 1 "$work/cache-fast-1" "$fast"
i=1
while [ $i -le "$reps" ]; do
	run_kp inline $i "$work/cache-inline-$i" "$inline"
	i=$((i + 1))
done
kbsrc="$root/.kb/KernelBench/src"
if [ -d "$kbsrc/kernelbench" ]; then
	i=1
	while [ $i -le "$reps" ]; do
		t0=$(now)
		CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0} "$py" "$root/bench/kb_eval_one.py" "$kbsrc" "$task" "$inline" \
			"$work/kb-build-$i" >"$out/kernelbench-$i.json" 2>"$out/kernelbench-$i.err"
		t1=$(now)
		python3 - "$out/kernelbench-$i.json" "$t0" "$t1" <<'PY' | tee -a "$log"
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("{")]
wall = float(sys.argv[3]) - float(sys.argv[2])
r = json.loads(lines[-1]) if lines else {"error": "no result (see .err)"}
print("%-12s %-8s wall %6.2f s  %s" % ("kernelbench", "correct" if r.get("correctness") else "FAILED", wall,
      "%.4g ms (KernelBench's mean)" % r["runtime_ms"] if r.get("runtime_ms") else r.get("error", "")))
PY
		i=$((i + 1))
	done
else
	say "kernelbench  skipped: no .kb/ (run bench/kb-prepare.sh and carry .kb)"
fi
python3 - "$log" <<'PY' | tee -a "$log.summary"
import re, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+)\s+(\S+)\s+wall\s+([\d.]+) s", line)
    if m:
        rows.setdefault(m.group(1), []).append((m.group(2), float(m.group(3))))
med = {k: statistics.median(w for _, w in v) for k, v in rows.items()}
print("median wall per candidate: " + ", ".join("%s %.2f s" % kv for kv in med.items()))
if "fast" in med:
    print("fast path uncached < 3 s: %s" % ("yes" if med["fast"] < 3 else "NO"))
    if "kernelbench" in med:
        print("kernelbench / fast path: %.1fx (target >= 15x)" % (med["kernelbench"] / med["fast"]))
    if "inline" in med:
        print("load_inline (ours) / fast path: %.1fx" % (med["inline"] / med["fast"]))
bad = [k for k, v in rows.items() for s, _ in v if s not in ("correct",)]
print("all correct: %s" % ("yes" if not bad else "NO (%s)" % ", ".join(sorted(set(bad)))))
PY
cat "$log.summary" >>"$log"
rm -f "$log.summary"
[ "$out" = "$work" ] || rm -rf "$work"
