#!/bin/sh
# load_inline builds on the GPU host (issue 29), source to verdict through the warm worker, side by side
# in one run; every verdict and timing under OUT with the command that made it:
#   1 plain      candidate A, KERNELPRO_INLINE_CACHE=0 (as load_inline builds it), fresh caches
#   2 first      candidate B, the shared precompiled torch/extension.h built by this candidate, cuda.cu
#                with torch/types.h alone (the build cache's two parts; the verdict's build_note says so)
#   3 warm       candidate A again, uncached build, the precompiled header already there: its verdict
#                must equal 1's (status, trials, refusing checks); then warm-light, candidate C the same
#                way with KERNELPRO_INLINE_MIN=0 (the light cuda.cu: torch/types.h, not the min header)
#   4 wrong      a wrong-output load_inline candidate both ways: the same verdict (WRONG=0: skipped)
#   5 parallel   N distinct candidates evaluated at once (cold, builds in parallel): candidates/minute
#   6 rejudge    (when CORPUS is set: a KernelBench run directory and its tasks) bench --kernels on it,
#                with --per-gpu $PER_GPU (default 1), --suite-time $CORPUS_TIME and --tolerance-mode $TOL_MODE
#                when set; REJUDGE_SUITES=DIR keeps the suite there and REJUDGE_RESUME=1 resumes it (a later
#                call); REJUDGE_CACHE=DIR the build cache (XDG_CACHE_HOME) to share between such calls;
#                bench/rejudge_phases.py's table of where each kernel's time went
#   bench/inline-build-gpu.sh OUT [N]   (N default $INLINE_PARALLEL, else 4; WRONG=0 skips step 4; SKIP_SINGLE=1 steps 1-5; CORPUS_RUN=DIR CORPUS_TASKS=DIR for step 6,
#                                       CORPUS_MAX=K kernels of it by a list file)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/bench/env.sh"
out=${1:-${OUT:?usage: bench/inline-build-gpu.sh OUT [N] (or OUT in the environment, as tools/gpu-run.sh sets it)}}
n=${2:-${INLINE_PARALLEL:-4}}
mkdir -p "$out"
task="$root/examples/kernelbench/swish_scale.py"
src="$root/examples/kernelbench/swish_scale_inline.py"
w=$(mktemp -d "${TMPDIR:-/tmp}/kp-inline-XXXXXX")
export KERNELPRO_WORKER_DIR="$w/workers"
mkdir -m 700 "$KERNELPRO_WORKER_DIR"
stop_workers() {
	for s in "$KERNELPRO_WORKER_DIR"/*.sock; do
		[ -S "$s" ] && "$py" -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"{\"op\": \"shutdown\"}\n")' "$s"
	done
}
trap stop_workers EXIT
# variant NAME SCALE_EXPR: the example with its module name and one constant changed: another source,
# so another build (load_inline's directory is keyed by the source).
variant() {
	sed -e "s/name=\"kp_swish_scale\"/name=\"kp_swish_$1\"/" -e "s|y\[i\] = scale \* x\[i\]|y[i] = $2 * x[i]|" "$src" >"$w/$1.py"
}
variant a "scale"
variant b "(scale * 1.0f)"
variant c "(scale * 1.0f + 0.0f)"
variant wrong "(scale * 0.5f)"
now() { date +%s.%N; }
# evaluate LABEL CACHE_HOME ENV CANDIDATE [worker]: one evaluation, its verdict and wall time recorded
evaluate() {
	label=$1 home=$2 envs=$3 cand=$4 mode=${5:---worker}
	cmd="XDG_CACHE_HOME=$home $envs $KP eval $task $cand $mode --json"
	t0=$(now)
	env XDG_CACHE_HOME="$home" $envs "$KP" eval "$task" "$cand" $mode --json >"$out/$label.json" 2>"$out/$label.err"
	rc=$?
	t1=$(now)
	printf '%s\n' "$cmd" >"$out/$label.cmd"
	awk -v a="$t0" -v b="$t1" -v l="$label" -v rc="$rc" 'BEGIN { printf "%-10s %6.1f s wall (exit %s)\n", l, b - a, rc }' | tee -a "$out/summary.txt"
}
{
	echo "host: $(uname -n), $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
	echo "torch: $("$py" -c 'import torch; print(torch.__version__)' 2>&1); g++: $(g++ --version | head -1)"
} | tee "$out/summary.txt"
if [ "${SKIP_SINGLE:-0}" != 1 ]; then # SKIP_SINGLE=1: the corpus re-judge alone
evaluate plain "$w/plain" "KERNELPRO_INLINE_CACHE=0" "$w/a.py"
evaluate first "$w/shared" "" "$w/b.py"
evaluate warm "$w/shared" "" "$w/a.py"
evaluate warm-light "$w/shared" "KERNELPRO_INLINE_MIN=0" "$w/c.py"
if [ "${WRONG:-1}" = 1 ]; then
	evaluate wrong-plain "$w/plain" "KERNELPRO_INLINE_CACHE=0" "$w/wrong.py"
	evaluate wrong-warm "$w/shared" "" "$w/wrong.py"
fi
"$py" - "$out" <<'PY' | tee -a "$out/summary.txt"
import json, os, sys
out = sys.argv[1]
def v(label):
    with open(os.path.join(out, label + ".json")) as f:
        return json.load(f)
def key(d):
    c = d.get("correctness") or {}
    return (d["status"], c.get("trials_run"), c.get("trials_passed"),
            sorted(f["check"] for f in d.get("flags", []) if f["severity"] != "warn"))
for a, b in (("plain", "warm"), ("wrong-plain", "wrong-warm")):
    if not os.path.exists(os.path.join(out, b + ".json")):
        continue
    same = key(v(a)) == key(v(b))
    print("%s vs %s: %s %s" % (a, b, "same verdict" if same else "VERDICTS DIFFER", key(v(a)) if same else (key(v(a)), key(v(b)))))
for label in ("plain", "first", "warm", "warm-light"):
    d = v(label)
    s = d.get("seconds") or {}
    print("%-6s status %-12s build %s s, timeline: %s" % (label, d["status"], s.get("build"), d.get("timeline")))
    if d.get("build_note"):
        print("       build_note: %s" % d["build_note"].replace("\n", "\n                   "))
PY
# Parallel: N distinct candidates at once, cold (one harness child each: the worker runs one job at a time).
i=0
while [ $i -lt "$n" ]; do variant "p$i" "(scale + 0.0f * $i)"; i=$((i + 1)); done
t0=$(now)
i=0
while [ $i -lt "$n" ]; do
	env XDG_CACHE_HOME="$w/shared" "$KP" eval "$task" "$w/p$i.py" --json >"$out/parallel-$i.json" 2>"$out/parallel-$i.err" &
	i=$((i + 1))
done
wait
t1=$(now)
echo "XDG_CACHE_HOME=$w/shared $KP eval $task p\$i.py --json   (i = 0..$((n - 1)), all at once)" >"$out/parallel.cmd"
if [ "$n" -gt 0 ]; then
	awk -v a="$t0" -v b="$t1" -v n="$n" 'BEGIN { printf "parallel   %d candidates in %.1f s: %.1f load_inline candidates per minute\n", n, b - a, n * 60 / (b - a) }' |
		tee -a "$out/summary.txt"
	grep -h '"status"' "$out"/parallel-*.json | sed 's/^ *//' | sort | uniq -c | tee -a "$out/summary.txt"
fi
fi
if [ -n "${CORPUS_RUN:-}" ]; then
	suites=${REJUDGE_SUITES:-$out/suites} # REJUDGE_SUITES: a folder that outlives the call, for REJUDGE_RESUME=1
	kernels=$CORPUS_RUN
	if [ -n "${CORPUS_MAX:-}" ]; then
		"$KP" bench --kernels "$CORPUS_RUN" --tasks "$CORPUS_TASKS" --list-tasks | head -n "$CORPUS_MAX" |
			awk '{ print $2, $3, "name=" $1 }' >"$w/corpus.txt"
		kernels="$w/corpus.txt"
	fi
	extra="--per-gpu ${PER_GPU:-1}${CORPUS_TIME:+ --suite-time $CORPUS_TIME}${TOL_MODE:+ --tolerance-mode $TOL_MODE}"
	if [ "${REJUDGE_RESUME:-0}" = 1 ]; then # the suite a call before this one started (kill -9 or its deadline)
		set -- "$suites/rejudge" --resume --gpus all $extra
	else
		set -- --kernels "$kernels" --tasks "$CORPUS_TASKS" --recorded "$CORPUS_RUN/eval_results.json" \
			--gpus all $extra --no-compile --suites-dir "$suites" --name rejudge
	fi
	echo "$KP bench $*" >"$out/rejudge.cmd"
	t0=$(now)
	XDG_CACHE_HOME="${REJUDGE_CACHE:-$w/shared}" "$KP" bench "$@" >"$out/rejudge.out" 2>"$out/rejudge.err"
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "rejudge    %.1f s wall\n", b - a }' | tee -a "$out/summary.txt"
	tail -n 4 "$out/rejudge.out" | tee -a "$out/summary.txt"
	"$py" "$root/bench/rejudge_phases.py" "$suites/rejudge" >"$out/rejudge-phases.txt" 2>&1
	tail -n 6 "$out/rejudge-phases.txt" | tee -a "$out/summary.txt"
	cp "$suites/rejudge/results.json" "$out/rejudge-results.json" 2>/dev/null
	# the runs stay on the GPU machine, unless REJUDGE_KEEP=1 (they come back with the logs, to resume in a
	# later call: carry them as REJUDGE_SUITES)
	[ -n "${REJUDGE_SUITES:-}" ] || [ "${REJUDGE_KEEP:-0}" = 1 ] || rm -rf "$out/suites/rejudge/runs"
fi
